// Package dval wraps libdaytona-validate through cgo (standard library only).
//
// Handles have Close methods; errors are *Error values carrying the status
// and the handle's message (errors.Is works against the Err* values);
// callbacks reach Go through runtime/cgo.Handle; Session.Exec maps context
// cancellation onto dval_session_cancel from another goroutine.
package dval

/*
#cgo LDFLAGS: -ldaytona-validate
#include <stdint.h>
#include <stdlib.h>
#include "dval.h"

extern int dvalGoOutput(int, char *, char *, size_t, void *);
extern int dvalGoData(char *, size_t, void *);
extern void dvalGoState(char *, int, void *);
extern int dvalGoList(char *, char *, int, void *);

// userdata is a cgo.Handle value carried as an integer; the casts live here
// so Go never converts an integer into a pointer.
static int go_snapshot_ensure(dval_snapshot **out, dval_client *c,
                              const dval_snapshot_spec *spec, uintptr_t h) {
	return dval_snapshot_ensure(out, c, spec, h ? (dval_data_fn)dvalGoData : NULL, (void *)h);
}
static int go_sandbox_acquire(dval_sandbox **out, dval_client *c,
                              dval_sandbox_options *o, uintptr_t h) {
	if (h) { o->on_state = (dval_state_fn)dvalGoState; o->state_userdata = (void *)h; }
	return dval_sandbox_acquire(out, c, o);
}
static int go_exec(dval_session *s, const char *cmd, const dval_exec_options *o,
                   uintptr_t h, int *code) {
	return dval_session_exec(s, cmd, o, h ? (dval_output_fn)dvalGoOutput : NULL, (void *)h, code);
}
static int go_download_to(dval_sandbox *sb, const char *path, uintptr_t h) {
	return dval_sandbox_download_to(sb, path, (dval_data_fn)dvalGoData, (void *)h);
}
static int go_list(dval_client *c, const char *const *labels, uintptr_t h) {
	return dval_sandbox_list(c, labels, (dval_sandbox_list_fn)dvalGoList, (void *)h);
}
*/
import "C"

import (
	"context"
	"encoding/json"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// Status codes (fixed values of enum dval_status).
const (
	StatusOK          = 0
	StatusError       = -1
	StatusNoMem       = -2
	StatusInvalid     = -3
	StatusABI         = -4
	StatusNotFound    = -5
	StatusExists      = -6
	StatusAuth        = -7
	StatusForbidden   = -8
	StatusTimeout     = -9
	StatusNetwork     = -10
	StatusProtocol    = -11
	StatusServer      = -12
	StatusRateLimit   = -13
	StatusConflict    = -14
	StatusState       = -15
	StatusAborted     = -16
	StatusCanceled    = -17
	StatusReentrant   = -18
	StatusExec        = -19
	StatusPassthrough = -20
	StatusUnsupported = -21
	StatusIsolation   = -22
	StatusBuild       = -23
	StatusTooBig      = -24
	StatusIO          = -25
	StatusResults     = -26
	StatusBadRequest  = -27
)

const (
	Stdout = 1
	Stderr = 2

	ReleaseKeep   = 0
	ReleaseStop   = 1
	ReleaseDelete = 2

	SandboxStarted = 5
)

// Error is a failed call: the status, its symbolic name and the message of
// the handle the call was made on.
type Error struct {
	Status  int
	Name    string
	Message string
	cause   error // context error when a context canceled the call
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// Is matches another *Error by status, so errors.Is(err, dval.ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Unwrap gives the context error when ctx canceled an Exec.
func (e *Error) Unwrap() error { return e.cause }

func statusErr(s int) *Error { return &Error{Status: s, Name: C.GoString(C.dval_status_name(C.int(s)))} }

var (
	ErrNotFound    = statusErr(StatusNotFound)
	ErrInvalid     = statusErr(StatusInvalid)
	ErrTimeout     = statusErr(StatusTimeout)
	ErrAborted     = statusErr(StatusAborted)
	ErrCanceled    = statusErr(StatusCanceled)
	ErrUnsupported = statusErr(StatusUnsupported)
	ErrIsolation   = statusErr(StatusIsolation)
	ErrNetwork     = statusErr(StatusNetwork)
	ErrResults     = statusErr(StatusResults)
)

func mkerr(rc C.int, msg *C.char) error {
	if rc >= 0 {
		return nil
	}
	e := statusErr(int(rc))
	if msg != nil {
		e.Message = C.GoString(msg)
	}
	if e.Message == "" {
		e.Message = C.GoString(C.dval_strerror(rc))
	}
	return e
}

// Version is the run-time library version.
func Version() string { return C.GoString(C.dval_version()) }

// StateName is the wire name of a sandbox state.
func StateName(state int) string { return C.GoString(C.dval_sandbox_state_name(C.int(state))) }

// cstrings keeps C copies of Go strings for the duration of a call.
type cstrings []unsafe.Pointer

func (cs *cstrings) str(s string) *C.char {
	if s == "" {
		return nil
	}
	p := C.CString(s)
	*cs = append(*cs, unsafe.Pointer(p))
	return p
}

// array makes a NULL-terminated char *[] in C memory.
func (cs *cstrings) array(items []string) **C.char {
	if len(items) == 0 {
		return nil
	}
	size := C.size_t(len(items)+1) * C.size_t(unsafe.Sizeof((*C.char)(nil)))
	arr := C.calloc(1, size)
	*cs = append(*cs, arr)
	slots := unsafe.Slice((**C.char)(arr), len(items)+1)
	for i, s := range items {
		slots[i] = cs.str(s)
	}
	return (**C.char)(arr)
}

func (cs *cstrings) free() {
	for _, p := range *cs {
		C.free(p)
	}
	*cs = nil
}

func ms(d time.Duration) C.int64_t { return C.int64_t(d / time.Millisecond) }

// ClientOptions configures a client; zero values mean the library defaults
// (DAYTONA_* environment variables, executor chosen by credentials).
type ClientOptions struct {
	Executor        string // "daytona", "local" or "" (auto)
	APIURL          string
	APIKey          string
	StateDir        string
	AllowUnisolated bool
	RetryAttempts   int
	RetryBase       time.Duration
	RetryCap        time.Duration
	RequestTimeout  time.Duration
}

// Client is safe for concurrent use.
type Client struct {
	mu sync.Mutex
	c  *C.dval_client
}

func NewClient(o ClientOptions) (*Client, error) {
	var opts C.dval_client_options
	C.dval_client_options_init(&opts, C.size_t(unsafe.Sizeof(opts)))
	var cs cstrings
	defer cs.free()
	opts.executor = cs.str(o.Executor)
	opts.api_url = cs.str(o.APIURL)
	opts.api_key = cs.str(o.APIKey)
	opts.state_dir = cs.str(o.StateDir)
	if o.AllowUnisolated {
		opts.allow_unisolated = 1
	}
	opts.retry_attempts = C.int32_t(o.RetryAttempts)
	opts.retry_base_ms = ms(o.RetryBase)
	opts.retry_cap_ms = ms(o.RetryCap)
	opts.request_timeout_ms = ms(o.RequestTimeout)
	var c *C.dval_client
	if err := mkerr(C.dval_client_new(&c, &opts), nil); err != nil {
		return nil, err
	}
	return &Client{c: c}, nil
}

// Close frees the client; children stay usable. Idempotent.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c != nil {
		C.dval_client_free(c.c)
		c.c = nil
	}
}

func (c *Client) ExecutorName() string { return C.GoString(C.dval_client_executor_name(c.c)) }

// SnapshotSpec describes a snapshot to get or build.
type SnapshotSpec struct {
	Name          string
	Image         string
	BuildCommands []string
	Dockerfile    string
	RebuildFailed bool
	BuildTimeout  time.Duration
}

type Snapshot struct {
	s      *C.dval_snapshot
	client *Client
}

// EnsureSnapshot gets or builds the snapshot and waits until it is active.
// onLog (may be nil) receives build output; an error from it stops the call.
func (c *Client) EnsureSnapshot(spec SnapshotSpec, onLog func([]byte) error) (*Snapshot, error) {
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
	st := &callState{data: onLog}
	var h cgo.Handle
	if onLog != nil {
		h = cgo.NewHandle(st)
		defer h.Delete()
	}
	var out *C.dval_snapshot
	rc := C.go_snapshot_ensure(&out, c.c, &sp, C.uintptr_t(h))
	if err := st.finish(mkerr(rc, C.dval_client_errmsg(c.c))); err != nil {
		return nil, err
	}
	return &Snapshot{s: out, client: c}, nil
}

func (s *Snapshot) Name() string { return C.GoString(C.dval_snapshot_name(s.s)) }
func (s *Snapshot) Delete() error {
	return mkerr(C.dval_snapshot_delete(s.s), C.dval_client_errmsg(s.client.c))
}
func (s *Snapshot) Close() {
	if s.s != nil {
		C.dval_snapshot_free(s.s)
		s.s = nil
	}
}

// SandboxOptions selects and configures the sandbox to acquire.
type SandboxOptions struct {
	Name          string
	Snapshot      string
	Image         string
	Labels        []string // "key=value"
	Env           []string
	Release       int // ReleaseKeep, ReleaseStop, ReleaseDelete
	CreateTimeout time.Duration
	OnState       func(name string, state int)
}

// Sandbox is used by one goroutine at a time; its sessions may run in
// different goroutines concurrently.
type Sandbox struct {
	sb      *C.dval_sandbox
	stateH  cgo.Handle
	stateCS *callState
}

// AcquireSandbox gets or creates the sandbox and brings it to started.
func (c *Client) AcquireSandbox(o SandboxOptions) (*Sandbox, error) {
	var so C.dval_sandbox_options
	C.dval_sandbox_options_init(&so, C.size_t(unsafe.Sizeof(so)))
	var cs cstrings
	defer cs.free()
	so.name = cs.str(o.Name)
	so.snapshot = cs.str(o.Snapshot)
	so.image = cs.str(o.Image)
	so.labels = cs.array(o.Labels)
	so.env = cs.array(o.Env)
	so.release = C.int32_t(o.Release)
	so.create_timeout_ms = ms(o.CreateTimeout)
	sb := &Sandbox{}
	if o.OnState != nil {
		// on_state may fire again in Start/Stop: the handle lives with the sandbox.
		sb.stateCS = &callState{state: o.OnState}
		sb.stateH = cgo.NewHandle(sb.stateCS)
	}
	var out *C.dval_sandbox
	rc := C.go_sandbox_acquire(&out, c.c, &so, C.uintptr_t(sb.stateH))
	if err := mkerr(rc, C.dval_client_errmsg(c.c)); err != nil {
		if sb.stateH != 0 {
			sb.stateH.Delete()
		}
		return nil, err
	}
	sb.sb = out
	return sb, nil
}

func (s *Sandbox) errmsg() *C.char { return C.dval_sandbox_errmsg(s.sb) }
func (s *Sandbox) ID() string      { return C.GoString(C.dval_sandbox_id(s.sb)) }
func (s *Sandbox) Name() string    { return C.GoString(C.dval_sandbox_name(s.sb)) }
func (s *Sandbox) State() int      { return int(C.dval_sandbox_state(s.sb)) }
func (s *Sandbox) Refresh() error  { return mkerr(C.dval_sandbox_refresh(s.sb), s.errmsg()) }
func (s *Sandbox) Release() error  { return mkerr(C.dval_sandbox_release(s.sb), s.errmsg()) }
func (s *Sandbox) Delete() error   { return mkerr(C.dval_sandbox_delete(s.sb), s.errmsg()) }

func (s *Sandbox) Upload(path string, data []byte) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var buf unsafe.Pointer
	if len(data) > 0 {
		buf = C.CBytes(data)
		defer C.free(buf)
	}
	return mkerr(C.dval_sandbox_upload(s.sb, cp, buf, C.size_t(len(data))), s.errmsg())
}

func (s *Sandbox) UploadJSON(path string, v interface{}) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Upload(path, b)
}

func (s *Sandbox) Download(path string) ([]byte, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var data *C.char
	var n C.size_t
	if err := mkerr(C.dval_sandbox_download(s.sb, cp, &data, &n), s.errmsg()); err != nil {
		return nil, err
	}
	defer C.dval_free(unsafe.Pointer(data))
	return C.GoBytes(unsafe.Pointer(data), C.int(n)), nil
}

// DownloadJSON fetches a results file (checked UTF-8 JSON) into v.
func (s *Sandbox) DownloadJSON(path string, v interface{}) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var doc *C.char
	if err := mkerr(C.dval_sandbox_download_json(s.sb, cp, &doc), s.errmsg()); err != nil {
		return err
	}
	defer C.dval_free(unsafe.Pointer(doc))
	return json.Unmarshal([]byte(C.GoString(doc)), v)
}

// DownloadTo streams a file to sink in chunks.
func (s *Sandbox) DownloadTo(path string, sink func([]byte) error) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	st := &callState{data: sink}
	h := cgo.NewHandle(st)
	defer h.Delete()
	return st.finish(mkerr(C.go_download_to(s.sb, cp, C.uintptr_t(h)), s.errmsg()))
}

// Close frees the handle (no I/O; see Release). Idempotent.
func (s *Sandbox) Close() {
	if s.sb != nil {
		C.dval_sandbox_free(s.sb)
		s.sb = nil
	}
	if s.stateH != 0 {
		s.stateH.Delete()
		s.stateH = 0
	}
}

// ListSandboxes returns the sandboxes carrying all labels.
func (c *Client) ListSandboxes(labels []string) ([][3]interface{}, error) {
	var res [][3]interface{}
	st := &callState{list: func(id, name string, state int) error {
		res = append(res, [3]interface{}{id, name, state})
		return nil
	}}
	h := cgo.NewHandle(st)
	defer h.Delete()
	var cs cstrings
	defer cs.free()
	arr := cs.array(labels)
	rc := C.go_list(c.c, (**C.char)(unsafe.Pointer(arr)), C.uintptr_t(h))
	return res, st.finish(mkerr(rc, C.dval_client_errmsg(c.c)))
}

// Session runs commands one after the other; one goroutine at a time,
// except Cancel.
type Session struct {
	s *C.dval_session
}

func (s *Sandbox) OpenSession() (*Session, error) {
	var out *C.dval_session
	if err := mkerr(C.dval_session_open(&out, s.sb), s.errmsg()); err != nil {
		return nil, err
	}
	return &Session{s: out}, nil
}

func (s *Session) ID() string { return C.GoString(C.dval_session_id(s.s)) }

// ExecOptions for one command; zero values are defaults.
type ExecOptions struct {
	Cwd           string
	ChannelPrefix string
	Timeout       time.Duration
}

// Exec runs command, streaming output to onOutput (may be nil; an error from
// it stops the command and is returned). Canceling ctx calls
// dval_session_cancel from another goroutine; the returned *Error then has
// status StatusCanceled and unwraps to ctx.Err().
func (s *Session) Exec(ctx context.Context, command string, o ExecOptions,
	onOutput func(stream int, channel string, data []byte) error) (int, error) {
	var eo C.dval_exec_options
	C.dval_exec_options_init(&eo, C.size_t(unsafe.Sizeof(eo)))
	var cs cstrings
	defer cs.free()
	eo.cwd = cs.str(o.Cwd)
	eo.channel_prefix = cs.str(o.ChannelPrefix)
	eo.timeout_ms = ms(o.Timeout)
	ccmd := cs.str(command)
	st := &callState{output: onOutput}
	var h cgo.Handle
	if onOutput != nil {
		h = cgo.NewHandle(st)
		defer h.Delete()
	}
	done := make(chan struct{})
	watcherDone := make(chan struct{})
	if ctx != nil && ctx.Done() != nil {
		go func() {
			defer close(watcherDone)
			select {
			case <-ctx.Done():
				C.dval_session_cancel(s.s)
			case <-done:
			}
		}()
	} else {
		close(watcherDone)
	}
	var code C.int
	rc := C.go_exec(s.s, ccmd, &eo, C.uintptr_t(h), &code)
	close(done)
	<-watcherDone
	err := st.finish(mkerr(rc, C.dval_session_errmsg(s.s)))
	if e, ok := err.(*Error); ok && e.Status == StatusCanceled && ctx != nil && ctx.Err() != nil {
		e.cause = ctx.Err()
	}
	if err != nil {
		return -1, err
	}
	return int(code), nil
}

// Cancel stops a running Exec from any goroutine.
func (s *Session) Cancel() error { return mkerr(C.dval_session_cancel(s.s), nil) }

// Close deletes the remote session and frees the handle. Idempotent.
func (s *Session) Close() error {
	if s.s == nil {
		return nil
	}
	err := mkerr(C.dval_session_close(s.s), C.dval_session_errmsg(s.s))
	C.dval_session_free(s.s)
	s.s = nil
	return err
}

