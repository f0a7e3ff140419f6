package dval

// The sandbox pool (dval_pool_*): sandboxes of one profile shared by many
// goroutines.

/*
#include <dval.h>
*/
import "C"

import (
	"context"
	"sync"
	"time"
	"unsafe"
)

// PoolOptions configures a Pool; zero values mean the library defaults.
type PoolOptions struct {
	Profile       string // required
	Name          string // sandbox name prefix; "" → "pool-<profile>" (sandboxes "<name>-0", ...)
	MinWarm       int    // sandboxes acquired by NewPool; the others on first use
	MaxSandboxes  int    // 0 → 4
	MaxPerSandbox int    // concurrent validations on one sandbox; 0 → 1
	// IdleTimeout: a sandbox unused longer is released at the next lease;
	// 0: never.
	IdleTimeout time.Duration
	Labels      []string // extra "key=value" labels of every pool sandbox
	MaxQueue    int      // callers allowed to wait; 0 → 256, -1 → unbounded
	// Release is applied to idle sandboxes and to all of them by Close. The
	// default, ReleaseKeep, leaves them running after your program ends
	// (the next pool starts warm); use ReleaseDelete for one-off runs.
	Release    Release
	TTLMinutes int // Daytona TTL of every pool sandbox; 0 → 24 h, -1 → none
	// Services and Seeds of every validation on the pool (as
	// Validation.Services and .Seeds); its sandboxes keep them running.
	Services, Seeds []string
}

// Pool shares at most MaxSandboxes sandboxes of one profile between any
// number of goroutines: Validate leases a sandbox (at most MaxPerSandbox
// validations on one at a time), runs the program there and gives it back.
// Callers wait in arrival order when every sandbox is busy; beyond MaxQueue
// waiting, Validate fails at once with ErrBusy. The pool starts no thread.
type Pool struct {
	mu      sync.Mutex
	running sync.WaitGroup
	p       *C.dval_pool
	c       *C.dval_client // kept alive by the pool's own reference
}

// NewPool creates a pool on client (which it keeps alive: the client may be
// closed first). ctx is checked before; warming MinWarm sandboxes cannot be
// interrupted once started (keep MinWarm 0 to acquire them under
// Validate's context instead).
func NewPool(ctx context.Context, client *Client, o PoolOptions) (*Pool, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	var po C.dval_pool_options
	C.dval_pool_options_init(&po, C.size_t(unsafe.Sizeof(po)))
	var cs cstrings
	defer cs.free()
	po.profile = cs.str(o.Profile)
	po.name = cs.str(o.Name)
	po.min_warm = C.int32_t(o.MinWarm)
	po.max_sandboxes = C.int32_t(o.MaxSandboxes)
	po.max_per_sandbox = C.int32_t(o.MaxPerSandbox)
	po.idle_timeout_ms = ms(o.IdleTimeout)
	po.labels = cs.array(o.Labels)
	po.max_queue = C.int32_t(o.MaxQueue)
	po.release = C.int32_t(o.Release)
	po.ttl_minutes = C.int32_t(o.TTLMinutes)
	po.services = cs.array(o.Services)
	po.seeds = cs.array(o.Seeds)
	client.mu.Lock()
	defer client.mu.Unlock()
	if client.c == nil {
		return nil, &Error{Status: StatusInvalid, Name: StatusInvalid.String(),
			Message: "NewPool: the client is closed"}
	}
	var p *C.dval_pool
	if err := mkerr(C.dval_pool_new(&p, client.c, &po), client.errmsg()); err != nil {
		return nil, err
	}
	return &Pool{p: p, c: client.c}, nil
}

// Validate runs req on a leased pool sandbox, as Client.Validate does
// (req.Profile may be "": the pool's; req.SandboxName must be ""). Safe
// for concurrent use; a done ctx also stops a call still waiting for a
// sandbox. After Close it returns ErrInvalid.
func (p *Pool) Validate(ctx context.Context, req Validation) (*ValidationResult, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.p == nil {
		p.mu.Unlock()
		return nil, &Error{Status: StatusInvalid, Name: StatusInvalid.String(),
			Message: "Pool.Validate: the pool is closed"}
	}
	p.running.Add(1) // Close frees the pool only after this call returns
	h := p.p
	p.mu.Unlock()
	defer p.running.Done()
	return runValidation(ctx, p.c, h, req)
}

// Close waits for running Validate calls, applies the pool's release
// policy to its sandboxes (ReleaseKeep: they keep running) and frees the
// pool. Idempotent.
func (p *Pool) Close() {
	p.mu.Lock()
	h := p.p
	p.p = nil
	p.mu.Unlock()
	if h == nil {
		return
	}
	p.running.Wait()
	C.dval_pool_free(h)
}

// PoolStats is what a Pool is doing now and has done since NewPool
// (dval_pool_stats_get), read at one moment.
type PoolStats struct {
	MaxSandboxes    int           // the pool's slots
	BusySandboxes   int           // slots with a validation on them now
	Running         int           // validations holding a slot now
	Waiting         int           // callers queued for a slot now
	Completed       int64         // validations that held a slot and ended
	Failed          int64         // of those, ended with an error
	Refused         int64         // failed at once with ErrBusy: the queue was full
	CanceledWaiting int64         // canceled (context done) while queued
	WaitTotal       time.Duration // time callers spent queued, summed
	WaitMax         time.Duration // the longest one caller spent queued
}

// Stats reads the pool's counts; safe while other goroutines validate.
// After Close it returns ErrInvalid.
func (p *Pool) Stats() (PoolStats, error) {
	p.mu.Lock()
	if p.p == nil {
		p.mu.Unlock()
		return PoolStats{}, &Error{Status: StatusInvalid, Name: StatusInvalid.String(),
			Message: "Pool.Stats: the pool is closed"}
	}
	p.running.Add(1) // Close frees the pool only after this call returns
	h := p.p
	p.mu.Unlock()
	defer p.running.Done()
	var st C.dval_pool_stats
	if err := mkerr(C.dval_pool_stats_get(h, &st, C.size_t(unsafe.Sizeof(st))), nil); err != nil {
		return PoolStats{}, err
	}
	return PoolStats{
		MaxSandboxes: int(st.max_sandboxes), BusySandboxes: int(st.busy_sandboxes),
		Running: int(st.running), Waiting: int(st.waiting),
		Completed: int64(st.completed), Failed: int64(st.failed),
		Refused: int64(st.refused), CanceledWaiting: int64(st.canceled_waiting),
		WaitTotal: time.Duration(st.wait_ms_total) * time.Millisecond,
		WaitMax:   time.Duration(st.wait_ms_max) * time.Millisecond,
	}, nil
}
