/* Local executor internals: one-machine Daytona from namespaces + overlayfs.
 * A sandbox's root is overlay(lower = its snapshot's build layer + the
 * snapshot's image, upper = the sandbox's own), never the host's root.
 * On-disk layout under the state dir:
 *   snapshots/<enc name>/{state,build.log,lock,lower,layer/,work/,mnt/,
 *                         rootfs/ (imported tar/oci), skel/ (host root)}
 *     lower: the image's lower layers (a rootfs path, or "host")
 *   sandboxes/<name>/{state,lock,upper/,work/,swork/,lower/,root/,plain/}
 * Under the image cache (lx_cache_dir: DVAL_LOCAL_CACHE_DIR, else
 * $XDG_CACHE_HOME/daytona-validate, else ~/.cache/daytona-validate),
 * shared by every state directory so a machine builds each image once:
 *   images/<key>/{lock,build.log,ok,format,rootfs/}
 *       key: debian-12, debian-13-java, debian-12-dotnet (image.c)
 *   oci/   images pulled from registries: blobs by digest, pins (pull.h) */
#ifndef DVAL_LOCAL_H
#define DVAL_LOCAL_H

#include <pthread.h>
#include <sys/types.h>

#include "internal.h"

struct lx_session;
struct lx_spare;

typedef struct lx {
    dval_log_fn log_fn;
    void *log_ud;
    int log_level;
    char *state_dir;
    char *helper;               /* path of dval-local-helper, or NULL */
    int allow_unisolated;
    int host_root;              /* dval_local_options.host_root */
    dval__backoff retry;        /* the client's retry policy (pulls) */
    int probed;                 /* 0 unknown, 1 isolated, -1 unavailable */
    char probe_msg[512];
    pthread_mutex_t lock;       /* guards sessions and probe */
    struct lx_session *sessions;
    struct lx_spare *spares;    /* dropped leases to reuse (also lock's) */
    int nspares;
    unsigned long next_cmd;
} lx;

#define LX_LOG(x, level, ...) \
    dval__log((x)->log_fn, (x)->log_ud, (x)->log_level, (level), __VA_ARGS__)

/* The format of the state this library writes: every snapshot's and
 * sandbox's state file records it as "format", and the disk templates
 * live under disks/f<format>/. A state file without one was written by
 * 1.0.0, whose layout is format 1, so that an upgrade keeps a user's
 * sandboxes. State of any other format is never read by guesswork: a
 * snapshot or a template (caches) is built anew, a sandbox (a user's
 * files) refused. Bump it with any change of a layout on disk. */
#define LX_STATE_FORMAT 1
/* The request format of a sandbox's init, recorded in the sandbox's state
 * as "init_proto" when its init starts (none: 1.0.0's, 1). A running init
 * of another one is stopped, not sent requests it would misread; the
 * sandbox's files stay and its next start is of this one. 2: a command
 * request names neither the init's pid, its cgroups nor a root. */
#define LX_INIT_PROTO 2
#define LX_STR_(x) #x
#define LX_STR(x) LX_STR_(x)
/* The disk templates' directory under the state dir (upper_disk.c). */
#define LX_DISKS "disks/f" LX_STR(LX_STATE_FORMAT)

/* ---- state_store.c: key=value files, paths, locks */
typedef struct lx_kv {
    char **keys;
    char **vals;
    size_t n;
} lx_kv;
int lx_kv_load(lx_kv *kv, const char *path);     /* DVAL_ENOTFOUND if absent */
int lx_kv_save(const lx_kv *kv, const char *path); /* atomic (rename) */
const char *lx_kv_get(const lx_kv *kv, const char *key);
long long lx_kv_num(const lx_kv *kv, const char *key, long long def);
int lx_kv_set(lx_kv *kv, const char *key, const char *val); /* replaces */
int lx_kv_add(lx_kv *kv, const char *key, const char *val); /* appends */
int lx_kv_setnum(lx_kv *kv, const char *key, long long v);
void lx_kv_free(lx_kv *kv);
/* 1 when kv records this library's state format (LX_STATE_FORMAT). */
int lx_kv_format_ok(const lx_kv *kv);
/* Filesystem-safe form of a snapshot name ("a/b:c" → "a%2Fb%3Ac"). */
void lx_encode_name(char *dst, size_t cap, const char *name);
int lx_mkdirs(const char *path, mode_t mode);
/* Removes everything in dir but the entry named keep. */
void lx_empty_dir(const char *dir, const char *keep);
int lx_rmtree(const char *path);
/* Writes text as the whole of path (mode 0644); fails the call if not. */
int lx_write_text(dval_call *c, const char *path, const char *text);
/* The first line of a file (no symlink followed) into dst; -1 when it
 * cannot be read or is empty (dst is then ""). */
int lx_read_text(const char *path, char *dst, size_t cap);
/* flock(LOCK_EX) on path, polling cancel_fd; returns fd or a status < 0. */
int lx_lock(dval_call *c, const char *path, int64_t timeout_ms);
void lx_unlock(int fd);
int64_t lx_wall_ms(void);
/* Reads /proc/<pid>/<what> (one read, NUL-terminated); 0 when absent. */
ssize_t lx_read_proc(pid_t pid, const char *what, char *buf, size_t cap);
/* Start time (clock ticks since boot) of a live, non-zombie pid; 0 when
 * it is gone, so a reused pid is told from the one recorded. */
unsigned long long lx_pid_start(pid_t pid);
/* Sleeps *us microseconds, then doubles it up to 10 ms: the wait for a
 * killed process, which is usually gone within a millisecond. */
void lx_pause_us(int *us);
/* Process-wide sequence number (>= 1) for unique temporary names. */
unsigned long lx_seq(void);
/* Removes what killed processes left in the state dir: probe.<pid>,
 * sandboxes/.new-* and .trash-* whose owner is dead. */
void lx_sweep_leftovers(const char *state_dir);

/* ---- sandbox_owned.c: isolation=sandbox sandboxes die with their owner */
/* 1 when the create options make an isolation=sandbox sandbox. */
int lx_owned(const dval_sandbox_options *o);
/* Marks sandbox name ours (1), or leaves an existing mark (0). */
int lx_owner_mark(const lx *x, const char *name);
void lx_owner_unmark(const lx *x, const char *name);
/* Deletes the marked sandboxes whose owner process is gone. */
void lx_owner_sweep(lx *x);

/* ---- local.c */
/* DVAL_OK when namespaces + overlayfs work (or unisolated is allowed, then
 * *isolated = 0); DVAL_EISOLATION with c->errmsg otherwise. */
int lx_isolation(lx *x, dval_call *c, int *isolated);
/* posix_spawn()s the helper with argv (argv[0] is set here) in a session
 * of its own (so kill(-pid) reaches what it forks). fds: the child's fd
 * 0..2 (-1 → /dev/null). */
int lx_spawn(lx *x, dval_call *c, char **argv,
             const int fds[3], pid_t *pid);
/* lx_spawn with the helper's stdout and stderr into one pipe, whose read
 * end goes to *rd (the caller closes it). */
int lx_spawn_output(lx *x, dval_call *c, char **argv, pid_t *pid, int *rd);
/* Waits for a child, polling cancel; 128+N on signal. */
int lx_wait(pid_t pid, int *code);
/* Runs the helper with argv and reads what it prints (stdout and stderr)
 * into out until it closes them, within 30 s (then it is killed); *code
 * is its exit status, 1 when it did not run. */
int lx_helper_reply(lx *x, dval_call *c, char **argv, char *out, size_t cap,
                    int *code);

/* ---- limits.c: cgroups (v2 with memory+pids, else v1), else rlimits */
typedef struct lx_limits {
    long long pids, mem, cpu_ms;
    int cpus;                   /* CPU quota in CPUs, 0 = none */
    char procs[3][4096];        /* cgroup.procs files to join */
    int nprocs;
    int rl_as, rl_nproc;        /* enforce with setrlimit instead */
} lx_limits;
/* Prepares cgroups for sandbox key; logs any limit not enforced. */
void lx_limits_setup(lx *x, const char *key, lx_limits *l);
void lx_limits_remove(const char *key);
/* Appends a command's limit options (-c/-C/-m/-n) for l to argv at *n. */
void lx_limits_args(const lx_limits *l, char **argv, int *n,
                    char bufs[4][32]);

/* ---- cmd_cgroup.c: a cgroup per command (session.h) */
/* Calls fn on each pid listed in procs (a sandbox's cgroup.procs file)
 * and in its commands' cgroups; the sum of what fn returned. */
int lx_cg_each_pid(const char *procs, int (*fn)(int pid, void *ud),
                   void *ud);
/* cmd_usage.c: the members session_limits and command_usage into ex. */
void lx_cmd_limits_install(struct dval_executor *ex);

/* ---- sandbox_state.c (state, init process) and sandbox.c (members) */
typedef struct lx_sb {
    char dir[4096];
    lx_kv kv;
    int isolated;
    pid_t pid;                  /* live init pid, 0 when not running */
    int locked;                 /* the caller holds <dir>/lock */
} lx_sb;
/* Loads a sandbox without its lock, refreshing its state (dead init →
 * error, idle → stopped): such a change is written under the lock, after
 * reloading and checking again. Fills info when non-NULL. */
int lx_sb_open(lx *x, dval_call *c, const char *id, lx_sb *sb,
               dval_sandbox_info *info);
/* The same for a caller that already holds the sandbox's lock. */
int lx_sb_open_held(lx *x, dval_call *c, const char *id, lx_sb *sb,
                    dval_sandbox_info *info);
void lx_sb_close(lx_sb *sb);
/* Records activity (for auto-stop) in the mtime of <dir>/activity: no
 * read-modify-write of the state file, so no lock is needed and a
 * concurrent state change is never undone. */
void lx_sb_touch(lx_sb *sb);
/* Requires a started sandbox: DVAL_ESTATE otherwise. */
int lx_sb_require_started(dval_call *c, const lx_sb *sb);
void lx_sb_limits(lx *x, const lx_sb *sb, lx_limits *l);
int lx_sb_path(lx *x, dval_call *c, const char *id, char *dir, size_t cap);
void lx_sb_info(const lx_sb *sb, dval_sandbox_info *info); /* NULL ok */
int lx_sb_set_state(lx_sb *sb, int state, const char *reason);
/* Kills the init (and with it every process of the sandbox). */
void lx_sb_kill(lx *x, lx_sb *sb);
/* Starts the init (or, unisolated, prepares the plain directory). */
int lx_sb_start(lx *x, dval_call *c, lx_sb *sb);
/* Drops what a sandbox keeps of its uses (sandbox.c): the uid table, the
 * workdir claims but a spare, and with image its writable disk. */
int lx_sb_forget_uses(lx *x, dval_call *c, lx_sb *sb, int image);
/* Before a start (sandbox_boot.c): a layer of an earlier boot is
 * forgotten (a fresh disk, an empty uid table); records this boot. */
int lx_sb_boot_check(lx *x, dval_call *c, lx_sb *sb);

int lx_sandbox_get(void *ud, dval_call *c, const char *id,
                   dval_sandbox_info *out);
int lx_sandbox_create(void *ud, dval_call *c, const dval_sandbox_options *o,
                      dval_sandbox_info *out);
int lx_sandbox_start(void *ud, dval_call *c, const char *id,
                     dval_sandbox_info *out);
int lx_sandbox_stop(void *ud, dval_call *c, const char *id,
                    dval_sandbox_info *out);
int lx_sandbox_delete(void *ud, dval_call *c, const char *id);
/* The guaranteed reset for reuse (sandbox.c). */
int lx_sandbox_reset(void *ud, dval_call *c, const char *id);
int lx_sandbox_recover(void *ud, dval_call *c, const char *id,
                       dval_sandbox_info *out);
int lx_sandbox_list(void *ud, dval_call *c, const char *const *labels,
                    dval_sandbox_info_fn each, void *each_ud);

/* ---- init_socket.c: the sandbox init's socket (<sbdir>/reset.sock) */
/* A connection to it, or -1 with errno (absent, backlog full: EAGAIN). */
int lx_init_connect(const lx_sb *sb);
/* One message on s once readable, before end (monotonic ms); -1 on
 * timeout or cancellation (c->cancel_fd readable). */
ssize_t lx_init_recv(int s, dval_call *c, int64_t end, char *buf,
                     size_t cap);
/* Has the init start a command: args the request's words (from
 * LX_VERB_EXEC on, NULL-terminated), out and err the command's output;
 * *ctl the command's connection (exit code: one byte; closing it or
 * shutting it down kills the command). */
int lx_init_exec(dval_call *c, const lx_sb *sb, char **args, int out,
                 int err, int *ctl);

/* ---- build_io.c: build output to the log and the callback */
typedef struct lx_build_io {
    int logfd;                  /* the build log, or -1 */
    struct lx_build_io *also;   /* a further log the output also goes to */
    dval_chunk_fn log;          /* the build-log callback, fed whole lines */
    void *log_ud;
    int stopped;                /* the callback returned non-zero */
    char last[512];             /* last line, for error_reason */
    char part[4096];            /* a line not yet complete */
    size_t npart;
} lx_build_io;
int lx_io_write(lx_build_io *io, const char *d, size_t n);
void lx_io_flush(lx_build_io *io);
/* A line of the library's own (ending in '\n'), written and flushed. */
void lx_io_line(lx_build_io *io, const char *line);
/* Runs one helper invocation, its output into io; *code is its exit. */
int lx_run_step(lx *x, dval_call *c, char **argv, int64_t end,
                lx_build_io *io, int *code);

/* ---- services.c: a snapshot's shared profile services */
/* 0 and base (<snapshot>/services, made) when a root caller's sandbox
 * over layer ("<snapshot>/layer:<image>") gets shared services. */
int lx_services_base(const char *layer, char *base, size_t cap);
/* Starts the snapshot's services host unless one runs. */
void lx_services_start(lx *x, dval_call *c, const char *base,
                       const char *layer);

/* ---- image.c, image_import.c: the roots sandboxes run on */
/* The Debian images first (lx_image_is_debian), then the imports. */
enum { LX_IMG_BASE, LX_IMG_JAVA, LX_IMG_DOTNET, LX_IMG_DIR, LX_IMG_TAR,
       LX_IMG_OCI, LX_IMG_PULL };
#define lx_image_is_debian(kind) ((kind) <= LX_IMG_DOTNET)
/* How a pull went, for a caller with another image to fall back to. */
typedef struct lx_pull_opts {
    int quick;          /* in: a registry that never answers fails at once,
                           not after the retry policy's attempts */
    int no_answer;      /* out: 1 it did not (no HTTP response at all), 2
                           DVAL_LOCAL_PULL=never kept it from being asked */
    char why[256];      /* out: what the transport said, when no_answer */
    char manifest[72];  /* out: the linux/amd64 manifest's digest */
} lx_pull_opts;
typedef struct lx_image {
    int kind;
    char path[4096];            /* dir/tar/oci: the source; pull: the name */
    lx_pull_opts *pull;         /* pull: NULL, or how it goes */
} lx_image;
/* 1 when the client opted in (dval_local_options.host_root) or the
 * environment has DVAL_LOCAL_HOST_ROOT=1 (the only reader of either). */
int lx_host_root_opt_in(const lx *x);
int lx_cache_dir(char *dst, size_t cap);
/* <image cache>/<sub>; fails the call when there is no image cache. */
int lx_cache_path(dval_call *c, const char *sub, char *dst, size_t cap);
/* The first executable prog on PATH (else the usual PATH) into dst; -1
 * when there is none. */
int lx_which(const char *prog, char *dst, size_t cap);
/* Maps a spec's image name; DVAL_EUNSUPPORTED names what is supported. */
int lx_image_parse(dval_call *c, const char *image, lx_image *out);
/* The host's .NET SDK (image_dotnet.c): its root and highest 10.x SDK
 * version; -1 when the host has none. */
int lx_host_dotnet(char *root, size_t cap, char *ver, size_t vcap);
/* The host's NuGet configuration file for snapshot builds (build_nuget.c);
 * -1 when there is none to give them. */
int lx_host_nuget_config(char *path, size_t cap);
/* The machine's build cache directory (build_nuget.c), made if needed:
 * <image cache>/build; -1 when there is none to give a build. */
int lx_build_cache(char *path, size_t cap);
/* DVAL_OK when the dotnet image's host copy (debian-12-dotnet) is cached
 * or can be built here; else why not, after registry (what the registry
 * did, or ""). */
int lx_image_host_copy(dval_call *c, const char *registry);
/* The highest sdk/10.* of the .NET installation in root (image_dotnet.c);
 * -1 when it has none. */
int lx_dotnet_sdk_version(const char *root, char *ver, size_t cap);

/* ---- image_choice.c: the dotnet profile's image, pulled when its
 * registry answers, else Debian 12 with the host's SDK; the choice said
 * in the build log and recorded in <snapdir>/image */
int lx_image_choose(lx *x, dval_call *c, const char *snapdir,
                    const char *image, int64_t end, lx_build_io *io,
                    char *lower, size_t cap);
/* DVAL_OK when the image is cached or can be built here (the dotnet
 * image: cached, this machine's SDK, or a registry that answers, asked
 * once, briefly); else why not (DVAL_EUNSUPPORTED). */
int lx_image_can_build(lx *x, dval_call *c, const lx_image *img);
/* Builds (once, under the cache lock) or finds a Debian image. */
int lx_image_debian(lx *x, dval_call *c, int which, int64_t end,
                    lx_build_io *fwd, char *rootfs, size_t cap);
/* The image of a sandbox without a snapshot: a Debian image; an
 * imported one needs a snapshot (DVAL_EUNSUPPORTED). */
int lx_image_unsnapshotted(dval_call *c, const char *image, lx_image *img);
/* The root of a sandbox without a snapshot: "host", or the Debian image
 * its image names (NULL: the base); an imported image needs a snapshot
 * (DVAL_EUNSUPPORTED). */
int lx_default_root(lx *x, dval_call *c, const char *image, char *dst,
                    size_t cap);
/* Imports a dir/tar/oci source for the snapshot in snapdir; dst gets the
 * lower directory. */
int lx_image_import(lx *x, dval_call *c, const char *snapdir,
                    const lx_image *img, int64_t end, lx_build_io *io,
                    char *dst, size_t cap);

/* ---- pull.c (and pull_*.c, see pull.h): a registry image's layers,
 * linux/amd64, verified and cached (the image cache's oci/), into
 * paths[*n...] (at most max), for the helper's OCI import. */
int lx_pull_layers(lx *x, dval_call *c, const char *image, int64_t end,
                   lx_build_io *io, lx_pull_opts *o, char (*paths)[4200],
                   int max, int *n);
/* DVAL_OK when image is in the cache (pinned, its manifest there) or its
 * registry answers one request (any status), made as a quick pull's; else
 * DVAL_ENETWORK with o->no_answer and o->why. */
int lx_pull_probe(lx *x, dval_call *c, const char *image, lx_pull_opts *o);
/* The blobs (digests, "sha256:<hex>") the cached image uses, read from
 * its manifest in the cache (DVAL_ENOTFOUND when that is not there). */
int lx_pull_blobs_of(lx *x, dval_call *c, const char *image,
                     const char *manifest, char (*out)[72], int max, int *n);

/* ---- snapshot_build.c */
int lx_snapshot_get(void *ud, dval_call *c, const char *id,
                    dval_snapshot_info *out);
int lx_snapshot_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log,
                       void *log_ud);
int lx_snapshot_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out);
int lx_snapshot_delete(void *ud, dval_call *c, const char *id);
int lx_snapshot_logs(void *ud, dval_call *c, const char *id, uint64_t from,
                     dval_chunk_fn log, void *log_ud);
/* The lowerdir list of an active snapshot (for sandboxes): "layer:image"
 * or "host:layer"; with name NULL or "", the default root of image.
 * DVAL_ESTATE for a snapshot built unisolated: it has no image. */
int lx_snapshot_layer(lx *x, dval_call *c, const char *name,
                      const char *image, char *dst, size_t cap);
/* DVAL_OK when snapshot name is active (what an unisolated sandbox
 * needs of it: it runs on the host, over no image). */
int lx_snapshot_active(lx *x, dval_call *c, const char *name);
/* The "lower" of a snapshot built unisolated: its steps ran on the host */
#define LX_LOWER_NONE "none"

/* ---- session.c */
int lx_session_create(void *ud, dval_call *c, const char *sb,
                      const char *sid);
int lx_sandbox_sessions(void *ud, dval_call *c, const char *sb,
                        const char *prefix, int *count);
int lx_session_delete(void *ud, dval_call *c, const char *sb,
                      const char *sid);
int lx_command_start(void *ud, dval_call *c, const dval_command *cmd,
                     char *cmd_id);
int lx_command_status(void *ud, dval_call *c, const char *sb,
                      const char *sid, const char *cmd_id, int *finished,
                      int *exit_code);
/* The command's pipes: a reopened stream goes on where the last one
 * stopped, so there is nothing to skip (out_from, err_from unused). */
int lx_stream_open(void *ud, dval_call *c, const char *sb, const char *sid,
                   const char *cmd_id, uint64_t out_from, uint64_t err_from,
                   void **stream);
int lx_stream_read(void *ud, dval_call *c, void *stream, dval_chunk_fn sink,
                   void *sink_ud, int *closed);
void lx_stream_close(void *ud, void *stream);
int lx_command_cancel(void *ud, dval_call *c, const char *sb, const char *sid,
                      const char *cmd_id);
/* Kills and forgets every session of a sandbox (stop/delete). */
void lx_sessions_drop(lx *x, const char *sb);
void lx_sessions_free(lx *x);

/* ---- host_paths.c: an unisolated sandbox's paths on the host */
typedef struct lx_host_paths {
    char *cwd;                  /* <sbdir>/plain<cwd>; NULL: cwd relative */
    char **env;                 /* a copy, values under /sandbox mapped */
} lx_host_paths;
/* Maps cwd (may be NULL) and env (may be NULL) of a command of the
 * unisolated sandbox whose directory is sbdir; DVAL_ENOMEM. */
int lx_host_paths_map(const char *sbdir, const char *cwd,
                      const char *const *env, lx_host_paths *out);
void lx_host_paths_free(lx_host_paths *p);

/* ---- uid_ranges.c: the sandbox's own range of host uids (see the
 * file). Takes (or takes back) the range recorded in sb's state, else a
 * free one, and records it (root callers; DVAL_EISOLATION when no
 * registry can be written or every range is taken). */
int lx_uid_range_take(lx *x, dval_call *c, lx_sb *sb);
/* Gives the range back (the sandbox is being deleted). */
void lx_uid_range_drop(lx *x, const lx_sb *sb);
/* The first host uid of the sandbox's range. */
long lx_uid_base(const lx_sb *sb);

/* ---- sandbox_uids.c: per-validation host uids (see the file) */
/* The uid for a command or file under /sandbox/<top> ("": elsewhere) of
 * sandbox sb (root: rootfd): -1 when the caller is not root or the
 * sandbox is not isolated. Makes /sandbox/<top> that uid's. */
int lx_uid_for(lx *x, dval_call *c, const lx_sb *sb, int rootfd,
               const char *top, long *uid);
int lx_uid_alloc(dval_call *c, const lx_sb *sb, const char *name,
                 long *uid);
/* Empties the sandbox's uid table (a reset: no process or file of any
 * earlier uid is left, so the slots may serve again). */
int lx_uid_forget(dval_call *c, const char *sbdir);
/* The claims directory's spare (files_list.c): a released claim a reset
 * kept, which the next claim takes by rename. A name no thread id can
 * have ('+'). Why: a file made per validation is a new inode on the
 * host's filesystem, whose allocator scans past recently deleted ones
 * (a cost that grows with the number of validations at once). */
#define LX_CLAIM_SPARE "+spare"
/* The mark of a sandbox whose every per-validation uid was given: it is
 * retired (error, not recoverable) at its next open. */
#define LX_UIDS_FULL "uids.full"
int lx_uids_used_up(const lx_sb *sb);
/* sandbox_reset.c: the reset that keeps the init and its namespaces;
 * DVAL_OK, or not done (the caller then does the full reset). */
int lx_sb_reset_fast(lx *x, dval_call *c, lx_sb *sb);
/* /sandbox/<top> a directory of uid's, group gid (the range's base). */
int lx_top_ensure(dval_call *c, int rootfd, const char *top, long uid,
                  long gid);
void lx_top_of(const char *abs, int file, char *top, size_t cap);

/* ---- files_confined.c */
/* openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) of rel under root. */
int lx_open_in(int root, const char *rel, int flags, mode_t mode);
int lx_file_upload(void *ud, dval_call *c, const char *sb, const char *path,
                   dval_read_fn src, void *src_ud, int64_t size);
int lx_file_download(void *ud, dval_call *c, const char *sb, const char *path,
                     dval_data_fn sink, void *sink_ud);
int lx_folder_create(void *ud, dval_call *c, const char *sb,
                     const char *path);

#endif
