package dval

// C shims: userdata is a cgo.Handle value carried as an integer; the casts
// live here so Go never converts an integer into a pointer.

/*
#include <stdint.h>
#include <dval.h>

extern int dvalGoOutput(int, char *, char *, size_t, void *);
extern int dvalGoData(char *, size_t, void *);
extern void dvalGoState(char *, int, void *);
extern int dvalGoList(char *, char *, int, void *);
extern int dvalGoEvent(dval_event *, void *);

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
static int go_validate(dval_client *c, const dval_validation *req, uintptr_t h, char **out) {
	return dval_validate(c, req, (dval_event_fn)dvalGoEvent, (void *)h, out);
}
static int go_pool_validate(dval_pool *p, const dval_validation *req, uintptr_t h, char **out) {
	return dval_pool_validate(p, req, (dval_event_fn)dvalGoEvent, (void *)h, out);
}
*/
import "C"

func cSnapshotEnsure(out **C.dval_snapshot, c *C.dval_client, spec *C.dval_snapshot_spec, h uintptr) C.int {
	return C.go_snapshot_ensure(out, c, spec, C.uintptr_t(h))
}

func cSandboxAcquire(out **C.dval_sandbox, c *C.dval_client, o *C.dval_sandbox_options, h uintptr) C.int {
	return C.go_sandbox_acquire(out, c, o, C.uintptr_t(h))
}

func cExec(s *C.dval_session, cmd *C.char, o *C.dval_exec_options, h uintptr, code *C.int) C.int {
	return C.go_exec(s, cmd, o, C.uintptr_t(h), code)
}

func cDownloadTo(sb *C.dval_sandbox, path *C.char, h uintptr) C.int {
	return C.go_download_to(sb, path, C.uintptr_t(h))
}

func cList(c *C.dval_client, labels **C.char, h uintptr) C.int {
	return C.go_list(c, labels, C.uintptr_t(h))
}

func cValidate(c *C.dval_client, req *C.dval_validation, h uintptr, out **C.char) C.int {
	return C.go_validate(c, req, C.uintptr_t(h), out)
}

func cPoolValidate(p *C.dval_pool, req *C.dval_validation, h uintptr, out **C.char) C.int {
	return C.go_pool_validate(p, req, C.uintptr_t(h), out)
}
