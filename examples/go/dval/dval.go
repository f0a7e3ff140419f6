// Package dval is the Go binding of libdaytona-validate: it runs untrusted,
// machine-generated programs in sandboxes (Daytona, or the embedded local
// executor) and brings their results back.
//
// The package builds against an installed library through pkg-config alone
// (`make install`, then `go build`); with the library installed under a
// DESTDIR or prefix, point PKG_CONFIG_PATH (and PKG_CONFIG_SYSROOT_DIR) at
// it. Standard library only.
//
// The one-call form is Validate; the lifecycle API is Client →
// EnsureSnapshot → AcquireSandbox → OpenSession → Exec. Every call that may
// block takes a context.Context first. Exec and Validate stop as soon as
// their context is done; the other calls check the context before they
// start and, where the library calls back (build logs), at each callback.
//
// Sandboxes outlive the program: the release policy is ReleaseKeep by
// default, so after Sandbox.Close or Validate the sandbox (on the local
// executor, its init process) keeps running for the next run. Choose
// ReleaseStop or ReleaseDelete in SandboxOptions.Release or
// Validation.Release.
//
// Many validations at once: NewPool shares sandboxes of one profile
// between goroutines (Pool.Validate); Pool.Close applies
// PoolOptions.Release to them (ReleaseKeep by default: they keep running).
// Validation.Isolation "sandbox" gives one validation a sandbox of its own.
//
// Errors are *Error values: errors.Is(err, dval.ErrNotFound) matches by
// status, and an error caused by a context unwraps to ctx.Err().
package dval

/*
#cgo pkg-config: daytona-validate
#include <stdlib.h>
#include <dval.h>
*/
import "C"

import (
	"context"
	"time"
	"unsafe"
)

// Status is a dval_status code: 0 or a negative failure.
type Status int

// Status codes (fixed values of enum dval_status).
const (
	StatusOK          Status = 0
	StatusError       Status = -1
	StatusNoMem       Status = -2
	StatusInvalid     Status = -3
	StatusABI         Status = -4
	StatusNotFound    Status = -5
	StatusExists      Status = -6
	StatusAuth        Status = -7
	StatusForbidden   Status = -8
	StatusTimeout     Status = -9
	StatusNetwork     Status = -10
	StatusProtocol    Status = -11
	StatusServer      Status = -12
	StatusRateLimit   Status = -13
	StatusConflict    Status = -14
	StatusState       Status = -15
	StatusAborted     Status = -16
	StatusCanceled    Status = -17
	StatusReentrant   Status = -18
	StatusExec        Status = -19
	StatusPassthrough Status = -20
	StatusUnsupported Status = -21
	StatusIsolation   Status = -22
	StatusBuild       Status = -23
	StatusTooBig      Status = -24
	StatusIO          Status = -25
	StatusResults     Status = -26
	StatusBadRequest  Status = -27
	StatusBusy        Status = -28
)

// String is the C symbol, e.g. "DVAL_ETIMEOUT" ("DVAL_UNKNOWN" for codes
// the loaded library does not know).
func (s Status) String() string { return C.GoString(C.dval_status_name(C.int(s))) }

// Text is the status's English description.
func (s Status) Text() string { return C.GoString(C.dval_strerror(C.int(s))) }

// SandboxState is a sandbox state (every Daytona SandboxState plus unknown).
type SandboxState int

// Sandbox states (enum dval_sandbox_state).
const (
	SandboxUnknown          SandboxState = 0
	SandboxCreating         SandboxState = 1
	SandboxRestoring        SandboxState = 2
	SandboxDestroyed        SandboxState = 3
	SandboxDestroying       SandboxState = 4
	SandboxStarted          SandboxState = 5
	SandboxStopped          SandboxState = 6
	SandboxStarting         SandboxState = 7
	SandboxStopping         SandboxState = 8
	SandboxError            SandboxState = 9
	SandboxBuildFailed      SandboxState = 10
	SandboxPendingBuild     SandboxState = 11
	SandboxBuildingSnapshot SandboxState = 12
	SandboxPullingSnapshot  SandboxState = 13
	SandboxArchived         SandboxState = 14
	SandboxArchiving        SandboxState = 15
	SandboxResizing         SandboxState = 16
	SandboxSnapshotting     SandboxState = 17
	SandboxForking          SandboxState = 18
	SandboxPaused           SandboxState = 19
	SandboxPausing          SandboxState = 20
	SandboxResuming         SandboxState = 21
)

// String is the wire name, e.g. "started".
func (s SandboxState) String() string { return C.GoString(C.dval_sandbox_state_name(C.int(s))) }

// SnapshotState is a snapshot state.
type SnapshotState int

// Snapshot states (enum dval_snapshot_state).
const (
	SnapshotUnknown     SnapshotState = 0
	SnapshotPending     SnapshotState = 1
	SnapshotBuilding    SnapshotState = 2
	SnapshotPulling     SnapshotState = 3
	SnapshotActive      SnapshotState = 4
	SnapshotError       SnapshotState = 5
	SnapshotBuildFailed SnapshotState = 6
	SnapshotInactive    SnapshotState = 7
	SnapshotRemoving    SnapshotState = 8
)

// String is the wire name, e.g. "active".
func (s SnapshotState) String() string { return C.GoString(C.dval_snapshot_state_name(C.int(s))) }

// Stream tells stdout from stderr in program output.
type Stream int

// Output streams.
const (
	Stdout Stream = 1
	Stderr Stream = 2
)

// Release is what happens to a sandbox when it is released.
type Release int

// Release policies. ReleaseKeep (the default) leaves the sandbox running
// after the program ends, so the next run starts fast.
const (
	ReleaseKeep   Release = 0
	ReleaseStop   Release = 1
	ReleaseDelete Release = 2
)

// Network is a sandbox's network policy.
type Network int

// Network policies (daytona default: allowed; local default: blocked).
const (
	NetworkDefault Network = 0
	NetworkBlock   Network = 1
	NetworkAllow   Network = 2
)

// Error is a failed call: the status, its symbolic name and the message of
// the handle the call was made on.
type Error struct {
	Status  Status
	Name    string
	Message string
	cause   error // the context's error when a context stopped the call
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// Is matches another *Error by status, so errors.Is(err, dval.ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Unwrap gives the context's error when a context stopped the call.
func (e *Error) Unwrap() error { return e.cause }

func statusErr(s Status) *Error { return &Error{Status: s, Name: s.String()} }

// Sentinel errors for errors.Is.
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
	ErrExec        = statusErr(StatusExec)
	ErrBusy        = statusErr(StatusBusy) // a pool's queue is full
)

func mkerr(rc C.int, msg *C.char) error {
	if rc >= 0 {
		return nil
	}
	e := statusErr(Status(rc))
	if msg != nil {
		e.Message = C.GoString(msg)
	}
	if e.Message == "" {
		e.Message = Status(rc).Text()
	}
	return e
}

// ctxErr is the error for a context that is already done, as an *Error
// (StatusCanceled) that unwraps to ctx.Err().
func ctxErr(ctx context.Context) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	return &Error{Status: StatusCanceled, Name: StatusCanceled.String(),
		Message: "context done before the call: " + ctx.Err().Error(), cause: ctx.Err()}
}

// withCause marks err as caused by ctx when ctx is done.
func withCause(ctx context.Context, err error) error {
	if e, ok := err.(*Error); ok && ctx != nil && ctx.Err() != nil && e.cause == nil {
		e.cause = ctx.Err()
	}
	return err
}

// Version is the run-time library version, e.g. "1.0.0".
func Version() string { return C.GoString(C.dval_version()) }

// ProfileNames lists the built-in and registered validation profiles.
func ProfileNames() []string {
	var names **C.char
	if C.dval_profile_names((***C.char)(unsafe.Pointer(&names))) != 0 {
		return nil
	}
	return goStrings(names)
}

// ServiceNames lists the services a validation may ask for
// (Validation.Services): "postgres", "sqlite".
func ServiceNames() []string {
	var names **C.char
	if C.dval_service_names((***C.char)(unsafe.Pointer(&names))) != 0 {
		return nil
	}
	return goStrings(names)
}

// LoadProfile loads a profile file (JSON: name, image, run_command,
// build steps, files, services, ...; see dval_profile_load(3)) and
// registers it for this process. It returns the profile's name, for
// Validation.Profile; an *Error names the file and the mistake.
func LoadProfile(path string) (string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var name *C.char
	errbuf := (*C.char)(C.calloc(1, 1024))
	defer C.free(unsafe.Pointer(errbuf))
	rc := C.dval_profile_load(cpath, &name, errbuf, 1024)
	if rc != 0 {
		return "", mkerr(rc, errbuf)
	}
	return C.GoString(name), nil
}

// goStrings copies a NULL-terminated C string array.
func goStrings(names **C.char) []string {
	if names == nil {
		return nil
	}
	var out []string
	for p := names; *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		out = append(out, C.GoString(*p))
	}
	return out
}

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

// data is s in C memory, every byte (NULs too), even when s is "" (str
// gives NULL then).
func (cs *cstrings) data(s string) *C.char {
	p := C.CString(s)
	*cs = append(*cs, unsafe.Pointer(p))
	return p
}

// words is array with "" kept as a word (array's str would end the
// array there); nil for none.
func (cs *cstrings) words(items []string) **C.char { return cs.arrayOf(items, cs.data) }

// alloc is size zeroed bytes of C memory, freed with the strings.
func (cs *cstrings) alloc(size uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(size))
	*cs = append(*cs, p)
	return p
}

// array makes a NULL-terminated char *[] in C memory.
func (cs *cstrings) array(items []string) **C.char { return cs.arrayOf(items, cs.str) }

func (cs *cstrings) arrayOf(items []string, conv func(string) *C.char) **C.char {
	if len(items) == 0 {
		return nil
	}
	size := C.size_t(len(items)+1) * C.size_t(unsafe.Sizeof((*C.char)(nil)))
	arr := C.calloc(1, size)
	*cs = append(*cs, arr)
	slots := unsafe.Slice((**C.char)(arr), len(items)+1)
	for i, s := range items {
		slots[i] = conv(s)
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
