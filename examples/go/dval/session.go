package dval

/*
#include <dval.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"time"
	"unsafe"
)

// Session runs commands one after the other; use it from one goroutine at
// a time, except Cancel.
type Session struct {
	s *C.dval_session
}

// OpenSession opens a session named "<sandbox name>-<uuid4>".
func (s *Sandbox) OpenSession(ctx context.Context) (*Session, error) {
	var out *C.dval_session
	if err := s.do(ctx, func() C.int { return C.dval_session_open(&out, s.sb) }); err != nil {
		return nil, err
	}
	return &Session{s: out}, nil
}

// ID is the session id.
func (s *Session) ID() string { return C.GoString(C.dval_session_id(s.s)) }

// ExecOptions for one command; zero values are defaults.
type ExecOptions struct {
	Cwd           string
	ChannelPrefix string
	Timeout       time.Duration
	// Env adds "NAME=value" variables to this command's environment, as
	// data: no shell expands the values.
	Env []string
}

// OutputFunc receives live program output; an error stops the command.
type OutputFunc func(stream Stream, channel string, data []byte) error

// Exec runs command and returns its exit code, streaming output to
// onOutput (may be nil; see WriteTo for io.Writer targets). Canceling ctx
// stops the command at once (dval_session_cancel from another goroutine):
// the error then has status StatusCanceled and unwraps to ctx.Err().
func (s *Session) Exec(ctx context.Context, command string, o ExecOptions, onOutput OutputFunc) (int, error) {
	if err := ctxErr(ctx); err != nil {
		return -1, err
	}
	var eo C.dval_exec_options
	C.dval_exec_options_init(&eo, C.size_t(unsafe.Sizeof(eo)))
	var cs cstrings
	defer cs.free()
	eo.cwd = cs.str(o.Cwd)
	eo.channel_prefix = cs.str(o.ChannelPrefix)
	eo.timeout_ms = ms(o.Timeout)
	eo.env = cs.array(o.Env)
	ccmd := cs.str(command)
	st := &callState{output: onOutput}
	var h cgo.Handle
	if onOutput != nil {
		h = cgo.NewHandle(st)
		defer h.Delete()
	}
	done := make(chan struct{})
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		select {
		case <-ctx.Done():
			C.dval_session_cancel(s.s)
		case <-done:
		}
	}()
	var code C.int
	rc := cExec(s.s, ccmd, &eo, uintptr(h), &code)
	close(done)
	<-watcherDone
	if err := withCause(ctx, st.finish(mkerr(rc, C.dval_session_errmsg(s.s)))); err != nil {
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
