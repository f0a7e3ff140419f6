/* Support for the local executor tests: drive the vtable directly. */
#ifndef DVAL_LT_H
#define DVAL_LT_H

#include "harness.h"
#include "sbstate.h"
#include "internal.h"

typedef struct lt {
    struct dval_executor ex;
    dval__config cfg;
    dval_local_options lo;      /* the executor's own options */
    char dir[512];
    int shared;                 /* lt_open_shared: snapshots outlive it */
    dval_call call;
} lt;

typedef struct lt_out {
    dval__buf out, err;
    int64_t first_out_ms;       /* dval__now_ms() of the first stdout chunk */
    int64_t exit_ms;            /* when the command was seen finished */
} lt_out;

/* Fresh state dir /tmp/dval-local-tests/<name> (old inits killed); skips
 * the test when isolation is unavailable. */
/* The tests' root: $DVAL_LOCAL_TEST_ROOT or /tmp/dval-local-tests. */
const char *lt_base(void);
void lt_open(lt *t, const char *name);
/* The same, but the snapshots in <name> outlive the test for the next
 * tests of the same suite run (the test's parent process): a suite whose
 * tests each need one costly snapshot (dotnet) builds it once. The
 * sandboxes are the test's own; another suite run starts afresh. */
void lt_open_shared(lt *t, const char *name);
void lt_close(lt *t);
dval_call *lt_call(lt *t);
/* A public-API client (executor "local") on the fixture's state
 * directory; fails the test on error. */
dval_client *lt_client(lt *t);
/* Creates a started sandbox (opts may be NULL). */
void lt_sandbox(lt *t, const char *name, dval_sandbox_options *opts);
/* command_start of shell text in session sid (no cwd, no owner). */
int lt_start(lt *t, dval_call *c, const char *sb, const char *sid,
             const char *text, char *cmd);
/* Runs command in a new session; returns the exit code. */
int lt_run(lt *t, const char *sb, const char *command, lt_out *o);
/* The same in directory cwd, as the core runs a validation's commands:
 * under /sandbox/<dir>, owned by that validation (dval_command.owner
 * <dir>, so its uid); elsewhere nobody's in particular. */
int lt_run_in(lt *t, const char *sb, const char *cwd, const char *command,
              lt_out *o);
/* The same with the owner given (NULL: the sandbox's default user),
 * whatever cwd is. */
int lt_run_as(lt *t, const char *sb, const char *owner, const char *cwd,
              const char *command, lt_out *o);
/* The same without a shell: argv with env added, owned as lt_run_in. */
int lt_run_argv(lt *t, const char *sb, const char *cwd,
                const char *const *argv, const char *const *env, lt_out *o);
void lt_out_free(lt_out *o);
/* Writes data to path inside the sandbox; returns the status. */
int lt_upload(lt *t, const char *sb, const char *path, const char *data);
/* Uploads the local file at local to path inside the sandbox. */
int lt_upload_file(lt *t, const char *sb, const char *path,
                   const char *local);
/* Reads path from the sandbox into *out (NUL-terminated). */
int lt_download(lt *t, const char *sb, const char *path, dval__buf *out);
int lt_state(lt *t, const char *sb);
/* Value of key in the sandbox's state file (static buffer). */
const char *lt_state_key(lt *t, const char *sb, const char *key);
void lt_set_state_key(lt *t, const char *sb, const char *key,
                      const char *val);

/* Creates snapshot name from image (NULL → the default) and steps (may be
 * NULL); returns the status, fills *info when non-NULL. */
int lt_snapshot(lt *t, const char *name, const char *image,
                const char *const *steps, dval_snapshot_info *info);
/* A tiny root filesystem at dir: the host's sh, cat, ls, id and their
 * libraries (enough to run commands in a sandbox over it). */
void lt_mini_root(const char *dir);
/* Runs a shell command on the host; fails the test when it fails. */
void lt_sh(const char *cmd);
/* t->dir/src-NAME holding run.sh with script (a shell program's
 * folder); the path stays valid for 7 more calls. */
const char *lt_shell_dir(lt *t, const char *name, const char *script);
/* dval_validate on a client of the test's state, which must succeed
 * (its message printed otherwise); the summary, parsed (json_decref it). */
struct json_t *lt_validate(lt *t, const dval_validation *req);

#endif
