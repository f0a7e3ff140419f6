/* Internal declarations shared by the core and the built-in executors.
 * Not installed. Internal non-static functions are named dval__*. */
#ifndef DVAL_INTERNAL_H
#define DVAL_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "dval.h"

/* ---- allocation: every allocation goes through these (failure injection) */
void *dval__malloc(size_t n);
void *dval__calloc(size_t n, size_t size);
void *dval__realloc(void *p, size_t n);
void dval__free(void *p);
char *dval__strdup(const char *s);
char *dval__strndup(const char *s, size_t n);
/* Test hook: fail the Nth allocation from now (0 = off). Returns count of
 * allocations made since the last arm. */
void dval__alloc_fail_at(long n);
long dval__alloc_count(void);

/* ---- growable byte buffer */
typedef struct dval__buf {
    char *data;    /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
} dval__buf;
int dval__buf_append(dval__buf *b, const void *data, size_t len);
/* room for len more bytes in one allocation (a size known in advance) */
int dval__buf_reserve(dval__buf *b, size_t len);
int dval__buf_appendf(dval__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void dval__buf_free(dval__buf *b);

/* ---- formatting: bounded, always NUL-terminated, truncates safely */
void dval__fmt(char *dst, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dval__vfmt(char *dst, size_t cap, const char *fmt, va_list ap);
/* Copies s into dst (cap bytes), truncating at a UTF-8 boundary. */
void dval__strlcpy(char *dst, const char *s, size_t cap);

/* Fills c->errmsg and returns status (for `return dval__call_fail(...)`). */
int dval__call_fail(dval_call *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- time: monotonic milliseconds */
int64_t dval__now_ms(void);
/* Returns DVAL_ECANCELED if cancel_fd becomes readable within ms, else 0.
 * The core's waits go through this so tests can install a fake clock. */
int dval__sleep_ms(int64_t ms, int cancel_fd);
/* Test hooks: fake clock. When installed, now() and sleep() use them. */
typedef int64_t (*dval__now_fn)(void);
typedef int (*dval__sleep_fn)(int64_t ms, int cancel_fd);
void dval__set_clock(dval__now_fn now, dval__sleep_fn sleep);

/* ---- backoff (retry.c): the delay before retry number attempt (1-based)
 * of a policy: base * factor^(attempt-1), capped; full jitter when set
 * (rng: the caller's seed, guarded by the caller); a server hint
 * (retry_after_ms >= 0) takes precedence, up to a day (an executor turning
 * a server's seconds into ms stops there too, so no number wraps). The
 * client's retry policy, which executors that repeat requests of their
 * own follow too (dval__config). */
#define DVAL__RETRY_AFTER_MAX_MS (86400LL * 1000)
typedef struct dval__backoff {
    int32_t attempts;              /* tries in all, >= 1 */
    int64_t base_ms;
    int32_t factor;
    int64_t cap_ms;
    int32_t jitter;
} dval__backoff;
int64_t dval__backoff_delay(const dval__backoff *b, int attempt,
                            int64_t retry_after_ms, unsigned *rng);
/* The policy's defaults for the fields left 0 (5 tries, 1 s, x2, 60 s). */
void dval__backoff_defaults(dval__backoff *b);

/* ---- cancel tokens (cancel.c) */
/* Registers what dval_cancel_fire calls, on the firing thread (NULL:
 * nothing), e.g. a session's cancel; after it returns, fire no longer
 * calls the old hook. Called at once when t has already fired. */
typedef void (*dval__cancel_hook)(void *arg);
void dval__cancel_attach(dval_cancel *t, dval__cancel_hook hook, void *arg);
/* The descriptor that becomes readable when t fires (-1 for NULL): what
 * a wait or an executor call of t's validation is given explicitly. */
int dval__cancel_fd(const dval_cancel *t);
/* 1 when fd (>= 0) is readable now: a token's descriptor has fired. */
int dval__fd_readable(int fd);

/* ---- validation of names and paths (policy shared by all executors) */
/* Sandbox/snapshot/session names: 1..255 bytes, no '/', no "..", no
 * control characters, valid UTF-8. Snapshot names may contain '/' and ':'
 * (allow_slash). Returns DVAL_OK or DVAL_EINVAL with msg filled. */
int dval__check_name(const char *what, const char *name, int allow_slash,
                     char *msg, size_t cap);
/* Remote paths: non-empty, < 4096 bytes, no ".." component, no control
 * characters (including NUL inside the length), valid UTF-8. */
int dval__check_remote_path(const char *path, char *msg, size_t cap);
/* Thread ids and other single path components: [A-Za-z0-9._-]{1,128},
 * not "." or "..". */
int dval__check_component(const char *what, const char *s, char *msg,
                          size_t cap);
/* 1 when [p, p+n) is valid UTF-8. */
int dval__utf8_valid(const char *p, size_t n);
/* Length of the longest prefix of [p, p+n) that does not end inside an
 * incomplete (but so far valid) UTF-8 sequence. */
size_t dval__utf8_complete_prefix(const char *p, size_t n);

/* ---- shell quoting: single quotes, ' → '\'' */
int dval__shell_quote(dval__buf *out, const char *s);

/* ---- the client's own settings: what the core applies (the sandbox
 * defaults of dval_local_options, which reach any executor's sandboxes)
 * and what the built-in executors follow too (logging, retry policy,
 * download cap). Each executor is configured only by its own options
 * struct, handed to its constructor. */
typedef struct dval__config {
    int32_t local_max_pids;        /* sandbox defaults (0 → executor's) */
    int64_t local_max_memory_bytes;
    int64_t local_max_cpu_ms;
    int64_t max_download_bytes;
    dval__backoff retry;           /* the client's retry policy */
    dval_log_fn log_fn;
    void *log_userdata;
    int log_level;
} dval__config;

/* Built-in executor constructors: fill *out (struct_size, name, userdata,
 * destroy and members) from the executor's own options (a validated copy,
 * its strings borrowed for the call) and the client's settings. On
 * failure return a status and write a message to err. */
int dval__daytona_executor(struct dval_executor *out, const dval__config *cfg,
                           const dval_daytona_options *opts, char *err,
                           size_t errlen);
int dval__local_executor(struct dval_executor *out, const dval__config *cfg,
                         const dval_local_options *opts, char *err,
                         size_t errlen);
/* 1 when the daytona executor has credentials (options or environment):
 * then it is the default executor. */
int dval__daytona_configured(const dval_daytona_options *opts);
/* Process-wide set-up of the daytona executor's transport (libcurl),
 * called under dval_global_init's lock; 0 or DVAL_ERROR. */
int dval__daytona_global_init(void);
void dval__daytona_global_cleanup(void);

/* Logging helper for executors and the core (no-op when fn is NULL or the
 * level is above max_level). */
void dval__log(dval_log_fn fn, void *ud, int max_level, int level,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same with a va_list, and scrub (may be NULL) applied to the
 * formatted text before fn sees it. */
void dval__vlog(dval_log_fn fn, void *ud, int max_level, int level,
                void (*scrub)(void *scrub_ud, char *msg), void *scrub_ud,
                const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

/* Options helper: validates a size-prefixed struct coming from the caller.
 * known = sizeof the struct this library knows. Accepts smaller sizes that
 * cover at least min bytes, and larger ones whose unknown tail is zero.
 * Copies min(size, known) bytes into dst and zeroes the rest. */
int dval__opts_copy(void *dst, size_t known, const void *src, size_t min);
/* The body of every public *_init(o, size): zeroes size bytes and sets
 * struct_size to min(size, known). */
int dval__opts_init(void *o, size_t size, size_t known);

/* names.c: "<sandbox name>-<uuid4>" into out; a service's session is
 * DVAL__SERVICE_SESSION "<sandbox name>-<uuid4>", so that it never starts
 * with dval__session_prefix ("<sandbox name>-", "-" being no character of
 * DVAL__SERVICE_SESSION): the sessions of validations are told apart from
 * services' by their ids alone (dval__sandbox_used_elsewhere). */
#define DVAL__SERVICE_SESSION "service."
void dval__session_name(char *out, size_t cap, const char *sandbox_name);
void dval__service_session_name(char *out, size_t cap,
                                const char *sandbox_name);
void dval__session_prefix(char *out, size_t cap, const char *sandbox_name);
/* names.c: a random (version 4) uuid, lower-case text */
void dval__uuid4(char out[37]);

#endif
