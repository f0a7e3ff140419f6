/*
 * dval.h - libdaytona-validate public API.
 *
 * Runs untrusted, machine-generated programs inside isolated sandboxes
 * (Daytona, or the embedded local executor) and brings the results back.
 *
 * Conventions (see dval(7)):
 *  - every fallible function returns int: DVAL_OK (0) or a negative DVAL_E*;
 *  - handles are opaque; output parameters come first and are NULL on error,
 *    except the results of a call on a handle that comes first itself
 *    (dval_sandbox_download, dval_sandbox_download_json, dval_session_exec,
 *    dval_validate: the handle, the inputs, then the outputs);
 *  - options are size-prefixed structs: call dval_X_init(&o, sizeof o), or
 *    zero them and set struct_size; all-zero fields mean "default";
 *  - strings are UTF-8, durations are int64_t milliseconds;
 *  - callbacks return int (non-zero stops the call with DVAL_EABORTED), take
 *    userdata last and run on the calling thread, inside the call;
 *  - memory the library returns to the caller is released with dval_free().
 *
 * This header includes nothing but <stddef.h> and <stdint.h>.
 */
#ifndef DVAL_H
#define DVAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DVAL_VERSION_MAJOR 1
#define DVAL_VERSION_MINOR 0
#define DVAL_VERSION_PATCH 0
/* 0xMMmmpp, comparable with >= */
#define DVAL_VERSION_NUM 0x010000
#define DVAL_VERSION_STRING "1.0.0"

#if defined(_WIN32)
#  if defined(DVAL_BUILDING)
#    define DVAL_API __declspec(dllexport)
#  else
#    define DVAL_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define DVAL_API __attribute__((visibility("default")))
#else
#  define DVAL_API
#endif

/* ---------------------------------------------------------------- status */

/* Fixed values: never renumbered, never reused. */
enum dval_status {
    DVAL_OK = 0,
    DVAL_ERROR = -1,        /* unspecified failure */
    DVAL_ENOMEM = -2,       /* out of memory */
    DVAL_EINVAL = -3,       /* invalid argument */
    DVAL_EABI = -4,         /* struct_size unknown or unknown non-zero tail */
    DVAL_ENOTFOUND = -5,    /* no such snapshot/sandbox/session/file */
    DVAL_EEXISTS = -6,      /* name already taken */
    DVAL_EAUTH = -7,        /* credentials missing or rejected (401) */
    DVAL_EFORBIDDEN = -8,   /* permission denied (403) */
    DVAL_ETIMEOUT = -9,     /* a deadline passed */
    DVAL_ENETWORK = -10,    /* connection failed or was reset */
    DVAL_EPROTOCOL = -11,   /* the server's reply could not be understood */
    DVAL_ESERVER = -12,     /* the server failed (5xx) */
    DVAL_ERATELIMIT = -13,  /* rate limited (429) after all retries */
    DVAL_ECONFLICT = -14,   /* state change in progress (409) */
    DVAL_ESTATE = -15,      /* object is in a state that forbids the call */
    DVAL_EABORTED = -16,    /* a callback returned non-zero */
    DVAL_ECANCELED = -17,   /* dval_session_cancel() was called */
    DVAL_EREENTRANT = -18,  /* called from inside a callback of the same tree */
    DVAL_EEXEC = -19,       /* the executor failed */
    DVAL_EPASSTHROUGH = -20,/* executor member: use the built-in behaviour */
    DVAL_EUNSUPPORTED = -21,/* not supported by this executor or build */
    DVAL_EISOLATION = -22,  /* isolation unavailable (local executor) */
    DVAL_EBUILD = -23,      /* snapshot build failed (error/build_failed) */
    DVAL_ETOOBIG = -24,     /* over a configured size limit */
    DVAL_EIO = -25,         /* local file I/O failed */
    DVAL_ERESULTS = -26,    /* results missing, not UTF-8 or not JSON */
    DVAL_EBADREQUEST = -27, /* the server rejected the request (400/422) */
    DVAL_EBUSY = -28,       /* the resource is in use by another run (e.g. a thread id) */
    DVAL_EGONE = -29,       /* the sandbox vanished while the program ran */
    DVAL_EQUOTA = -30       /* the organization's quota or the host's disk is exhausted (not transient) */
};

/* Static English text for a status; never NULL, thread-safe. */
DVAL_API const char *dval_strerror(int status);
/* Symbolic name ("DVAL_ETIMEOUT"); "DVAL_UNKNOWN" for unknown codes. */
DVAL_API const char *dval_status_name(int status);

/* ------------------------------------------------------ version and init */

/* Run-time version string, e.g. "1.0.0". */
DVAL_API const char *dval_version(void);
/* Run-time version number, DVAL_VERSION_NUM of the library. */
DVAL_API uint32_t dval_version_num(void);
/* Reference-counted process init (initialises libcurl once). Returns the
 * new count (>= 1) or a negative status. Thread-safe. Optional: the first
 * dval_client_new() calls it implicitly. */
DVAL_API int dval_global_init(void);
/* Drops one reference; returns the remaining count. */
DVAL_API int dval_global_cleanup(void);

/* Releases memory returned by the library (NULL is a no-op). */
DVAL_API void dval_free(void *ptr);

/* ----------------------------------------------------------------- states */

/* Sandbox states: every Daytona SandboxState, plus UNKNOWN (0). */
enum dval_sandbox_state {
    DVAL_SANDBOX_UNKNOWN = 0,
    DVAL_SANDBOX_CREATING = 1,
    DVAL_SANDBOX_RESTORING = 2,
    DVAL_SANDBOX_DESTROYED = 3,
    DVAL_SANDBOX_DESTROYING = 4,
    DVAL_SANDBOX_STARTED = 5,
    DVAL_SANDBOX_STOPPED = 6,
    DVAL_SANDBOX_STARTING = 7,
    DVAL_SANDBOX_STOPPING = 8,
    DVAL_SANDBOX_ERROR = 9,
    DVAL_SANDBOX_BUILD_FAILED = 10,
    DVAL_SANDBOX_PENDING_BUILD = 11,
    DVAL_SANDBOX_BUILDING_SNAPSHOT = 12,
    DVAL_SANDBOX_PULLING_SNAPSHOT = 13,
    DVAL_SANDBOX_ARCHIVED = 14,
    DVAL_SANDBOX_ARCHIVING = 15,
    DVAL_SANDBOX_RESIZING = 16,
    DVAL_SANDBOX_SNAPSHOTTING = 17,
    DVAL_SANDBOX_FORKING = 18,
    DVAL_SANDBOX_PAUSED = 19,
    DVAL_SANDBOX_PAUSING = 20,
    DVAL_SANDBOX_RESUMING = 21
};

/* Snapshot states: every Daytona SnapshotState, plus UNKNOWN (0). */
enum dval_snapshot_state {
    DVAL_SNAPSHOT_UNKNOWN = 0,
    DVAL_SNAPSHOT_PENDING = 1,
    DVAL_SNAPSHOT_BUILDING = 2,
    DVAL_SNAPSHOT_PULLING = 3,
    DVAL_SNAPSHOT_ACTIVE = 4,
    DVAL_SNAPSHOT_ERROR = 5,
    DVAL_SNAPSHOT_BUILD_FAILED = 6,
    DVAL_SNAPSHOT_INACTIVE = 7,
    DVAL_SNAPSHOT_REMOVING = 8,
    DVAL_SNAPSHOT_SNAPSHOTTING = 9   /* newer servers: transitional, wait */
};

/* Wire name ("started"); "unknown" for out-of-range values. */
DVAL_API const char *dval_sandbox_state_name(int state);
/* Wire name → state; DVAL_SANDBOX_UNKNOWN for NULL or unknown names. */
DVAL_API int dval_sandbox_state_parse(const char *name);
DVAL_API const char *dval_snapshot_state_name(int state);
DVAL_API int dval_snapshot_state_parse(const char *name);

/* ------------------------------------------------------------ callbacks */

enum dval_stream {
    DVAL_STDOUT = 1,
    DVAL_STDERR = 2
};

enum dval_log_level {
    DVAL_LOG_ERROR = 1,
    DVAL_LOG_WARN = 2,
    DVAL_LOG_INFO = 3,
    DVAL_LOG_DEBUG = 4
};

/* Diagnostics; msg is pre-formatted, NUL-terminated, valid during the call. */
typedef void (*dval_log_fn)(int level, const char *msg, void *userdata);

/* Live program output. data is not NUL-terminated, valid only during the
 * call, at most 64 KiB, and never ends inside a UTF-8 sequence (invalid
 * bytes are passed through). channel is e.g.
 * "JAVA_SANDBOX_COMMAND_EXECUTION_STDOUT". Non-zero return stops the call. */
typedef int (*dval_output_fn)(int stream, const char *channel,
                              const char *data, size_t len, void *userdata);

/* A chunk of bytes (build logs, downloads). Non-zero return stops. */
typedef int (*dval_data_fn)(const char *data, size_t len, void *userdata);

/* Pulls bytes for an upload: write up to cap bytes into buf, store the count
 * in *len (0 = end). Non-zero return stops. */
typedef int (*dval_read_fn)(char *buf, size_t cap, size_t *len,
                            void *userdata);

/* ------------------------------------------------------------------ client */

typedef struct dval_client dval_client;
typedef struct dval_snapshot dval_snapshot;
typedef struct dval_sandbox dval_sandbox;
typedef struct dval_session dval_session;
struct dval_executor;

/* Configuration of the built-in "daytona" executor
 * (dval_client_options.daytona). NULL strings and 0 numbers fall back to
 * the environment (DAYTONA_API_URL or DAYTONA_SERVER_URL, DAYTONA_API_KEY,
 * DAYTONA_JWT_TOKEN, DAYTONA_ORGANIZATION_ID, DAYTONA_TARGET), then to
 * the defaults. */
typedef struct dval_daytona_options {
    size_t struct_size;
    const char *api_url;         /* → https://app.daytona.io/api */
    const char *api_key;
    const char *jwt_token;       /* needs organization_id */
    const char *organization_id;
    const char *target;          /* region */
    const char *ca_bundle;       /* TLS CA bundle path (NULL = system) */
    int32_t insecure_skip_tls_verify;  /* 1 disables TLS verification */
    int64_t connect_timeout_ms;  /* 0 → 10000 */
    int64_t request_timeout_ms;  /* 0 → 120000 (above the server's 30 s) */
} dval_daytona_options;

DVAL_API int dval_daytona_options_init(dval_daytona_options *opts, size_t size);

/* Configuration of the built-in "local" executor
 * (dval_client_options.local). NULL/0 fall back to the defaults. */
typedef struct dval_local_options {
    size_t struct_size;
    /* NULL → $XDG_STATE_HOME/daytona-validate or
     * ~/.local/state/daytona-validate */
    const char *state_dir;
    /* The namespace helper program (NULL → $DVAL_LOCAL_HELPER, then the
     * libexec directory next to the library or program). */
    const char *helper_path;
    /* 1: run without isolation when namespaces are missing. */
    int32_t allow_unisolated;
    /* Default limits of sandboxes whose options leave them 0 (0 here →
     * the executor's defaults: 512 pids, 2 GiB, 600 s CPU). */
    int32_t max_pids;
    int64_t max_memory_bytes;
    int64_t max_cpu_ms;
    /* 1: sandboxes run over the host's own toolchain instead of images:
     * read-only /usr, /bin, /sbin, /lib* and an allow-listed /etc, nothing
     * else of the host (as DVAL_LOCAL_HOST_ROOT=1). */
    int32_t host_root;
} dval_local_options;

DVAL_API int dval_local_options_init(dval_local_options *opts, size_t size);

typedef struct dval_client_options {
    size_t struct_size;
    /* "daytona", "local", or NULL: daytona when a key or JWT is
     * configured, else local. Ignored when custom_executor is set. */
    const char *executor;
    /* A host-supplied executor; copied by dval_client_new(). */
    const struct dval_executor *custom_executor;
    dval_log_fn log_fn;
    void *log_userdata;
    int32_t log_level;          /* 0 → DVAL_LOG_INFO */
    /* Retry policy for transient failures (snapshot ensure, 429, 5xx). */
    int32_t retry_attempts;     /* 0 → 5 */
    int64_t retry_base_ms;      /* 0 → 1000: delay = base * factor^n */
    int32_t retry_factor;       /* 0 → 2 */
    int64_t retry_cap_ms;       /* 0 → 60000 */
    int32_t retry_jitter;       /* 1 = full jitter; 0 = exact delays */
    /* Largest download/results body accepted (0 → 64 MiB). */
    int64_t max_download_bytes;
    /* Each built-in executor's own configuration (NULL → its defaults
     * and environment). Read during dval_client_new only. */
    const dval_daytona_options *daytona;
    const dval_local_options *local;
} dval_client_options;

/* Initialises *opts to defaults. size is sizeof *opts as the caller knows
 * it. Returns DVAL_EINVAL for NULL, DVAL_EABI for a size too small. */
DVAL_API int dval_client_options_init(dval_client_options *opts, size_t size);

/* Creates a client (no network I/O). opts may be NULL (all defaults). */
DVAL_API int dval_client_new(dval_client **out, const dval_client_options *opts);
/* NULL-safe. Children hold a reference: free in any order. */
DVAL_API void dval_client_free(dval_client *client);
/* Last error message on this client ("" when none); valid until the next
 * call on the client from the same thread. Never NULL. */
DVAL_API const char *dval_client_errmsg(const dval_client *client);
/* "daytona", "local" or the custom executor's name. */
DVAL_API const char *dval_client_executor_name(const dval_client *client);

/* --------------------------------------------------------------- snapshot */

typedef struct dval_snapshot_spec {
    size_t struct_size;
    const char *name;            /* required */
    const char *image;           /* base image, e.g. "debian:12-slim" */
    /* Build steps run once, in order (Daytona: RUN lines of a generated
     * Dockerfile; local: shell commands in the snapshot layer).
     * NULL-terminated array, or NULL. */
    const char *const *build_commands;
    const char *dockerfile;      /* full Dockerfile; overrides the above
                                  * (local executor: FROM and RUN only) */
    int32_t cpu;                 /* 0 → server default */
    int32_t memory_gib;
    int32_t disk_gib;
    const char *target;          /* region; NULL → client target */
    /* 1: delete and rebuild a snapshot found in error/build_failed.
     * 0: report its errorReason as DVAL_EBUILD. */
    int32_t rebuild_failed;
    int64_t build_timeout_ms;    /* 0 → 60 minutes */
} dval_snapshot_spec;

DVAL_API int dval_snapshot_spec_init(dval_snapshot_spec *spec, size_t size);

/* Get-or-create a snapshot and wait until it is active, retrying transient
 * failures with the client's backoff. Build logs go to on_build_log (may be
 * NULL). Every attempt is reported to the client's log callback. */
DVAL_API int dval_snapshot_ensure(dval_snapshot **out, dval_client *client,
                                  const dval_snapshot_spec *spec,
                                  dval_data_fn on_build_log, void *userdata);
/* Looks a snapshot up by name or id without creating, building or
 * waiting: DVAL_ENOTFOUND when absent. The state is whatever it is now. */
DVAL_API int dval_snapshot_get(dval_snapshot **out, dval_client *client,
                               const char *name_or_id);
DVAL_API const char *dval_snapshot_name(const dval_snapshot *snap);
DVAL_API const char *dval_snapshot_id(const dval_snapshot *snap);
/* The runtime the snapshot holds, as its build recorded it ("" when the
 * executor cannot tell; Daytona's API does not). */
DVAL_API const char *dval_snapshot_runtime(const dval_snapshot *snap);
DVAL_API int dval_snapshot_state(const dval_snapshot *snap);
/* Deletes the snapshot remotely (the handle stays valid; free it). */
DVAL_API int dval_snapshot_delete(dval_snapshot *snap);
DVAL_API void dval_snapshot_free(dval_snapshot *snap);

/* ---------------------------------------------------------------- sandbox */

enum dval_network {
    DVAL_NETWORK_DEFAULT = 0,  /* daytona: allowed; local: blocked */
    DVAL_NETWORK_BLOCK = 1,
    DVAL_NETWORK_ALLOW = 2
};

enum dval_release {
    DVAL_RELEASE_KEEP = 0,     /* leave it running (auto-stop applies) */
    DVAL_RELEASE_STOP = 1,     /* stop ("pause on exit") */
    DVAL_RELEASE_DELETE = 2
};

/* Sandbox state transition, for progress display. */
typedef void (*dval_state_fn)(const char *sandbox_name, int state,
                              void *userdata);

typedef struct dval_sandbox_options {
    size_t struct_size;
    const char *name;            /* required; unique per organisation */
    const char *snapshot;        /* snapshot name (or NULL with image) */
    const char *image;           /* used only without snapshot */
    /* NULL-terminated "key=value" arrays, or NULL. */
    const char *const *labels;
    const char *const *env;
    int32_t cpu;                 /* 0 → from the snapshot */
    int32_t memory_gib;
    int32_t disk_gib;
    int32_t auto_stop_minutes;   /* 0 → 60; -1 → never */
    int32_t auto_archive_minutes;/* 0 → server default */
    int32_t auto_delete_minutes; /* 0 → disabled; > 0 minutes after stop */
    int32_t network;             /* enum dval_network */
    const char *target;          /* NULL → client target */
    int32_t release;             /* enum dval_release, for dval_sandbox_release */
    int64_t create_timeout_ms;   /* 0 → 180000 */
    int64_t start_timeout_ms;    /* 0 → 180000 */
    int64_t zombie_pause_ms;     /* 0 → 5000; -1 → no pause */
    /* 1: never use server-side recover; delete and recreate instead. */
    int32_t no_recover;
    dval_state_fn on_state;      /* may be NULL */
    void *state_userdata;
    /* Local executor limits (0 → defaults: 512 pids, 2 GiB, 600 s CPU;
     * the CPU time of each command's processes together). */
    int32_t max_pids;
    int64_t max_memory_bytes;
    int64_t max_cpu_ms;
    /* Daytona: a wall-clock lifetime after which the
     * server destroys the sandbox even when stopped (a leak backstop);
     * 0: none. A server that refuses the field gets a create without it.
     * The local executor ignores it. */
    int32_t ttl_minutes;
} dval_sandbox_options;

DVAL_API int dval_sandbox_options_init(dval_sandbox_options *opts, size_t size);

/* Get-or-create a sandbox and bring it to "started", recovering whatever
 * state it was left in (see dval_sandbox_acquire(3) for the ladder). */
DVAL_API int dval_sandbox_acquire(dval_sandbox **out, dval_client *client,
                                  const dval_sandbox_options *opts);
/* Attaches to an existing sandbox by name or id without creating or
 * starting it (e.g. to stop or delete it): DVAL_ENOTFOUND when absent. */
DVAL_API int dval_sandbox_get(dval_sandbox **out, dval_client *client,
                              const char *name_or_id);
/* Re-reads the state from the executor. */
DVAL_API int dval_sandbox_refresh(dval_sandbox *sb);
DVAL_API int dval_sandbox_state(const dval_sandbox *sb);
DVAL_API const char *dval_sandbox_id(const dval_sandbox *sb);
DVAL_API const char *dval_sandbox_name(const dval_sandbox *sb);
DVAL_API const char *dval_sandbox_errmsg(const dval_sandbox *sb);
DVAL_API int dval_sandbox_start(dval_sandbox *sb);
DVAL_API int dval_sandbox_stop(dval_sandbox *sb);
DVAL_API int dval_sandbox_delete(dval_sandbox *sb);
/* Applies the release policy of the options (keep, stop or delete). */
DVAL_API int dval_sandbox_release(dval_sandbox *sb);
DVAL_API void dval_sandbox_free(dval_sandbox *sb);

/* Files. Remote paths are absolute or relative to the sandbox's working
 * directory; "..", NUL and control characters are refused (DVAL_EINVAL). */
DVAL_API int dval_sandbox_upload(dval_sandbox *sb, const char *remote_path,
                                 const void *data, size_t len);
DVAL_API int dval_sandbox_upload_file(dval_sandbox *sb, const char *remote_path,
                                      const char *local_path);
/* *data is NUL-terminated for convenience (not counted in *len); dval_free. */
DVAL_API int dval_sandbox_download(dval_sandbox *sb, const char *remote_path,
                                   char **data, size_t *len);
DVAL_API int dval_sandbox_download_to(dval_sandbox *sb, const char *remote_path,
                                      dval_data_fn sink, void *userdata);
DVAL_API int dval_sandbox_download_file(dval_sandbox *sb, const char *remote_path,
                                        const char *local_path);
/* Downloads, checks UTF-8 and JSON; *json is the document as text. */
DVAL_API int dval_sandbox_download_json(dval_sandbox *sb, const char *remote_path,
                                        char **json);
DVAL_API int dval_sandbox_mkdir(dval_sandbox *sb, const char *remote_path);

/* Lists sandboxes carrying all the given "key=value" labels (NULL = all):
 * each is reported by name and state. */
typedef int (*dval_sandbox_list_fn)(const char *id, const char *name,
                                    int state, void *userdata);
DVAL_API int dval_sandbox_list(dval_client *client, const char *const *labels,
                               dval_sandbox_list_fn each, void *userdata);

/* ---------------------------------------------------------------- session */

/* Opens a new remote session named "<sandbox name>-<uuid4>". */
DVAL_API int dval_session_open(dval_session **out, dval_sandbox *sb);
DVAL_API const char *dval_session_id(const dval_session *s);
DVAL_API const char *dval_session_errmsg(const dval_session *s);

/* Limits of one command's processes together (dval_exec_options.limits):
 * struct_size = sizeof, 0 in a field: no limit of that kind. */
typedef struct dval_limits {
    size_t struct_size;
    int64_t memory_bytes;        /* RAM, swap not allowed (memory.max) */
    int64_t cpu_ms;              /* CPU time, user + system, all processes */
    int32_t max_processes;       /* processes and threads (pids.max) */
} dval_limits;

/* What a command used (dval_exec_options.usage; the caller sets
 * struct_size = sizeof); -1 in a field: not known (e.g.
 * Daytona measures none of them). */
typedef struct dval_usage {
    size_t struct_size;
    int64_t wall_ms;             /* from its start to its exit status */
    int64_t cpu_ms;              /* user + system, all its processes */
    int64_t user_ms;
    int64_t sys_ms;
    int64_t peak_memory_bytes;   /* its processes' memory together */
    /* processes the kernel killed at the memory limit (its OOM count) */
    int32_t oom_kills;
    /* 1: it was ended because its CPU time limit was spent, 0: not */
    int32_t cpu_limit_hit;
} dval_usage;

typedef struct dval_exec_options {
    size_t struct_size;
    /* Channel names are <prefix>COMMAND_EXECUTION_STDOUT/_STDERR, e.g.
     * prefix "JAVA_SANDBOX_". NULL → "". */
    const char *channel_prefix;
    const char *cwd;             /* NULL → session's current directory */
    int64_t timeout_ms;          /* 0 → none */
    /* NULL-terminated "NAME=value" strings added to
     * the command's environment (NULL → none; NAME a shell variable's
     * name, at most 256 entries, 32 KiB in all). The values are data:
     * no shell expands them. */
    const char *const *env;
    /* Limits of this command's own processes together
     * (a cgroup of its own on the local executor, inside the sandbox's),
     * or NULL: the sandbox's limits only. Borrowed for the call. */
    const dval_limits *limits;
    /* Filled with what the command used once it
     * exited (fields -1 where the executor cannot tell), or NULL. */
    dval_usage *usage;
} dval_exec_options;

DVAL_API int dval_exec_options_init(dval_exec_options *opts, size_t size);

/* Runs command in the session (in a child shell, so it cannot kill the
 * session), streaming output live to on_output (may be NULL), and stores
 * the exit code (128+N for signal N). */
DVAL_API int dval_session_exec(dval_session *s, const char *command,
                               const dval_exec_options *opts,
                               dval_output_fn on_output, void *userdata,
                               int *exit_code);
/* Any thread, idempotent: the blocked exec returns DVAL_ECANCELED. */
DVAL_API int dval_session_cancel(dval_session *s);
/* Deletes the remote session (kills what is left in it). */
DVAL_API int dval_session_close(dval_session *s);
DVAL_API void dval_session_free(dval_session *s);

/* ---------------------------------------------------------------- profile */

typedef struct dval_profile {
    size_t struct_size;
    const char *name;            /* "dotnet", "java", "shell", ... */
    const char *sandbox_name;    /* "java-25-sandbox" */
    const char *snapshot_name;   /* "validation-snapshot-java" */
    const char *image;           /* base image on Daytona */
    const char *const *build_commands;   /* snapshot build steps */
    const char *channel_prefix;  /* "JAVA_SANDBOX_" */
    /* Shell command run in /sandbox/<thread_id>; $DVAL_THREAD_ID,
     * $DVAL_WORKDIR and $DVAL_RESULTS_DIR are set. */
    const char *run_command;
    /* Read by the local executor's profile_prepare (struct dval_executor),
     * not by the core: build steps it runs instead of build_commands
     * (NULL → build_commands). */
    const char *const *local_build_commands;
    /* Deprecated: meaningful only when local sandboxes see the host's
     * tools (the host-root opt-in, or unisolated execution): a shell test
     * run on the host; when it fails the profile is unavailable locally.
     * Over an image the image decides (see dval_profile_find(3)). */
    const char *local_requires;
    /* The message when the local executor cannot run the profile (its
     * image is not one it has, or local_requires failed); NULL → one of
     * the executor's own. */
    const char *local_unavailable_msg;
    /* Shell command of the build phase (compile, restore), run like
     * run_command in the validation's directory before it; the run phase
     * starts only after it exited 0. NULL: the profile has no build
     * phase. */
    const char *build_command;
    /* The services and seeds (as dval_validation.services and .seeds) of
     * a validation or pool of this profile whose request names neither;
     * NULL: none. */
    const char *const *services;
    const char *const *seeds;
    /* Defaults of a validation of this profile whose request leaves the
     * same dval_validation field 0 (the request's own value wins); 0:
     * none. */
    int32_t memory_mib;
    int32_t max_processes;
    int64_t cpu_time_ms;
    int64_t output_bytes;
    int64_t timeout_ms;
} dval_profile;

/* Built-in or registered profile by name; NULL when unknown. Borrowed. */
DVAL_API const dval_profile *dval_profile_find(const char *name);
/* Registers (copies) a host profile; replaces one of the same name. */
DVAL_API int dval_profile_register(const dval_profile *profile);
/* Loads a profile file (JSON: image, build steps, files carried into the
 * snapshot, run and build commands; see dval_profile_load(3)) and
 * registers it as dval_profile_register() does. *name (may be NULL) is
 * its name, borrowed for the life of the process; on failure errbuf (may
 * be NULL) says why, naming the file. */
DVAL_API int dval_profile_load(const char *path, const char **name,
                               char *errbuf, size_t errcap);
/* NULL-terminated names of all profiles; static, borrowed. Not thread-safe
 * against dval_profile_register(). */
DVAL_API int dval_profile_names(const char *const **names);
/* NULL-terminated names of the services a validation may ask for
 * (dval_validation.services); static, borrowed. */
DVAL_API int dval_service_names(const char *const **names);
/* dval_snapshot_ensure of the profile's snapshot with the build steps the
 * client's executor chooses for it (as dval_validate builds it);
 * DVAL_EUNSUPPORTED when the executor cannot run the profile. */
DVAL_API int dval_profile_snapshot_ensure(dval_snapshot **out,
                                          dval_client *client,
                                          const dval_profile *profile,
                                          dval_data_fn on_build_log,
                                          void *userdata);

/* ---------------------------------------------------------------- compare */

/* How an expected result is compared with what a program produced
 * (dval_compare_options.mode). */
enum dval_compare_mode {
    /* in a validation: JSON for a results file, TEXT for stdout;
     * dval_compare: JSON */
    DVAL_COMPARE_AUTO = 0,
    DVAL_COMPARE_EXACT = 1,     /* the same bytes */
    /* the same text but for whitespace at the end of each line and blank
     * lines at the end */
    DVAL_COMPARE_TEXT = 2,
    /* equal JSON values: members in any order, numbers within the
     * tolerances, paths of the ignore list left out */
    DVAL_COMPARE_JSON = 3
};

typedef struct dval_compare_options {
    size_t struct_size;
    int32_t mode;                /* enum dval_compare_mode */
    /* NULL-terminated JSON paths left out of a JSON comparison, each with
     * everything below it: "$.a.b", "$.rows[*].id", "$[\"a key\"]",
     * "$..generated_at" (a member of that name at any depth). NULL: none */
    const char *const *ignore;
    /* Two numbers are equal when they differ by at most abs_tolerance, or
     * by at most rel_tolerance times the larger magnitude (0: exactly) */
    double abs_tolerance;
    double rel_tolerance;
    int32_t max_diffs;           /* differences listed; 0 → 20 */
} dval_compare_options;

DVAL_API int dval_compare_options_init(dval_compare_options *opts,
                                       size_t size);
/* Compares actual with expected as opts says (NULL: defaults, JSON) and
 * stores the number of differences in *differences (0: equal) and, in
 * *diff_json (dval_free), a JSON array of the first max_diffs of them:
 * {"path","kind","expected","actual"} (see dval_compare(3)). */
DVAL_API int dval_compare(char **diff_json, size_t *differences,
                          const char *expected, size_t expected_len,
                          const char *actual, size_t actual_len,
                          const dval_compare_options *opts);

/* Differential validation: an original program and its translation,
 * validated as the host likes (in parallel on two threads, each a
 * dval_validate), judged together (dval_differential.outcome). */
enum dval_differential_outcome {
    DVAL_DIFF_EQUIVALENT = 1,         /* both passed, the same results */
    DVAL_DIFF_DIFFERS = 2,            /* both passed, different results */
    DVAL_DIFF_ORIGINAL_FAILED = 3,    /* the original did not pass */
    DVAL_DIFF_TRANSLATION_FAILED = 4  /* the original passed, not it */
};

/* Judges two validations from their summaries (dval_validate's, or
 * dval_result_summary): their "results" compared as JSON with opts (NULL:
 * defaults; the mode is always JSON). Stores the outcome and, in *report
 * (dval_free), {"verdict", "verdict_detail", "differences", "diff",
 * "failed_side"}: verdict "equivalent", "differs", or the failed side's
 * own verdict (the original's first); diff as dval_compare's. DVAL_EINVAL
 * for a summary that is not one. */
DVAL_API int dval_differential(int *outcome, char **report,
                               const char *original_summary,
                               const char *translation_summary,
                               const dval_compare_options *opts);

/* --------------------------------------------------------------- validate */

enum dval_event_type {
    DVAL_EVENT_PHASE = 1,        /* phase started/finished */
    DVAL_EVENT_OUTPUT = 2,       /* program output chunk */
    DVAL_EVENT_BUILD_LOG = 3,    /* snapshot build log chunk */
    DVAL_EVENT_STATE = 4,        /* sandbox state change */
    DVAL_EVENT_RESTART = 5       /* the sandbox vanished mid-run: the validation
                                    runs again on a fresh one and its output
                                    restarts (drop what was received) */
};

typedef struct dval_event {
    size_t struct_size;
    int32_t type;                /* enum dval_event_type */
    const char *phase;           /* "snapshot", "sandbox", "session",
                                    "upload", "build", "run", "download",
                                    "close" */
    int32_t done;                /* PHASE: 0 started, 1 finished */
    int32_t status;              /* PHASE done: its status */
    int64_t elapsed_ms;          /* PHASE done: its duration */
    int32_t stream;              /* OUTPUT: DVAL_STDOUT/DVAL_STDERR */
    const char *channel;         /* OUTPUT */
    const char *data;            /* OUTPUT/BUILD_LOG; not NUL-terminated */
    size_t len;
    int32_t state;               /* STATE: enum dval_sandbox_state */
    const char *detail;          /* human text, may be NULL */
} dval_event;

typedef int (*dval_event_fn)(const dval_event *event, void *userdata);

/* A cancel token for dval_validate (dval_validation.cancel). Fire it from
 * any thread, any number of times: the running phase stops promptly (the
 * running command is killed) and the session is closed. Not
 * async-signal-safe: fire it from a thread, e.g. one waiting with
 * sigwait() or reading a self-pipe. A token is fired once for good. */
typedef struct dval_cancel dval_cancel;
DVAL_API int dval_cancel_new(dval_cancel **out);
DVAL_API int dval_cancel_fire(dval_cancel *token);
DVAL_API int dval_cancel_fired(const dval_cancel *token);
/* Must not race with a validation using the token. */
DVAL_API void dval_cancel_free(dval_cancel *token);

typedef struct dval_validation {
    size_t struct_size;
    const char *profile;         /* required: "java", "dotnet", "shell" */
    const char *source_dir;      /* required: local directory to upload */
    /* Safe path component ([A-Za-z0-9._-], no ".."); NULL → uuid4. */
    const char *thread_id;
    const char *sandbox_name;    /* NULL → the profile's */
    const char *snapshot_name;   /* NULL → the profile's */
    const char *run_command;     /* NULL → the profile's */
    int64_t timeout_ms;          /* each phase's wall time; 0 → 10 min */
    int32_t release;             /* enum dval_release for the sandbox */
    const char *const *labels;   /* extra sandbox labels */
    int32_t allow_missing_results; /* 1: no results is not an error */
    /* Fired from any thread: the validation ends with DVAL_ECANCELED, its
     * session closed. NULL → not cancelable. Borrowed for the call. */
    dval_cancel *cancel;
    /* enum dval_isolation. */
    int32_t isolation;
    /* dval_sandbox_options.ttl_minutes of a sandbox this validation
     * creates; 0: none. */
    int32_t sandbox_ttl_minutes;
    /* Resources of a sandbox this validation creates, in Daytona's units
     * (CPUs, GiB; the CLI's --cpu/--memory/--disk); 0 → the executor's
     * default (local: no CPU quota, 2 GiB memory, 10 GiB writable disk).
     * A sandbox that already exists keeps its own, so a request for
     * resources without a sandbox_name shares a sandbox of exactly those
     * (the profile's name + "-c<cpu>m<memory>d<disk>"), never the
     * profile's default one. */
    int32_t cpu;
    int32_t memory_gib;
    int32_t disk_gib;
    /* The build phase's command. NULL → the profile's build_command,
     * unless run_command is set: a request that gives its own run
     * command gives its own build command too (NULL: none). */
    const char *build_command;
    /* NULL-terminated names of services the program gets a fresh
     * database of (dval_service_names: "postgres", "sqlite"), or NULL.
     * They and their seeds are installed in a snapshot of their own,
     * built once (its name and its sandboxes' names end in "-db" and a
     * hash of them); the program finds its database in DVAL_DB_URL,
     * DVAL_DB_ADO, DVAL_DB_JDBC, DVAL_DB_HOST, DVAL_DB_PORT, DVAL_DB_NAME,
     * DVAL_DB_USER and DVAL_DB_PASSWORD (the first service's). A service
     * that fails makes the run command print "dval: infrastructure: ..."
     * on stderr and exit 70. */
    const char *const *services;
    /* NULL-terminated host paths of SQL scripts loaded, in order, into
     * every service's seeded template when the snapshot is built (at
     * most 1 MiB together), or NULL. */
    const char *const *seeds;
    /* Limits of each phase's command (build, then run), its processes
     * together, enforced on the local executor by a cgroup per command
     * even in a shared sandbox, and seen by the runtimes inside (a JVM
     * sizes its heap from memory_mib); 0: none beyond the sandbox's.
     * Exceeding memory gives the verdict "memory_limit", CPU time
     * "time_limit". timeout_ms bounds wall time. */
    int32_t memory_mib;
    int32_t max_processes;
    int64_t cpu_time_ms;
    /* The most each phase may print (stdout and stderr together, bytes);
     * past it the phase is stopped: verdict "output_limit", status
     * DVAL_ETOOBIG. 0: no limit. */
    int64_t output_bytes;
    /* An expected result, expected_len bytes at
     * expected (NULL: none), compared as compare says (NULL: defaults,
     * mode DVAL_COMPARE_AUTO) with the program's stdout (expected_file
     * NULL: AUTO is TEXT) or with the results file of that name (a
     * *.json file: always JSON). The verdict is then passed or
     * wrong_results, the summary's "comparison" the differences (see
     * dval_validate(3), EXPECTED RESULTS). */
    const char *expected;
    size_t expected_len;
    const char *expected_file;
    const dval_compare_options *compare;
    /* The run phase's inputs (never the build's).
     * args: NULL-terminated words appended, each shell-quoted, to the run
     * command's text, so the program sees them as its last arguments,
     * unexpanded (at most 256 words, 64 KiB together; else DVAL_EINVAL).
     * stdin_data: stdin_len bytes (any, NUL too; at most 16 MiB) given
     * to the run command as its stdin, uploaded as the file .dval-stdin
     * in the working directory; NULL: stdin is empty (/dev/null). */
    const char *const *args;
    const char *stdin_data;
    size_t stdin_len;
    /* The most all the results files may hold
     * together, counted as the summary holds them (a JSON file's text,
     * another file's escaped text or base64); past it the validation's
     * verdict is results_invalid. 0: the library's own bound, 64 MiB,
     * which is also the most that may be asked. */
    int64_t results_bytes;
} dval_validation;

/* What a validation shares with others (dval_validation.isolation). */
enum dval_isolation {
    /* the profile's (or sandbox_name's) sandbox, shared by validations,
     * a session and /sandbox/<thread_id> each: keeps honest programs
     * apart, not hostile ones */
    DVAL_ISOLATION_SESSION = 0,
    /* a sandbox of its own, created from the snapshot for this validation
     * and deleted after it (a pool may instead recycle one, only after the
     * executor's sandbox_reset succeeded): nothing else runs in it before
     * or during */
    DVAL_ISOLATION_SANDBOX = 1
};

DVAL_API int dval_validation_init(dval_validation *req, size_t size);

/* The outcome of a validation, one per validation and the same on every
 * executor, so a pipeline can branch on it alone (the summary's
 * "verdict" holds dval_verdict_name's word for it). */
enum dval_verdict {
    DVAL_VERDICT_PASSED = 1,            /* built, ran, exit 0, results ok */
    DVAL_VERDICT_COMPILE_ERROR = 2,     /* the build phase failed */
    DVAL_VERDICT_RUNTIME_ERROR = 3,     /* non-zero exit or a signal */
    DVAL_VERDICT_TIME_LIMIT = 4,        /* wall or CPU time ran out */
    DVAL_VERDICT_MEMORY_LIMIT = 5,      /* killed at the memory limit */
    DVAL_VERDICT_OUTPUT_LIMIT = 6,      /* printed more than allowed */
    DVAL_VERDICT_RESULTS_MISSING = 7,   /* no results file */
    DVAL_VERDICT_RESULTS_INVALID = 8,   /* a results file is not valid */
    DVAL_VERDICT_RUNTIME_UNSUPPORTED = 9, /* needs a newer runtime */
    DVAL_VERDICT_WRONG_RESULTS = 10,    /* differ from the expected ones */
    DVAL_VERDICT_CANCELED = 11,         /* stopped by the caller */
    /* the sandbox, a service or the server failed: never the program's
     * fault, and safe to retry */
    DVAL_VERDICT_INFRASTRUCTURE_ERROR = 12
};
/* "passed", "compile_error", ... ("unknown" for other values). */
DVAL_API const char *dval_verdict_name(int verdict);
/* The verdict named by word (as in the summary), 0 when unknown. */
DVAL_API int dval_verdict_parse(const char *name);

/* The whole loop: snapshot → sandbox → session → upload → exec (live) →
 * download results → close. *result_json (dval_free) is a summary:
 * {"exit_code":N,"results":{"<file>":<json>,...},"thread_id":...,
 *  "sandbox":...,"session":...,"timings_ms":{...}}. Returns DVAL_OK when
 * the program ran (whatever its exit code) and its results are valid. */
DVAL_API int dval_validate(dval_client *client, const dval_validation *req,
                           dval_event_fn on_event, void *userdata,
                           char **result_json);

/* ------------------------------------------------------------------ pool */

/* A pool of sandboxes of one profile shared by many host threads: each
 * dval_pool_validate leases a sandbox (at most max_per_sandbox validations
 * on one at a time), runs dval_validate on it and returns it. Callers wait
 * in FIFO order when every sandbox is busy; beyond max_queue waiting the
 * call fails with DVAL_EBUSY at once. No thread of its own. */
typedef struct dval_pool dval_pool;

typedef struct dval_pool_options {
    size_t struct_size;
    const char *profile;         /* required */
    const char *name;            /* sandbox name prefix; NULL → "pool-<profile>" */
    int32_t min_warm;            /* sandboxes acquired by dval_pool_new; 0 */
    int32_t max_sandboxes;       /* 0 → 4 */
    int32_t max_per_sandbox;     /* concurrent validations on one; 0 → 1 */
    int64_t idle_timeout_ms;     /* a sandbox unused longer is released
                                    (release policy) at the next lease; 0 never */
    const char *const *labels;   /* extra labels of every pool sandbox */
    int32_t max_queue;           /* waiting callers; 0 → 256, -1 → unbounded */
    int32_t release;             /* enum dval_release at idle/free; KEEP */
    /* TTL of every sandbox the pool creates (Daytona; a leak backstop):
     * 0 → 1440 (24 h); -1 → none */
    int32_t ttl_minutes;
    /* dval_validation.services and .seeds of every validation on the
     * pool (its requests leave theirs NULL); the pool's sandboxes keep
     * the services running between validations. */
    const char *const *services;
    const char *const *seeds;
} dval_pool_options;

DVAL_API int dval_pool_options_init(dval_pool_options *opts, size_t size);
DVAL_API int dval_pool_new(dval_pool **out, dval_client *client,
                           const dval_pool_options *opts);
/* dval_validate on a leased pool sandbox; req->profile may be NULL (the
 * pool's), req->sandbox_name must be NULL. */
DVAL_API int dval_pool_validate(dval_pool *pool, const dval_validation *req,
                                dval_event_fn on_event, void *userdata,
                                char **result_json);
/* A snapshot of the pool's activity, for a host's progress and tuning
 * (dval_pool_stats_get). Counts are since dval_pool_new. */
typedef struct dval_pool_stats {
    size_t struct_size;
    int32_t max_sandboxes;    /* the pool's slots */
    int32_t busy_sandboxes;   /* slots with a validation on them now */
    int32_t running;          /* validations holding a slot now */
    int32_t waiting;          /* callers queued for a slot now */
    int64_t completed;        /* validations that held a slot and ended */
    int64_t failed;           /* of those, ended with a status other than OK */
    int64_t refused;          /* DVAL_EBUSY at once: the queue was full */
    int64_t canceled_waiting; /* DVAL_ECANCELED while queued */
    int64_t wait_ms_total;    /* time callers spent queued, summed */
    int64_t wait_ms_max;      /* the longest one caller spent queued */
} dval_pool_stats;

/* Fills *stats (size: sizeof *stats) from one consistent moment of the
 * pool; any thread, while validations run. */
DVAL_API int dval_pool_stats_get(dval_pool *pool, dval_pool_stats *stats,
                                 size_t size);
/* No validation may still run on the pool. */
DVAL_API void dval_pool_free(dval_pool *pool);

/* ---------------------------------------------------------------- result */

/* A validation's outcome as a value: read it with the
 * accessors below, no JSON parser needed. Immutable: any thread may read
 * it, at the same time; strings it hands out are borrowed from it, valid
 * until dval_result_free. */
typedef struct dval_result dval_result;

/* dval_validate with the outcome as a dval_result (*result: NULL for a
 * request that is not valid, else set whatever came of it; release it
 * with dval_result_free). Same return value as dval_validate. */
DVAL_API int dval_validate_result(dval_result **result, dval_client *client,
                                  const dval_validation *req,
                                  dval_event_fn on_event, void *userdata);
/* The same for dval_pool_validate. */
DVAL_API int dval_pool_validate_result(dval_result **result, dval_pool *pool,
                                       const dval_validation *req,
                                       dval_event_fn on_event,
                                       void *userdata);
DVAL_API void dval_result_free(dval_result *r);
/* The status the validating call returned. */
DVAL_API int dval_result_status(const dval_result *r);
DVAL_API int dval_result_verdict(const dval_result *r);  /* dval_verdict */
DVAL_API const char *dval_result_verdict_detail(const dval_result *r);
/* The last phase's exit code (the run's, else the build's); -1 when none
 * ran to one. */
DVAL_API int dval_result_exit_code(const dval_result *r);
/* The signal that ended that phase (an exit code of 128+N), else 0. */
DVAL_API int dval_result_signal(const dval_result *r);
/* dval_validate's JSON summary of the same validation. */
DVAL_API const char *dval_result_summary(const dval_result *r);

/* A phase of the validation (dval_result_phase). */
typedef struct dval_phase_info {
    size_t struct_size;
    int32_t exited;              /* 1: it ran to an exit code */
    int32_t exit_code;           /* -1 when it did not */
    int32_t signal;              /* the signal that ended it, else 0 */
    int64_t wall_ms;
    /* its output as the summary keeps it (up to 1 MiB a stream; invalid
     * UTF-8 replaced by U+FFFD), NUL-terminated after len */
    const char *stdout_data;
    size_t stdout_len;
    const char *stderr_data;
    size_t stderr_len;
    int32_t output_truncated;    /* 1: cut at 1 MiB */
    /* What the phase's processes used together, as
     * the summary's "usage" says: CPU time (user + system) and peak
     * memory, -1 each when the executor could not measure them (Daytona);
     * usage_known 1 when the executor measured the phase, else 0. */
    int64_t cpu_ms;
    int64_t peak_memory_bytes;
    int32_t usage_known;
} dval_phase_info;

/* Fills *info (size: sizeof *info) with the phase "build" or "run";
 * DVAL_ENOTFOUND when it did not start. */
DVAL_API int dval_result_phase(const dval_result *r, const char *phase,
                               dval_phase_info *info, size_t size);

/* A results file (dval_result_file). */
typedef struct dval_file_info {
    size_t struct_size;
    const char *name;            /* relative to the results directory */
    /* its JSON document, compact; for a file that is not *.json (is_json
     * 0), its entry in the summary's "files" ({"text": ...} or
     * {"base64": ...}, with "bytes"): never NULL */
    const char *json;
    size_t json_len;
    /* Filled only when struct_size covers them: the
     * file's bytes, NUL-terminated after len (which may hold NULs): as
     * the program wrote them for any file but a *.json one, whose data is
     * its document's compact text (json) as the summary keeps it. */
    const char *data;
    size_t len;
    int32_t is_json;             /* 1: a *.json file, parsed */
} dval_file_info;

/* Every plain file the program wrote under its results directory: the
 * summary's "results" (the *.json files) and "files" (the others)
 * together. */
DVAL_API size_t dval_result_file_count(const dval_result *r);
/* The results files in name order (index from 0); DVAL_ENOTFOUND past
 * the last. A caller whose struct_size ends at json_len gets the other
 * files too, each json its "files" entry. */
DVAL_API int dval_result_file(const dval_result *r, size_t index,
                              dval_file_info *file, size_t size);

/* One difference from the expected result (dval_result_diff). */
typedef struct dval_diff_entry {
    size_t struct_size;
    const char *path;            /* "$.rows[2].total", "line 3" */
    /* "changed", "type", "missing", "unexpected", "length", "invalid" */
    const char *kind;
    const char *expected;        /* JSON text; NULL when absent */
    const char *actual;          /* JSON text; NULL when absent */
} dval_diff_entry;

/* How many differences the comparison with the expected result found
 * (0: none, or no comparison) and the listed ones (at most the compare
 * options' max_diffs) by index; DVAL_ENOTFOUND past the last listed. */
DVAL_API size_t dval_result_differences(const dval_result *r);
DVAL_API int dval_result_diff(const dval_result *r, size_t index,
                              dval_diff_entry *entry, size_t size);

/* ---------------------------------------------------------------- executor */

#define DVAL_ID_MAX 256
#define DVAL_REASON_MAX 1024
#define DVAL_RUNTIME_MAX 128
#define DVAL_ERRMSG_MAX 1024

/* Context of one executor call: inputs set by the core, outputs by the
 * executor on failure. */
typedef struct dval_call {
    size_t struct_size;
    int64_t timeout_ms;          /* time left for this call; 0 = none */
    /* Becomes readable when the operation is canceled (-1: none). The
     * executor polls it together with its own descriptors. */
    int cancel_fd;
    dval_log_fn log_fn;          /* may be NULL */
    void *log_userdata;
    /* outputs */
    int64_t retry_after_ms;      /* server hint; -1 none */
    char errmsg[DVAL_ERRMSG_MAX];
    /* The executor's own reading of a failure (written only when
     * struct_size covers it), which the core's retry policy follows; 0
     * leaves the decision to the returned status code. */
    int32_t failure;             /* enum dval_failure */
    /* Written only when struct_size covers it: file_download's reading
     * of the file's size at most, set before the first byte is delivered
     * when the executor knows it (a body's Content-Length), so a download
     * into memory is one allocation; -1 (the default): not known. */
    int64_t size_hint;
} dval_call;

/* How a failed executor call may be retried (dval_call.failure). */
enum dval_failure {
    DVAL_FAILURE_BY_STATUS = 0,  /* the core decides from the status */
    DVAL_FAILURE_TRANSIENT = 1,  /* repeating an idempotent call may work */
    DVAL_FAILURE_PERMANENT = 2,  /* repeating it will not work */
    DVAL_FAILURE_NOT_READY = 3,  /* the target is not ready yet (e.g. still
                                    starting): repeat after a backoff */
    DVAL_FAILURE_GONE = 4        /* the target no longer exists */
};

typedef struct dval_snapshot_info {
    size_t struct_size;
    char id[DVAL_ID_MAX];
    char name[DVAL_ID_MAX];
    int32_t state;               /* enum dval_snapshot_state */
    char error_reason[DVAL_REASON_MAX];
    /* The runtime the snapshot really holds, as its build recorded it
     * (/etc/dval/runtime, e.g. ".NET SDK 10.0.401", "OpenJDK 25.0.1");
     * "" when the executor cannot tell. */
    char runtime[DVAL_RUNTIME_MAX];
} dval_snapshot_info;

typedef struct dval_sandbox_info {
    size_t struct_size;
    char id[DVAL_ID_MAX];
    char name[DVAL_ID_MAX];
    int32_t state;               /* enum dval_sandbox_state */
    int32_t recoverable;         /* error state may be recovered */
    char error_reason[DVAL_REASON_MAX];
} dval_sandbox_info;

/* Receives executor output: stream DVAL_STDOUT or DVAL_STDERR. */
typedef int (*dval_chunk_fn)(int stream, const char *data, size_t len,
                             void *userdata);
typedef int (*dval_sandbox_info_fn)(const dval_sandbox_info *info,
                                    void *userdata);
typedef int (*dval_snapshot_info_fn)(const dval_snapshot_info *info,
                                     void *userdata);

/* Calls each once per snapshot the client's executor has (made by any
 * profile, profile file or dval_snapshot_ensure), in no set order; a
 * non-zero return from each stops the listing (DVAL_EABORTED). */
DVAL_API int dval_snapshot_list(dval_client *client,
                                dval_snapshot_info_fn each, void *userdata);

/* An image in the executor's image cache (dval_image_list). */
#define DVAL_IMAGE_REF_MAX 1024
typedef struct dval_image_info {
    size_t struct_size;
    char ref[DVAL_IMAGE_REF_MAX]; /* the reference, in full:
                                     "docker.io/library/debian:12" */
    char digest[DVAL_ID_MAX];    /* what it named when pulled (an index
                                    or a manifest): "sha256:<hex>" */
    char manifest[DVAL_ID_MAX];  /* the host platform's manifest */
    int64_t pulled_ms;           /* when, milliseconds since the epoch */
} dval_image_info;
typedef int (*dval_image_info_fn)(const dval_image_info *info,
                                  void *userdata);

/* The image cache (the local executor's; DVAL_EUNSUPPORTED on Daytona,
 * which pulls images itself when it builds a snapshot). on_progress (may
 * be NULL) gets the pull's progress as text lines, one per layer step. */
DVAL_API int dval_image_pull(dval_client *client, const char *ref,
                             dval_data_fn on_progress, void *userdata);
DVAL_API int dval_image_list(dval_client *client, dval_image_info_fn each,
                             void *userdata);
DVAL_API int dval_image_remove(dval_client *client, const char *ref);

/*
 * The primitive operations an executor performs. The core implements every
 * policy (retries, recovery ladder, waits, naming) on top of them.
 * Members may be NULL (→ DVAL_EUNSUPPORTED) or return DVAL_EPASSTHROUGH.
 * Every member returns DVAL_OK or a negative status and, on failure, fills
 * call->errmsg (and retry_after_ms where known). Members are
 * called on the thread that called the dval_* function; they may block up
 * to call->timeout_ms and must return DVAL_ECANCELED soon after
 * call->cancel_fd becomes readable. "Not found" is DVAL_ENOTFOUND.
 * The struct is copied by dval_client_new(); destroy(userdata) is called
 * exactly once, when the client is freed.
 */
/* What command_start runs: one command of a session. */
typedef struct dval_command {
    size_t struct_size;          /* sizeof(dval_command) as the core knows it */
    const char *sandbox_id;
    const char *session_id;
    /* Its working directory; NULL: the session's current one. A cwd that
     * cannot be entered fails the command with exit 2 (as "cd DIR &&"
     * would), none of it run. */
    const char *cwd;
    /* Exactly one of text and argv. text: shell text, run by sh -c as it
     * is. argv: a program started without a shell, NULL-terminated, at
     * most 64 words, argv[0] non-empty and found through the PATH the
     * command would see when it has no "/"; exactly these arguments. A
     * program not found exits 127, one found but not runnable 126; a
     * file without "#!" is read by sh, as a shell's exec does. */
    const char *text;
    const char *const *argv;
    /* NAME=value entries (NAME a shell variable's name), NULL-terminated,
     * added to the command's environment after the sandbox's own; may be
     * NULL. Data: no shell expands them. */
    const char *const *env;
    /* Whose command it is: the identity of the validation that runs it
     * (the name of its working directory under /sandbox, its thread id),
     * set by the core, never taken from the command; NULL: the sandbox's
     * default user. A plain name (no "/", not "." or "..", under 256
     * bytes), else DVAL_EINVAL. The local executor runs the command as
     * the owner's own uid whatever cwd and text say, so a command cannot
     * name its way into another validation's uid; an executor with one
     * user (daytona) ignores it. */
    const char *owner;
} dval_command;

/* file_list callback: non-zero stops the listing (DVAL_EABORTED). */
typedef int (*dval_file_list_fn)(const char *relpath, int64_t size,
                                 void *userdata);

struct dval_executor {
    size_t struct_size;
    const char *name;
    void *userdata;
    void (*destroy)(void *userdata);

    int (*snapshot_get)(void *ud, dval_call *c, const char *name_or_id,
                        dval_snapshot_info *out);
    /* DVAL_EEXISTS when the name is taken. May build synchronously,
     * delivering build output to log (stream DVAL_STDOUT). */
    int (*snapshot_create)(void *ud, dval_call *c,
                           const dval_snapshot_spec *spec,
                           dval_snapshot_info *out,
                           dval_chunk_fn log, void *log_ud);
    int (*snapshot_activate)(void *ud, dval_call *c, const char *id,
                             dval_snapshot_info *out);
    int (*snapshot_delete)(void *ud, dval_call *c, const char *id);
    /* Follows build logs from byte offset `from` until they end (DVAL_OK)
     * or call->timeout_ms passes (DVAL_ETIMEOUT). */
    int (*snapshot_logs)(void *ud, dval_call *c, const char *id,
                         uint64_t from, dval_chunk_fn log, void *log_ud);

    int (*sandbox_get)(void *ud, dval_call *c, const char *name_or_id,
                       dval_sandbox_info *out);
    /* DVAL_EEXISTS when the name is taken. */
    int (*sandbox_create)(void *ud, dval_call *c,
                          const dval_sandbox_options *opts,
                          dval_sandbox_info *out);
    int (*sandbox_start)(void *ud, dval_call *c, const char *id,
                         dval_sandbox_info *out);
    int (*sandbox_stop)(void *ud, dval_call *c, const char *id,
                        dval_sandbox_info *out);
    int (*sandbox_delete)(void *ud, dval_call *c, const char *id);
    int (*sandbox_recover)(void *ud, dval_call *c, const char *id,
                           dval_sandbox_info *out);
    int (*sandbox_list)(void *ud, dval_call *c, const char *const *labels,
                        dval_sandbox_info_fn each, void *each_ud);

    int (*session_create)(void *ud, dval_call *c, const char *sandbox_id,
                          const char *session_id);
    int (*session_delete)(void *ud, dval_call *c, const char *sandbox_id,
                          const char *session_id);
    /* Starts the command cmd describes (see dval_command) asynchronously
     * and writes its id (< DVAL_ID_MAX) to cmd_id. It runs apart from the
     * session (the built-in executors: a child of its own), so it cannot
     * end or change the session, with stdin empty. c->timeout_ms is at
     * most 60 s. DVAL_EINVAL (errmsg says why) for a description that is
     * not valid: neither or both of text and argv, no program, a bad
     * owner. */
    int (*command_start)(void *ud, dval_call *c, const dval_command *cmd,
                         char *cmd_id);
    /* *finished = 1 and *exit_code once the command has exited. */
    int (*command_status)(void *ud, dval_call *c, const char *sandbox_id,
                          const char *session_id, const char *cmd_id,
                          int *finished, int *exit_code);
    /* Opens a live stream of the command's output. The core already has
     * the first stdout_from bytes of its stdout and stderr_from of its
     * stderr (from earlier streams): those are not delivered again. */
    int (*stream_open)(void *ud, dval_call *c, const char *sandbox_id,
                       const char *session_id, const char *cmd_id,
                       uint64_t stdout_from, uint64_t stderr_from,
                       void **stream);
    /* Waits up to call->timeout_ms for output and delivers what arrived to
     * sink. Sets *closed = 1 when the stream ended normally. Returns
     * DVAL_OK also when nothing arrived in time. */
    int (*stream_read)(void *ud, dval_call *c, void *stream,
                       dval_chunk_fn sink, void *sink_ud, int *closed);
    void (*stream_close)(void *ud, void *stream);
    /* The command's whole output so far, non-follow (for reconciliation),
     * past the first stdout_from / stderr_from bytes, as for stream_open. */
    int (*command_logs)(void *ud, dval_call *c, const char *sandbox_id,
                        const char *session_id, const char *cmd_id,
                        uint64_t stdout_from, uint64_t stderr_from,
                        dval_chunk_fn sink, void *sink_ud);

    /* size may be -1 when unknown. Parent directories are created. */
    int (*file_upload)(void *ud, dval_call *c, const char *sandbox_id,
                       const char *remote_path, dval_read_fn src,
                       void *src_ud, int64_t size);
    int (*file_download)(void *ud, dval_call *c, const char *sandbox_id,
                         const char *remote_path, dval_data_fn sink,
                         void *sink_ud);
    int (*folder_create)(void *ud, dval_call *c, const char *sandbox_id,
                         const char *remote_path);
    /* Kills a running command (its process group). NULL → the core
     * deletes the session instead. */
    int (*command_cancel)(void *ud, dval_call *c, const char *sandbox_id,
                          const char *session_id, const char *cmd_id);
    /* Lists the regular files under dir (recursively) from the host side,
     * never by running a program in the sandbox: each gets a name relative
     * to dir and its size. Symlinks, files with other hard links, FIFOs,
     * devices and sockets are never followed or opened: each is reported
     * with size -1 (refused). DVAL_ENOTFOUND when dir does not exist,
     * DVAL_ERESULTS when dir itself is not a plain directory (a symlink).
     * NULL → the core lists with a command in the sandbox. */
    int (*file_list)(void *ud, dval_call *c, const char *sandbox_id,
                     const char *dir, dval_file_list_fn each, void *each_ud);
    /* Claims dir (a validation's working directory) for the caller until
     * workdir_release: DVAL_EBUSY while another run holds it. A claim
     * ends with its holder's process, so a crashed run blocks nobody.
     * NULL → no claim (the executor cannot tell concurrent runs apart). */
    int (*workdir_claim)(void *ud, dval_call *c, const char *sandbox_id,
                         const char *dir, void **claim);
    void (*workdir_release)(void *ud, void *claim);
    /* Whether this executor can run profile p, and the
     * snapshot build steps it runs for it. DVAL_OK, with *build_commands
     * set to the steps (NULL: the profile's build_commands), or
     * DVAL_EUNSUPPORTED with c->errmsg saying why the profile cannot run
     * here. Called before the profile's snapshot is ensured. NULL member:
     * every profile runs as it is, with its build_commands. */
    int (*profile_prepare)(void *ud, dval_call *c, const dval_profile *p,
                           const char *const **build_commands);
    /* Resets a sandbox for reuse by the next validation
     * (a pool's isolation=sandbox slot). DVAL_OK is a guarantee: no
     * process, file, IPC object or session of any earlier use remains, and
     * the sandbox is started and looks as if fresh from its snapshot. On
     * an error, or with this member NULL, the core deletes the sandbox
     * and creates a fresh one instead. */
    int (*sandbox_reset)(void *ud, dval_call *c, const char *sandbox_id);
    /* How many sessions whose id starts with prefix
     * are open in the sandbox now, whoever opened them (another client,
     * process or host): *count. Before a release policy stops or deletes
     * a shared sandbox, the core closes its own session and asks with
     * the prefix of its validations' sessions (a profile's long-lived
     * services run in sessions named otherwise, never closed): a sandbox
     * with such sessions open is kept for the last of them to release.
     * NULL member: the core cannot see other clients' validations and
     * applies the policy. */
    int (*sandbox_sessions)(void *ud, dval_call *c, const char *sandbox_id,
                            const char *prefix, int *count);
    /* The commands this session starts from now on run
     * in a cgroup of their own (each command its own), bounded by limits
     * (zeros: measured only); NULL limits: back to none. NULL member:
     * per-command limits are not enforced (the core says so). */
    int (*session_limits)(void *ud, dval_call *c, const char *sandbox_id,
                          const char *session_id, const dval_limits *limits);
    /* What a finished command used (out's fields -1
     * where unknown; its struct_size set by the core). NULL member: all
     * unknown. */
    int (*command_usage)(void *ud, dval_call *c, const char *sandbox_id,
                         const char *session_id, const char *cmd_id,
                         dval_usage *out);
    /* Every snapshot there is, each reported once
     * (info as snapshot_get fills it); a non-zero return from each stops
     * the listing with DVAL_EABORTED. Not retried once each has run. */
    int (*snapshot_list)(void *ud, dval_call *c, dval_snapshot_info_fn each,
                         void *each_ud);
    /* An image cache. image_pull fetches ref into it
     * (progress: text lines, stream DVAL_STDOUT; may be NULL) and fills
     * out (may be NULL); image_list reports each cached image once (a
     * non-zero return from each stops it: DVAL_EABORTED); image_remove
     * drops ref and the blobs no other cached image uses (DVAL_ENOTFOUND
     * when ref is not cached). NULL: the dval_image_* functions answer
     * DVAL_EUNSUPPORTED. */
    int (*image_pull)(void *ud, dval_call *c, const char *ref,
                      dval_chunk_fn progress, void *progress_ud,
                      dval_image_info *out);
    int (*image_list)(void *ud, dval_call *c, dval_image_info_fn each,
                      void *each_ud);
    int (*image_remove)(void *ud, dval_call *c, const char *ref);
};

/* Initialises an executor struct (all members NULL). */
DVAL_API int dval_executor_init(struct dval_executor *ex, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DVAL_H */
