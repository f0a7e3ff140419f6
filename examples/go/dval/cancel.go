package dval

// A done context cancels Validate through the library's cancel token
// (dval_cancel_new/_fire/_free, dval_validation.cancel): promptly, in any
// phase, with the session closed.

/*
#include <dval.h>
*/
import "C"

import "context"

// armCancel gives v a token fired when ctx is done; the returned function
// stops the watcher and frees the token (call it after the C call: the
// token must outlive the validation).
func armCancel(ctx context.Context, v *C.dval_validation) func() {
	if ctx.Done() == nil {
		return func() {}
	}
	var t *C.dval_cancel
	if C.dval_cancel_new(&t) != 0 {
		return func() {}
	}
	v.cancel = t
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			C.dval_cancel_fire(t)
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-watched
		C.dval_cancel_free(t)
	}
}
