package dval

// The library's cancel token (dval_cancel_new/_fire/_free and the
// dval_validation.cancel field), used when the loaded library exports it.
// It is looked up at run time so this package builds and works with
// headers and libraries from before the token; the field sits right after
// allow_missing_results, pointer-aligned, as the library appends it.

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <dval.h>

typedef struct { dval_validation v; void *room[4]; } go_validation_buf;
typedef int (*go_cancel_new_fn)(void **);
typedef int (*go_cancel_fire_fn)(void *);
typedef void (*go_cancel_free_fn)(void *);

static size_t go_cancel_offset(void) {
	size_t o = offsetof(dval_validation, allow_missing_results) + sizeof(int32_t);
	return (o + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
}
static int go_cancel_available(void) { return dlsym(RTLD_DEFAULT, "dval_cancel_new") != NULL; }
static void *go_cancel_new(void) {
	go_cancel_new_fn f = (go_cancel_new_fn)dlsym(RTLD_DEFAULT, "dval_cancel_new");
	void *t = NULL;
	return f && f(&t) == 0 ? t : NULL;
}
static void go_cancel_fire(uintptr_t t) {
	go_cancel_fire_fn f = (go_cancel_fire_fn)dlsym(RTLD_DEFAULT, "dval_cancel_fire");
	if (f && t) f((void *)t);
}
static void go_cancel_free(uintptr_t t) {
	go_cancel_free_fn f = (go_cancel_free_fn)dlsym(RTLD_DEFAULT, "dval_cancel_free");
	if (f && t) f((void *)t);
}
static void go_set_cancel(go_validation_buf *b, uintptr_t t) {
	void *p = (void *)t;
	size_t o = go_cancel_offset();
	memcpy((char *)b + o, &p, sizeof p);
	if (b->v.struct_size < o + sizeof p) b->v.struct_size = o + sizeof p;
}
*/
import "C"

import "context"

// CancelSupported reports whether the loaded library has the cancel token:
// then a done context stops Validate at once, in any phase.
func CancelSupported() bool { return C.go_cancel_available() != 0 }

// validationBuf is a dval_validation with room for the appended token.
type validationBuf = C.go_validation_buf

// armCancel attaches a token fired when ctx is done; the returned function
// waits for the watcher and frees the token (call it after the C call).
func armCancel(ctx context.Context, b *validationBuf) func() {
	if ctx.Done() == nil || !CancelSupported() {
		return func() {}
	}
	t := uintptr(C.go_cancel_new())
	if t == 0 {
		return func() {}
	}
	C.go_set_cancel(b, C.uintptr_t(t))
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			C.go_cancel_fire(C.uintptr_t(t))
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-watched
		C.go_cancel_free(C.uintptr_t(t))
	}
}
