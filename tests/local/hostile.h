/* Support for the hostile-program tests: real validations through the
 * public API (dval_validate, profile "shell") on the local executor, in a
 * state directory of their own that is removed with every sandbox. */
#ifndef DVAL_HOSTILE_H
#define DVAL_HOSTILE_H

#include "dval.h"
#include "harness.h"
#include "sbstate.h"

typedef struct hx {
    char dir[512];              /* state directory */
    char src[600];              /* scratch for source directories */
    dval_client *client;
    int nsrc;
} hx;

/* Fresh state dir /tmp/dval-hostile-tests/<name>.<pid>; skips unless
 * root. */
void hx_open(hx *h, const char *name);
/* Deletes every sandbox of the state dir, frees the client, removes it. */
void hx_close(hx *h);
/* Runs script as run.sh in sandbox sbname on thread tid (NULL: random);
 * *json gets the summary (NULL ok; free with dval_free). */
int hx_validate(hx *h, const char *sbname, const char *tid,
                const char *script, char **json);
/* Like hx_validate, with a disk limit for a new sandbox (0: default). */
int hx_validate_disk(hx *h, const char *sbname, const char *tid,
                     const char *script, int disk_gib, char **json);
/* One isolation=sandbox validation through pool of script (files as for
 * hx_program), no results needed: its status; *out gets its stdout as
 * hx_on_stdout saw it (free), *json the summary (NULL ok; dval_free). */
int hx_pool_run(hx *h, dval_pool *pool, const char *script,
                const char *const *files, char **out, char **json);
/* The same with the caller's on_event and userdata. */
int hx_pool_run_ev(hx *h, dval_pool *pool, const char *script,
                   const char *const *files, dval_event_fn on_event,
                   void *ud, char **json);
/* One command in a new session of sb: its exit code; o gets its output
 * (stdout and stderr, cut at the buffer's size); fails the test when the
 * session or the exec fails. */
typedef struct hx_out {
    char text[8192];
    size_t len;
} hx_out;
int hx_sh(dval_sandbox *sb, const char *cmd, hx_out *o);
/* A dval_output_fn appending both streams to the hx_out userdata. */
int hx_sink(int stream, const char *channel, const char *data, size_t len,
            void *ud);
/* Runs script as run.sh (with copies of the local files, a NULL-ended
 * list or NULL, beside it) in sandbox sbname on thread tid, no results
 * needed: *out gets the program's stdout as the caller's on_event saw it
 * (NULL ok; free), *code its exit code (-1 when it did not run). */
int hx_run(hx *h, const char *sbname, const char *tid, const char *script,
           const char *const *files, char **out, int *code);
/* The same with run_command instead of the profile's (NULL: its own). */
int hx_run_command(hx *h, const char *sbname, const char *tid,
                   const char *script, const char *run_command,
                   const char *const *files, char **out, int *code);
/* A new source directory in the scratch dir holding script as run.sh (and
 * copies of the local files, a NULL-ended list or NULL): dir gets it. */
void hx_program(hx *h, const char *script, const char *const *files,
                char *dir, size_t cap);
/* The program's stdout as a caller's on_event sees it (output restarts
 * on DVAL_EVENT_RESTART): userdata is an hx_buf, data NUL-ended. */
typedef struct hx_buf {
    char *data;
    size_t len;
} hx_buf;
int hx_on_stdout(const dval_event *ev, void *ud);
/* Compiles tests/local/<src> static into the scratch dir as "attack";
 * out gets its path. */
void hx_compile(const hx *h, const char *src, char *out, size_t cap);
/* hx_compile of hostile_attack.c */
void hx_attack_bin(const hx *h, char *out, size_t cap);
/* Number of live init processes (dval-local-helper init) for sandbox dir
 * <state>/sandboxes/<name>. */
int hx_inits(const hx *h, const char *sbname);

/* path (absolute, inside the sandbox) as the host reaches it through the
 * sandbox's init: /proc/<init>/root<path>. */
void hx_inside(const hx *h, const char *sbname, const char *path, char *out,
               size_t cap);

#endif
