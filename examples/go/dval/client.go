package dval

/*
#include <dval.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// ClientOptions configures a client; zero values mean the library defaults
// (DAYTONA_* environment variables, executor chosen by credentials).
type ClientOptions struct {
	Executor      string // "daytona", "local" or "" (daytona when a key is configured)
	RetryAttempts int
	RetryBase     time.Duration
	RetryCap      time.Duration
	// The daytona executor's (dval_daytona_options).
	APIURL         string
	APIKey         string
	Target         string
	RequestTimeout time.Duration
	// The local executor's (dval_local_options).
	StateDir        string // state directory
	AllowUnisolated bool
}

// Client is one connection to an executor; safe for concurrent use.
type Client struct {
	mu sync.Mutex
	c  *C.dval_client
}

// NewClient creates a client. It does no network I/O; ctx is checked before.
func NewClient(ctx context.Context, o ClientOptions) (*Client, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	var opts C.dval_client_options
	C.dval_client_options_init(&opts, C.size_t(unsafe.Sizeof(opts)))
	var cs cstrings
	defer cs.free()
	opts.executor = cs.str(o.Executor)
	// each executor's own options, in C memory: opts (Go memory) may
	// point there but not at Go memory
	d := (*C.dval_daytona_options)(cs.alloc(unsafe.Sizeof(C.dval_daytona_options{})))
	C.dval_daytona_options_init(d, C.size_t(unsafe.Sizeof(*d)))
	d.api_url = cs.str(o.APIURL)
	d.api_key = cs.str(o.APIKey)
	d.target = cs.str(o.Target)
	d.request_timeout_ms = ms(o.RequestTimeout)
	l := (*C.dval_local_options)(cs.alloc(unsafe.Sizeof(C.dval_local_options{})))
	C.dval_local_options_init(l, C.size_t(unsafe.Sizeof(*l)))
	l.state_dir = cs.str(o.StateDir)
	if o.AllowUnisolated {
		l.allow_unisolated = 1
	}
	opts.daytona = d
	opts.local = l
	opts.retry_attempts = C.int32_t(o.RetryAttempts)
	opts.retry_base_ms = ms(o.RetryBase)
	opts.retry_cap_ms = ms(o.RetryCap)
	var c *C.dval_client
	if err := mkerr(C.dval_client_new(&c, &opts), nil); err != nil {
		return nil, err
	}
	return &Client{c: c}, nil
}

// Close frees the client; sandboxes and sessions made from it stay usable
// (they hold a reference). Idempotent. It does not touch any sandbox.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c != nil {
		C.dval_client_free(c.c)
		c.c = nil
	}
}

// ExecutorName is "daytona", "local" or a custom executor's name.
func (c *Client) ExecutorName() string { return C.GoString(C.dval_client_executor_name(c.c)) }

func (c *Client) errmsg() *C.char { return C.dval_client_errmsg(c.c) }

// SnapshotSpec describes a snapshot to get or build.
type SnapshotSpec struct {
	Name          string
	Image         string
	BuildCommands []string
	Dockerfile    string
	RebuildFailed bool
	BuildTimeout  time.Duration
}

// Snapshot is a snapshot handle.
type Snapshot struct {
	s      *C.dval_snapshot
	client *Client
}

// EnsureSnapshot gets or builds the snapshot and waits until it is active.
// onLog (may be nil) receives build output; an error from it stops the
// call. ctx is checked before the call and at each build log chunk.
func (c *Client) EnsureSnapshot(ctx context.Context, spec SnapshotSpec, onLog func([]byte) error) (*Snapshot, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	var sp C.dval_snapshot_spec
	C.dval_snapshot_spec_init(&sp, C.size_t(unsafe.Sizeof(sp)))
	var cs cstrings
	defer cs.free()
	sp.name = cs.str(spec.Name)
	sp.image = cs.str(spec.Image)
	sp.dockerfile = cs.str(spec.Dockerfile)
	sp.build_commands = cs.array(spec.BuildCommands)
	if spec.RebuildFailed {
		sp.rebuild_failed = 1
	}
	sp.build_timeout_ms = ms(spec.BuildTimeout)
	st := &callState{data: func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if onLog != nil {
			return onLog(b)
		}
		return nil
	}}
	h := cgo.NewHandle(st)
	defer h.Delete()
	var out *C.dval_snapshot
	rc := cSnapshotEnsure(&out, c.c, &sp, uintptr(h))
	if err := st.finish(mkerr(rc, c.errmsg())); err != nil {
		return nil, withCause(ctx, err)
	}
	return &Snapshot{s: out, client: c}, nil
}

// Name is the snapshot's name.
func (s *Snapshot) Name() string { return C.GoString(C.dval_snapshot_name(s.s)) }

// State is the snapshot's state when last read.
func (s *Snapshot) State() SnapshotState { return SnapshotState(C.dval_snapshot_state(s.s)) }

// Delete deletes the snapshot remotely (the handle stays valid; Close it).
func (s *Snapshot) Delete(ctx context.Context) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return mkerr(C.dval_snapshot_delete(s.s), s.client.errmsg())
}

// Close frees the handle (no I/O). Idempotent.
func (s *Snapshot) Close() {
	if s.s != nil {
		C.dval_snapshot_free(s.s)
		s.s = nil
	}
}

// SandboxInfo is one sandbox found by ListSandboxes.
type SandboxInfo struct {
	ID    string
	Name  string
	State SandboxState
}

// ListSandboxes returns the sandboxes carrying all labels ("key=value");
// nil lists all. ctx is checked before the call and at each row.
func (c *Client) ListSandboxes(ctx context.Context, labels []string) ([]SandboxInfo, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	var res []SandboxInfo
	st := &callState{list: func(id, name string, state SandboxState) error {
		res = append(res, SandboxInfo{ID: id, Name: name, State: state})
		return ctx.Err()
	}}
	h := cgo.NewHandle(st)
	defer h.Delete()
	var cs cstrings
	defer cs.free()
	rc := cList(c.c, cs.array(labels), uintptr(h))
	if err := st.finish(mkerr(rc, c.errmsg())); err != nil {
		return nil, withCause(ctx, err)
	}
	return res, nil
}
