package dval

/*
#include <stdlib.h>
#include <dval.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"runtime/cgo"
	"time"
	"unsafe"
)

// SandboxOptions selects and configures the sandbox to acquire.
type SandboxOptions struct {
	Name     string // required
	Snapshot string
	Image    string   // used only without Snapshot
	Labels   []string // "key=value"
	Env      []string // "KEY=value"
	Network  Network
	// Release is applied by Sandbox.Close and Sandbox.Release. The default,
	// ReleaseKeep, leaves the sandbox running after your program ends.
	Release       Release
	CreateTimeout time.Duration
	StartTimeout  time.Duration
	// OnState receives state transitions, during AcquireSandbox and later
	// Start/Stop calls (on the calling goroutine).
	OnState func(name string, state SandboxState)
}

// Sandbox is a started sandbox. Use it from one goroutine at a time; its
// sessions may run in different goroutines concurrently.
type Sandbox struct {
	sb     *C.dval_sandbox
	stateH cgo.Handle
}

// AcquireSandbox gets or creates the sandbox and brings it to started,
// recovering whatever state it was left in. ctx is checked before the call;
// the call itself runs to its own timeouts (CreateTimeout, StartTimeout).
func (c *Client) AcquireSandbox(ctx context.Context, o SandboxOptions) (*Sandbox, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	var so C.dval_sandbox_options
	C.dval_sandbox_options_init(&so, C.size_t(unsafe.Sizeof(so)))
	var cs cstrings
	defer cs.free()
	so.name = cs.str(o.Name)
	so.snapshot = cs.str(o.Snapshot)
	so.image = cs.str(o.Image)
	so.labels = cs.array(o.Labels)
	so.env = cs.array(o.Env)
	so.network = C.int32_t(o.Network)
	so.release = C.int32_t(o.Release)
	so.create_timeout_ms = ms(o.CreateTimeout)
	so.start_timeout_ms = ms(o.StartTimeout)
	sb := &Sandbox{}
	if o.OnState != nil {
		// on_state may fire again in Start/Stop: the handle lives with the sandbox.
		sb.stateH = cgo.NewHandle(&callState{state: o.OnState})
	}
	var out *C.dval_sandbox
	rc := cSandboxAcquire(&out, c.c, &so, uintptr(sb.stateH))
	if err := mkerr(rc, c.errmsg()); err != nil {
		if sb.stateH != 0 {
			sb.stateH.Delete()
		}
		return nil, err
	}
	sb.sb = out
	return sb, nil
}

func (s *Sandbox) errmsg() *C.char { return C.dval_sandbox_errmsg(s.sb) }

func (s *Sandbox) do(ctx context.Context, f func() C.int) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return mkerr(f(), s.errmsg())
}

// ID is the sandbox id.
func (s *Sandbox) ID() string { return C.GoString(C.dval_sandbox_id(s.sb)) }

// Name is the sandbox name.
func (s *Sandbox) Name() string { return C.GoString(C.dval_sandbox_name(s.sb)) }

// State is the state when last read (see Refresh).
func (s *Sandbox) State() SandboxState { return SandboxState(C.dval_sandbox_state(s.sb)) }

// Refresh re-reads the state.
func (s *Sandbox) Refresh(ctx context.Context) error {
	return s.do(ctx, func() C.int { return C.dval_sandbox_refresh(s.sb) })
}

// Start starts a stopped sandbox.
func (s *Sandbox) Start(ctx context.Context) error {
	return s.do(ctx, func() C.int { return C.dval_sandbox_start(s.sb) })
}

// Stop stops the sandbox.
func (s *Sandbox) Stop(ctx context.Context) error {
	return s.do(ctx, func() C.int { return C.dval_sandbox_stop(s.sb) })
}

// Delete deletes the sandbox.
func (s *Sandbox) Delete(ctx context.Context) error {
	return s.do(ctx, func() C.int { return C.dval_sandbox_delete(s.sb) })
}

// Release applies the release policy of SandboxOptions.Release (keep:
// nothing happens, the sandbox stays up; stop; delete).
func (s *Sandbox) Release(ctx context.Context) error {
	return s.do(ctx, func() C.int { return C.dval_sandbox_release(s.sb) })
}

// Upload writes data to path in the sandbox.
func (s *Sandbox) Upload(ctx context.Context, path string, data []byte) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var buf unsafe.Pointer
	if len(data) > 0 {
		buf = C.CBytes(data)
		defer C.free(buf)
	}
	return s.do(ctx, func() C.int { return C.dval_sandbox_upload(s.sb, cp, buf, C.size_t(len(data))) })
}

// UploadJSON uploads v as JSON.
func (s *Sandbox) UploadJSON(ctx context.Context, path string, v interface{}) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.Upload(ctx, path, b)
}

// Download reads a whole file.
func (s *Sandbox) Download(ctx context.Context, path string) ([]byte, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var data *C.char
	var n C.size_t
	if err := s.do(ctx, func() C.int { return C.dval_sandbox_download(s.sb, cp, &data, &n) }); err != nil {
		return nil, err
	}
	defer C.dval_free(unsafe.Pointer(data))
	return C.GoBytes(unsafe.Pointer(data), C.int(n)), nil
}

// DownloadJSON fetches a file checked as UTF-8 JSON into v.
func (s *Sandbox) DownloadJSON(ctx context.Context, path string, v interface{}) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var doc *C.char
	if err := s.do(ctx, func() C.int { return C.dval_sandbox_download_json(s.sb, cp, &doc) }); err != nil {
		return err
	}
	defer C.dval_free(unsafe.Pointer(doc))
	return json.Unmarshal([]byte(C.GoString(doc)), v)
}

// DownloadTo streams a file to sink in chunks; ctx is checked per chunk.
func (s *Sandbox) DownloadTo(ctx context.Context, path string, sink func([]byte) error) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	st := &callState{data: func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return sink(b)
	}}
	h := cgo.NewHandle(st)
	defer h.Delete()
	return withCause(ctx, st.finish(mkerr(cDownloadTo(s.sb, cp, uintptr(h)), s.errmsg())))
}

// Close applies the release policy chosen in SandboxOptions.Release and
// frees the handle. With ReleaseKeep (the default) the sandbox keeps
// running after Close and after your program ends. Idempotent.
func (s *Sandbox) Close() error {
	var err error
	if s.sb != nil {
		err = mkerr(C.dval_sandbox_release(s.sb), s.errmsg())
		C.dval_sandbox_free(s.sb)
		s.sb = nil
	}
	if s.stateH != 0 {
		s.stateH.Delete()
		s.stateH = 0
	}
	return err
}
