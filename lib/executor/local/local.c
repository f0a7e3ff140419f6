/* The local executor: a one-machine Daytona built from Linux namespaces and
 * overlayfs. This file holds the vtable, the helper lookup and spawning,
 * and the isolation probe. */
#include "local.h"
#include "files_list.h"
#include "profile_local.h"
#include "snapshot_list.h"
#include "image_cache.h"
#include "protocol.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_exec(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
           access(p, X_OK) == 0;
}

static char *find_helper(void)
{
    const char *env = getenv("DVAL_LOCAL_HELPER");
    if (env && *env)
        return dval__strdup(env);
    char self[4096] = "";
    Dl_info info;
    if (dladdr((void *)find_helper, &info) && info.dli_fname &&
        strchr(info.dli_fname, '/'))
        dval__fmt(self, sizeof self, "%s", info.dli_fname);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char *bases[] = { self, exe };
    for (int i = 0; i < 2; i++) {
        char real[4096], cand[4200];
        if (!bases[i][0] || !realpath(bases[i], real))
            continue;
        char *dir = dirname(real);
        dval__fmt(cand, sizeof cand, "%s/../libexec/dval-local-helper", dir);
        if (is_exec(cand))
            return dval__strdup(cand);
        dval__fmt(cand, sizeof cand,
                  "%s/../libexec/daytona-validate/dval-local-helper", dir);
        if (is_exec(cand))
            return dval__strdup(cand);
    }
    return dval__strdup(DVAL_LIBEXECDIR "/dval-local-helper");
}

/* The helper's environment, from an allow-list: never the caller's (its
 * API keys would be readable in /proc/<pid>/environ of the sandbox's
 * init). Builds and image builds (mmdebstrap) also get the proxy
 * settings they may need, builds the host's NuGet configuration and the
 * machine's build cache. */
static void helper_env(char **env, size_t cap, char bufs[][4200],
                       const char *mode)
{
    static const char *pass[] = { "http_proxy", "https_proxy", "no_proxy",
                                  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY" };
    size_t n = 0, b = 0;
    env[n++] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
               "/sbin:/bin";
    env[n++] = "LANG=C.UTF-8";
    env[n++] = geteuid() == 0 ? "HOME=/root" : "HOME=/";
    dval__fmt(bufs[b], sizeof bufs[b], LX_ENV_PARENT "=%d",
              (int)getpid());
    env[n++] = bufs[b++];
    int build = mode && (!strcmp(mode, LX_VERB_BUILD) ||
                         !strcmp(mode, LX_VERB_MKIMAGE));
    for (size_t i = 0; build &&
         i < sizeof pass / sizeof *pass && n + 1 < cap; i++) {
        const char *v = getenv(pass[i]);
        if (v && strlen(v) < 4000) {
            dval__fmt(bufs[b], sizeof bufs[b], "%s=%s", pass[i], v);
            env[n++] = bufs[b++];
        }
    }
    char dir[4096];
    int steps = !strcmp(mode ? mode : "", LX_VERB_BUILD);
    if (steps && n + 1 < cap && lx_host_nuget_config(dir, sizeof dir) == 0) {
        dval__fmt(bufs[b], sizeof bufs[b], LX_ENV_NUGET "=%s", dir);
        env[n++] = bufs[b++];
    }
    if (steps && n + 1 < cap && lx_build_cache(dir, sizeof dir) == 0) {
        dval__fmt(bufs[b], sizeof bufs[b], LX_ENV_BUILD_CACHE "=%s", dir);
        env[n++] = bufs[b++];
    }
    env[n] = NULL;
}

/* The helper sets PR_SET_PDEATHSIG itself (posix_spawn has no attribute
 * for it), so it dies with the *thread* that spawned it: a command is
 * started and finished within one call on one thread (dval_session_exec
 * is synchronous), so that thread outlives it; a caller SIGKILLed takes
 * every helper, and through them every command, along. */
int lx_spawn(lx *x, dval_call *c, char **argv,
             const int fds[3], pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    char *env[16], bufs[10][4200];
    argv[0] = x->helper;
    helper_env(env, sizeof env / sizeof *env, bufs, argv[1]);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    /* its own session: no controlling terminal (the caller's tty would
     * let a program type into the user's shell), and kill(-pid) reaches
     * the helper's whole process group */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
                             POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
    for (int i = 0; i < LX_FD_SPAWNED; i++) {
        if (fds[i] >= 0)
            posix_spawn_file_actions_adddup2(&fa, fds[i], i);
        else /* never inherit whatever the caller has open there */
            posix_spawn_file_actions_addopen(&fa, i, "/dev/null", O_RDWR, 0);
    }
    int rc = posix_spawn(pid, x->helper, &fa, &at, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0)
        return dval__call_fail(c, DVAL_EEXEC, "cannot run %s: %s", x->helper,
                               strerror(rc));
    return DVAL_OK;
}

int lx_wait(pid_t pid, int *code)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return DVAL_EEXEC;
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return DVAL_OK;
}

/* Reads what the helper prints until it closes its end, within 30 s. */
static int read_reply(dval_call *c, int fd, char *out, size_t cap)
{
    size_t n = 0;
    int64_t end = dval__now_ms() + 30000;
    for (;;) {
        struct pollfd p[2] = { { fd, POLLIN, 0 },
                               { c ? c->cancel_fd : -1, POLLIN, 0 } };
        int64_t left = end - dval__now_ms();
        if (left <= 0)
            return DVAL_ETIMEOUT;
        if (poll(p, 2, (int)left) < 0 && errno != EINTR)
            return DVAL_EEXEC;
        if (p[1].revents & POLLIN)
            return DVAL_ECANCELED;
        if (p[0].revents) {
            ssize_t r = read(fd, out + n, cap - 1 - n);
            if (r < 0 && errno == EINTR) /* a host's signal: read on */
                continue;
            if (r <= 0 || (n += (size_t)r) + 1 >= cap)
                break;
        }
    }
    out[n] = 0;
    return DVAL_OK;
}

int lx_spawn_output(lx *x, dval_call *c, char **argv, pid_t *pid, int *rd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return dval__call_fail(c, DVAL_EEXEC, "pipe: %s", strerror(errno));
    int fds[LX_FD_SPAWNED] = { -1, p[1], p[1] }; /* stdout and stderr:
                                                  * one pipe */
    int rc = lx_spawn(x, c, argv, fds, pid);
    close(p[1]);
    if (rc != DVAL_OK)
        close(p[0]);
    else
        *rd = p[0];
    return rc;
}

int lx_helper_reply(lx *x, dval_call *c, char **argv, char *out, size_t cap,
                    int *code)
{
    pid_t pid;
    int rd;
    memset(out, 0, cap); /* ended however the reading stops */
    *code = 1;
    int rc = lx_spawn_output(x, c, argv, &pid, &rd);
    if (rc != DVAL_OK)
        return rc;
    rc = read_reply(c, rd, out, cap);
    if (rc != DVAL_OK)
        kill(pid, SIGKILL);
    lx_wait(pid, code);
    close(rd);
    return rc;
}

/* Runs "helper probe <tmp>": namespaces + an overlay over the host root. */
static int probe(lx *x, char *msg, size_t cap)
{
    if (!is_exec(x->helper)) {
        dval__fmt(msg, cap, "helper executable %s not found (set "
                  "DVAL_LOCAL_HELPER)", x->helper);
        return -1;
    }
    char tmp[4096], d[4200];
    dval__fmt(tmp, sizeof tmp, "%s/probe.%d", x->state_dir, (int)getpid());
    const char *sub[] = { "m", "u", "w" };
    for (int i = 0; i < 3; i++) {
        dval__fmt(d, sizeof d, "%s/%s", tmp, sub[i]);
        if (lx_mkdirs(d, 0700) < 0) {
            dval__fmt(msg, cap, "cannot create %s: %s", d, strerror(errno));
            return -1;
        }
    }
    char *argv[] = { NULL, LX_VERB_PROBE, tmp, NULL };
    char out[512];
    int code;
    lx_helper_reply(x, NULL, argv, out, sizeof out, &code);
    lx_rmtree(tmp);
    if (code == 0 && !strncmp(out, LX_REPLY_OK, strlen(LX_REPLY_OK)))
        return 0;
    out[strcspn(out, "\n")] = 0;
    if (!out[0])
        dval__fmt(out, sizeof out, "the probe exited with code %d", code);
    dval__fmt(msg, cap, "isolation unavailable (%s)",
              strncmp(out, LX_REPLY_ERR, strlen(LX_REPLY_ERR)) ? out
              : out + strlen(LX_REPLY_ERR));
    return -1;
}

int lx_isolation(lx *x, dval_call *c, int *isolated)
{
    pthread_mutex_lock(&x->lock);
    if (!x->probed)
        x->probed = probe(x, x->probe_msg, sizeof x->probe_msg) == 0 ? 1 : -1;
    int ok = x->probed == 1;
    pthread_mutex_unlock(&x->lock);
    *isolated = ok;
    if (ok)
        return DVAL_OK;
    if (x->allow_unisolated && is_exec(x->helper)) {
        LX_LOG(x, DVAL_LOG_WARN, "local executor: %s; running UNISOLATED "
               "(allow_unisolated is set)", x->probe_msg);
        return DVAL_OK;
    }
    return dval__call_fail(c, DVAL_EISOLATION, "local executor: %s; user/"
                           "mount/pid namespaces, overlayfs and seccomp are "
                           "required "
                           "(or allow unisolated execution)", x->probe_msg);
}

static void destroy(void *ud)
{
    lx *x = ud;
    if (!x)
        return;
    lx_sessions_free(x);
    pthread_mutex_destroy(&x->lock);
    dval__free(x->state_dir);
    dval__free(x->helper);
    dval__free(x);
}

static char *default_state_dir(void)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    char p[4096];
    if (xdg && xdg[0] == '/')
        dval__fmt(p, sizeof p, "%s/daytona-validate", xdg);
    else if (home && home[0] == '/')
        dval__fmt(p, sizeof p, "%s/.local/state/daytona-validate", home);
    else
        return NULL;
    return dval__strdup(p);
}

static void fill(struct dval_executor *out, lx *x)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->name = "local";
    out->userdata = x;
    out->destroy = destroy;
    out->snapshot_get = lx_snapshot_get;
    out->snapshot_create = lx_snapshot_create;
    out->snapshot_activate = lx_snapshot_activate;
    out->snapshot_delete = lx_snapshot_delete;
    out->snapshot_logs = lx_snapshot_logs;
    out->sandbox_get = lx_sandbox_get;
    out->sandbox_create = lx_sandbox_create;
    out->sandbox_start = lx_sandbox_start;
    out->sandbox_stop = lx_sandbox_stop;
    out->sandbox_delete = lx_sandbox_delete;
    out->sandbox_recover = lx_sandbox_recover;
    out->sandbox_reset = lx_sandbox_reset;
    out->sandbox_list = lx_sandbox_list;
    out->session_create = lx_session_create;
    out->session_delete = lx_session_delete;
    out->sandbox_sessions = lx_sandbox_sessions;
    out->command_start = lx_command_start;
    out->command_status = lx_command_status;
    out->stream_open = lx_stream_open;
    out->stream_read = lx_stream_read;
    out->stream_close = lx_stream_close;
    out->command_logs = NULL;
    out->file_upload = lx_file_upload;
    out->file_download = lx_file_download;
    out->folder_create = lx_folder_create;
    out->command_cancel = lx_command_cancel;
    lx_files_list_install(out);
    lx_cmd_limits_install(out);
    lx_profile_install(out);
    lx_snapshot_list_install(out);
    lx_image_cache_install(out);
}

int dval__local_executor(struct dval_executor *out, const dval__config *cfg,
                         const dval_local_options *opts, char *err,
                         size_t errlen)
{
    if (!out || !cfg || !opts) {
        dval__fmt(err, errlen, "local executor: missing arguments");
        return DVAL_EINVAL;
    }
    lx *x = dval__calloc(1, sizeof *x);
    if (!x)
        return DVAL_ENOMEM;
    pthread_mutex_init(&x->lock, NULL);
    x->log_fn = cfg->log_fn;
    x->log_ud = cfg->log_userdata;
    x->log_level = cfg->log_level;
    x->allow_unisolated = opts->allow_unisolated != 0;
    x->host_root = opts->host_root != 0;
    x->retry = cfg->retry;
    dval__backoff_defaults(&x->retry);
    x->state_dir = opts->state_dir && *opts->state_dir
                       ? dval__strdup(opts->state_dir) : default_state_dir();
    x->helper = opts->helper_path && *opts->helper_path
                    ? dval__strdup(opts->helper_path) : find_helper();
    if (!x->state_dir || !x->helper) {
        dval__fmt(err, errlen, x->state_dir ? "out of memory"
                  : "local executor: no state directory (set HOME or "
                    "XDG_STATE_HOME)");
        int rc = x->state_dir ? DVAL_ENOMEM : DVAL_EINVAL;
        destroy(x);
        return rc;
    }
    char d[4200];
    dval__fmt(d, sizeof d, "%s/sandboxes", x->state_dir);
    int bad = lx_mkdirs(d, 0700) < 0;
    dval__fmt(d, sizeof d, "%s/snapshots", x->state_dir);
    bad |= lx_mkdirs(d, 0700) < 0;
    if (bad) {
        dval__fmt(err, errlen, "local executor: cannot create %s: %s", d,
                  strerror(errno));
        destroy(x);
        return DVAL_EIO;
    }
    char real[4096];
    if (realpath(x->state_dir, real)) {
        char *r = dval__strdup(real);
        if (r) {
            dval__free(x->state_dir);
            x->state_dir = r;
        }
    }
    LX_LOG(x, DVAL_LOG_DEBUG, "local executor: state %s, helper %s",
           x->state_dir, x->helper);
    fill(out, x);
    return DVAL_OK;
}
