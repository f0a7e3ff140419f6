package dval

// Exported trampolines: C calls these with the cgo.Handle value (not its
// address) as userdata. This file's preamble holds declarations only, as
// cgo requires for files with //export.

/*
#include <dval.h>
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// callState is what a handle refers to during one C call: the Go callback,
// and the error or panic that stopped the call.
type callState struct {
	output func(stream Stream, channel string, data []byte) error
	data   func([]byte) error
	state  func(name string, state SandboxState)
	list   func(id, name string, state SandboxState) error
	event  func(ev *C.dval_event) error
	err    error
	panic  interface{}
}

func stateOf(ud unsafe.Pointer) *callState {
	return cgo.Handle(uintptr(ud)).Value().(*callState)
}

// guard runs f, turning an error or a panic into a stop (1).
func (cs *callState) guard(f func() error) (rc C.int) {
	if cs.err != nil || cs.panic != nil {
		return 1
	}
	defer func() {
		if p := recover(); p != nil {
			cs.panic = p
			rc = 1
		}
	}()
	if err := f(); err != nil {
		cs.err = err
		return 1
	}
	return 0
}

//export dvalGoOutput
func dvalGoOutput(stream C.int, channel *C.char, data *C.char, n C.size_t, ud unsafe.Pointer) C.int {
	cs := stateOf(ud)
	return cs.guard(func() error {
		return cs.output(Stream(stream), C.GoString(channel), C.GoBytes(unsafe.Pointer(data), C.int(n)))
	})
}

//export dvalGoData
func dvalGoData(data *C.char, n C.size_t, ud unsafe.Pointer) C.int {
	cs := stateOf(ud)
	return cs.guard(func() error { return cs.data(C.GoBytes(unsafe.Pointer(data), C.int(n))) })
}

//export dvalGoState
func dvalGoState(name *C.char, state C.int, ud unsafe.Pointer) {
	cs := stateOf(ud)
	cs.guard(func() error { cs.state(C.GoString(name), SandboxState(state)); return nil })
}

//export dvalGoList
func dvalGoList(id, name *C.char, state C.int, ud unsafe.Pointer) C.int {
	cs := stateOf(ud)
	return cs.guard(func() error { return cs.list(C.GoString(id), C.GoString(name), SandboxState(state)) })
}

//export dvalGoEvent
func dvalGoEvent(ev *C.dval_event, ud unsafe.Pointer) C.int {
	cs := stateOf(ud)
	return cs.guard(func() error { return cs.event(ev) })
}

// finish re-raises a callback panic, or returns the callback's error in
// place of DVAL_EABORTED.
func (cs *callState) finish(err error) error {
	if cs.panic != nil {
		panic(cs.panic)
	}
	if cs.err != nil {
		if e, ok := err.(*Error); ok && e.Status == StatusAborted {
			e.Message = fmt.Sprintf("%s (callback: %v)", e.Message, cs.err)
			e.cause = cs.err
		}
	}
	return err
}
