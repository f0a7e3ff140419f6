/* dval_validate(): the whole validation loop on top of the public
 * lifecycle API (snapshot → sandbox → session → upload → exec → download
 * → close), with progress events and a JSON summary.
 *
 * Only public dval_* calls reach the executor from here, so a host that
 * writes its own loop gets exactly the same behaviour. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "core.h"
#include "recover.h"
#include "service_start.h"
#include "workdir.h"

extern char **environ;

#define MAX_DEPTH 64
/* results listing written by the run command's trailer (in the workdir,
 * outside results/ so it is never taken for a result) */
#define LISTING ".dval-results-list"

typedef struct vctx {
    dval_client *client;
    dval_validation req;
    const dval_profile *prof;
    dval_event_fn on_event;
    void *ud;
    int aborted;            /* the event callback asked to stop */
    int local;              /* running on the local executor */
    char thread_id[160];
    char workdir[256];
    char resdir[256];
    dval_snapshot *snap;
    dval_sandbox *sb;
    dval_session *sess;
    char sess_id[DVAL_ID_MAX];
    char sb_name[DVAL_ID_MAX];  /* the sandbox really used (isolation) */
    void *claim;            /* the executor's claim on workdir, or NULL */
    int in_exec;            /* the program was started (output may exist) */
    int ran;                /* the run command finished with an exit code */
    int exit_code;
    size_t files, bytes;    /* uploaded */
    char root[PATH_MAX];    /* realpath of source_dir */
    json_t *timings;
    json_t *results;
    json_t *errors;
} vctx;

/* ---- events */

static int emit(vctx *v, dval_event *ev)
{
    if (!v->on_event || v->aborted)
        return v->aborted;
    ev->struct_size = sizeof *ev;
    const dval_client *prev = dval__cb_enter(v->client);
    if (v->on_event(ev, v->ud))
        v->aborted = 1;
    dval__cb_leave(prev);
    return v->aborted;
}

static int phase_start(vctx *v, const char *phase, int64_t *t0)
{
    *t0 = dval__now_ms();
    dval_event ev = {0};
    ev.type = DVAL_EVENT_PHASE;
    ev.phase = phase;
    return emit(v, &ev) ? DVAL_EABORTED : DVAL_OK;
}

/* Records the phase's duration and reports it; an abort request turns a
 * success into DVAL_EABORTED. */
static int phase_done(vctx *v, const char *phase, int64_t t0, int status,
                      const char *detail)
{
    int64_t ms = dval__now_ms() - t0;
    json_object_set_new(v->timings, phase, json_integer(ms));
    dval_event ev = {0};
    ev.type = DVAL_EVENT_PHASE;
    ev.phase = phase;
    ev.done = 1;
    ev.status = status;
    ev.elapsed_ms = ms;
    ev.detail = detail;
    if (emit(v, &ev) && status == DVAL_OK)
        return DVAL_EABORTED;
    return status;
}

static int on_build_log(const char *data, size_t len, void *ud)
{
    vctx *v = ud;
    dval_event ev = {0};
    ev.type = DVAL_EVENT_BUILD_LOG;
    ev.phase = "snapshot";
    ev.data = data;
    ev.len = len;
    return emit(v, &ev);
}

static void on_state(const char *name, int state, void *ud)
{
    vctx *v = ud;
    dval_event ev = {0};
    ev.type = DVAL_EVENT_STATE;
    ev.phase = "sandbox";
    ev.state = state;
    ev.detail = name;
    emit(v, &ev);
}

static int on_output(int stream, const char *channel, const char *data,
                     size_t len, void *ud)
{
    vctx *v = ud;
    dval_event ev = {0};
    ev.type = DVAL_EVENT_OUTPUT;
    ev.phase = "exec";
    ev.stream = stream;
    ev.channel = channel;
    ev.data = data;
    ev.len = len;
    return emit(v, &ev);
}

/* ---- errors: "<phase>: <detail>" on the client */

static int fail(vctx *v, int rc, const char *phase, const char *detail)
{
    char copy[DVAL_ERRMSG_MAX];
    /* detail may point into the client's own errmsg buffer */
    dval__strlcpy(copy, detail && *detail ? detail : dval_strerror(rc),
                  sizeof copy);
    if (rc == DVAL_EABORTED && v->aborted)
        dval__strlcpy(copy, "stopped by the event callback", sizeof copy);
    dval__client_seterr(v->client, "%s: %s", phase, copy);
    return rc;
}

static void note_error(vctx *v, const char *fmt, const char *a, const char *b)
{
    char msg[DVAL_ERRMSG_MAX];
    dval__fmt(msg, sizeof msg, fmt, a, b);
    json_array_append_new(v->errors, json_string(msg));
}

/* ---- request */

static int check_request(vctx *v, const dval_validation *req)
{
    int rc = dval__opts_copy(&v->req, sizeof v->req, req,
                             offsetof(dval_validation, thread_id));
    if (rc)
        return fail(v, rc, "request", "struct_size is not one this library "
                    "knows (use dval_validation_init)");
    if (!v->req.profile || !v->req.source_dir)
        return fail(v, DVAL_EINVAL, "request",
                    "profile and source_dir are required");
    v->prof = dval_profile_find(v->req.profile);
    if (!v->prof) {
        char msg[300];
        dval__fmt(msg, sizeof msg, "unknown profile \"%s\"", v->req.profile);
        return fail(v, DVAL_EINVAL, "request", msg);
    }
    if (v->req.thread_id) {
        dval__strlcpy(v->thread_id, v->req.thread_id, sizeof v->thread_id);
    } else {
        uuid_t u;
        uuid_generate_random(u);
        uuid_unparse_lower(u, v->thread_id);
    }
    char msg[256];
    if (dval__check_component("thread id", v->thread_id, msg, sizeof msg))
        return fail(v, DVAL_EINVAL, "request", msg);
    if (v->req.isolation != DVAL_ISOLATION_SESSION &&
        v->req.isolation != DVAL_ISOLATION_SANDBOX)
        return fail(v, DVAL_EINVAL, "request", "isolation is not a "
                    "dval_isolation value");
    if (v->req.release < DVAL_RELEASE_KEEP ||
        v->req.release > DVAL_RELEASE_DELETE)
        return fail(v, DVAL_EINVAL, "request", "release is not a "
                    "dval_release value");
    if (!realpath(v->req.source_dir, v->root)) {
        char m[PATH_MAX + 64];
        dval__fmt(m, sizeof m, "source_dir %s: %s", v->req.source_dir,
                  strerror(errno));
        return fail(v, DVAL_EIO, "request", m);
    }
    struct stat st;
    if (stat(v->root, &st) || !S_ISDIR(st.st_mode)) {
        char m[PATH_MAX + 64];
        dval__fmt(m, sizeof m, "source_dir %s is not a directory",
                  v->req.source_dir);
        return fail(v, DVAL_EINVAL, "request", m);
    }
    dval__fmt(v->workdir, sizeof v->workdir, "/sandbox/%s", v->thread_id);
    dval__fmt(v->resdir, sizeof v->resdir, "/sandbox/%s/results",
              v->thread_id);
    v->local = !strcmp(dval_client_executor_name(v->client), "local");
    return DVAL_OK;
}

/* ---- snapshot */

/* Runs `sh -c test` on the host with no output: the local executor's
 * snapshot layer sits over the host root, so the host's tools are what a
 * local sandbox sees. posix_spawn keeps a multi-threaded host safe. */
static int host_test(const char *test)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"sh", "-c", (char *)test, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int do_snapshot(vctx *v)
{
    const dval_profile *p = v->prof;
    const char *name = v->req.snapshot_name ? v->req.snapshot_name
                                            : p->snapshot_name;
    if (v->local && p->local_requires && host_test(p->local_requires)) {
        char msg[DVAL_ERRMSG_MAX];
        if (p->local_unavailable_msg)
            dval__strlcpy(msg, p->local_unavailable_msg, sizeof msg);
        else
            dval__fmt(msg, sizeof msg, "profile \"%s\" is unavailable on the "
                      "local executor (`%s` failed)", p->name,
                      p->local_requires);
        return fail(v, DVAL_EUNSUPPORTED, "snapshot", msg);
    }
    dval_snapshot_spec spec;
    dval__profile_snapshot_spec(v->client, p, name, &spec);
    int rc = dval_snapshot_ensure(&v->snap, v->client, &spec, on_build_log, v);
    if (rc)
        return fail(v, rc, "snapshot", dval_client_errmsg(v->client));
    return DVAL_OK;
}

/* ---- sandbox and session */

/* "<base>-<12 random hex>": a name no other validation uses. */
static void own_sandbox_name(const char *base, char *out, size_t cap)
{
    uuid_t u;
    char s[40];
    uuid_generate_random(u);
    uuid_unparse_lower(u, s);
    dval__fmt(out, cap, "%.200s-%.8s%.4s", base, s, s + 9);
}

static int do_sandbox(vctx *v)
{
    char profile_label[300];
    dval__fmt(profile_label, sizeof profile_label, "dval.profile=%s",
              v->prof->name);
    size_t extra = 0;
    while (v->req.labels && v->req.labels[extra])
        extra++;
    const char **labels = dval__calloc(extra + 4, sizeof *labels);
    if (!labels)
        return fail(v, DVAL_ENOMEM, "sandbox", NULL);
    /* the managed-by label lets `daytona-validate sandbox ls/rm` find
     * sandboxes this library created (the reaper for leaked ones) */
    labels[0] = "dval.managed-by=daytona-validate";
    labels[1] = profile_label;
    for (size_t i = 0; i < extra; i++)
        labels[2 + i] = v->req.labels[i];

    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = v->req.sandbox_name ? v->req.sandbox_name : v->prof->sandbox_name;
    char own[DVAL_ID_MAX];
    if (v->req.isolation == DVAL_ISOLATION_SANDBOX) {
        own_sandbox_name(o.name, own, sizeof own);
        o.name = own;
        labels[extra + 2] = "dval.isolation=sandbox";
    }
    o.snapshot = v->req.snapshot_name ? v->req.snapshot_name
                                      : v->prof->snapshot_name;
    o.labels = labels;
    o.ttl_minutes = v->req.sandbox_ttl_minutes;
    o.cpu = v->req.cpu;
    o.memory_gib = v->req.memory_gib;
    o.disk_gib = v->req.disk_gib;
    /* a sandbox of its own is never handed to another validation */
    o.release = v->req.isolation == DVAL_ISOLATION_SANDBOX ? DVAL_RELEASE_DELETE
                                                           : v->req.release;
    o.on_state = on_state;
    o.state_userdata = v;
    int rc = dval_sandbox_acquire(&v->sb, v->client, &o);
    dval__free(labels);
    if (rc)
        return fail(v, rc, "sandbox", dval_client_errmsg(v->client));
    dval__strlcpy(v->sb_name, dval_sandbox_name(v->sb), sizeof v->sb_name);
    if (o.release != DVAL_RELEASE_DELETE) /* a sandbox that stays */
        dval__service_start(v->client, v->prof, v->sb);
    if (v->aborted)
        return fail(v, DVAL_EABORTED, "sandbox", NULL);
    return DVAL_OK;
}

static int do_session(vctx *v)
{
    int rc = dval_session_open(&v->sess, v->sb);
    if (rc) {
        const char *m = dval_sandbox_errmsg(v->sb);
        return fail(v, rc, "session",
                    m && *m ? m : dval_client_errmsg(v->client));
    }
    const char *id = dval_session_id(v->sess);
    dval__strlcpy(v->sess_id, id ? id : "", sizeof v->sess_id);
    return DVAL_OK;
}

/* Runs a housekeeping command (not the program): output is dropped or
 * collected into `out`, never reported as program output. */
static int collect(int stream, const char *channel, const char *data,
                   size_t len, void *ud)
{
    (void)channel;
    if (ud && stream == DVAL_STDOUT)
        return dval__buf_append(ud, data, len) ? 1 : 0;
    return 0;
}

static int quiet_exec(vctx *v, const char *cmd, dval__buf *out, int *code)
{
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    return dval_session_exec(v->sess, cmd, &eo, collect, out, code);
}

/* ---- upload */

static int upload_one(vctx *v, const char *local, const char *rel)
{
    char remote[PATH_MAX + 300];
    dval__fmt(remote, sizeof remote, "%s/%s", v->workdir, rel);
    int rc = dval_sandbox_upload_file(v->sb, remote, local);
    if (rc) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "%s: %s", rel, dval_sandbox_errmsg(v->sb));
        return fail(v, rc, "upload", m);
    }
    struct stat st;
    if (!stat(local, &st))
        v->bytes += (size_t)st.st_size;
    v->files++;
    return DVAL_OK;
}

/* A symlink is uploaded as the file it points to, but only when that file
 * lies inside the source directory: machine-generated trees must not be
 * able to pull host files (~/.ssh, /etc) into a sandbox. Links to
 * directories inside the tree are skipped; the real directory is walked. */
static int upload_link(vctx *v, const char *path, const char *rel)
{
    char real[PATH_MAX];
    size_t n = strlen(v->root);
    char m[PATH_MAX + 100];
    if (!realpath(path, real) || strncmp(real, v->root, n) ||
        (real[n] != '/' && real[n] != '\0')) {
        dval__fmt(m, sizeof m, "symlink %s points outside the source "
                  "directory (or nowhere)", rel);
        return fail(v, DVAL_EINVAL, "upload", m);
    }
    struct stat st;
    if (stat(real, &st))
        return fail(v, DVAL_EIO, "upload", strerror(errno));
    if (S_ISREG(st.st_mode))
        return upload_one(v, real, rel);
    return DVAL_OK;
}

static int walk(vctx *v, const char *dir, const char *rel, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(v, DVAL_EINVAL, "upload", "source tree is too deep");
    DIR *d = opendir(dir);
    if (!d) {
        char m[PATH_MAX + 100];
        dval__fmt(m, sizeof m, "%s: %s", dir, strerror(errno));
        return fail(v, DVAL_EIO, "upload", m);
    }
    int rc = DVAL_OK;
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        /* results/ is the program's output directory: a local copy left by
         * an earlier run must not pass for this run's results */
        if (depth == 0 && !strcmp(e->d_name, "results"))
            continue;
        char path[PATH_MAX], r[PATH_MAX];
        dval__fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        if (*rel)
            dval__fmt(r, sizeof r, "%s/%s", rel, e->d_name);
        else
            dval__fmt(r, sizeof r, "%s", e->d_name);
        struct stat st;
        if (lstat(path, &st)) {
            rc = fail(v, DVAL_EIO, "upload", strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(v, path, r, depth + 1);
        } else if (S_ISREG(st.st_mode)) {
            rc = upload_one(v, path, r);
        } else if (S_ISLNK(st.st_mode)) {
            rc = upload_link(v, path, r);
        }
        /* fifos, sockets and devices have no content to upload */
    }
    closedir(d);
    return rc;
}

/* Claims the thread id's working directory until close: a second run on
 * the same thread id is refused (DVAL_EBUSY) before it can empty the
 * directory under the first. */
static int claim_workdir(vctx *v)
{
    int rc = dval__sandbox_claim(v->sb, v->workdir, &v->claim);
    if (rc == DVAL_EBUSY) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "thread id %s: %s", v->thread_id,
                  dval_sandbox_errmsg(v->sb));
        return fail(v, rc, "upload", m);
    }
    return rc ? fail(v, rc, "upload", dval_sandbox_errmsg(v->sb)) : DVAL_OK;
}

static int do_upload(vctx *v)
{
    int crc = claim_workdir(v);
    if (crc)
        return crc;
    /* A fresh workdir each time: a sandbox is reused across runs, and a
     * rerun with the same thread id must not see the last run's files.
     * The executor makes the directory (the local one gives it the
     * validation's own uid), the clean-up runs inside it, as its owner. */
    int rc = dval_sandbox_mkdir(v->sb, v->workdir);
    if (rc)
        return fail(v, rc, "upload", dval_sandbox_errmsg(v->sb));
    dval__buf cmd = {0};
    rc = dval__buf_appendf(&cmd, "find . -mindepth 1 -delete && mkdir -p ");
    rc = rc ? rc : dval__shell_quote(&cmd, v->resdir);
    if (rc) {
        dval__buf_free(&cmd);
        return fail(v, rc, "upload", NULL);
    }
    int code = -1;
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    eo.cwd = v->workdir;
    rc = dval_session_exec(v->sess, cmd.data, &eo, collect, NULL, &code);
    dval__buf_free(&cmd);
    if (rc)
        return fail(v, rc, "upload", dval_session_errmsg(v->sess));
    if (code != 0)
        return fail(v, DVAL_EEXEC, "upload", "could not create the working "
                    "directory in the sandbox");
    dval__cancel_scope(v->req.cancel);   /* a long upload ends when fired */
    rc = walk(v, v->root, "", 0);
    dval__cancel_scope(NULL);
    return rc;
}

/* ---- exec */

static int build_command(vctx *v, dval__buf *cmd)
{
    const char *run = v->req.run_command ? v->req.run_command
                                         : v->prof->run_command;
    int rc = dval__buf_appendf(cmd, "export DVAL_THREAD_ID=");
    rc = rc ? rc : dval__shell_quote(cmd, v->thread_id);
    rc = rc ? rc : dval__buf_appendf(cmd, " DVAL_WORKDIR=");
    rc = rc ? rc : dval__shell_quote(cmd, v->workdir);
    rc = rc ? rc : dval__buf_appendf(cmd, " DVAL_RESULTS_DIR=");
    rc = rc ? rc : dval__shell_quote(cmd, v->resdir);
    /* The subshell keeps `exit` or `cd` in a run command from touching the
     * session shell. The trailer lists the results into a file in the same
     * exec: on Daytona a separate listing exec costs a round trip of its
     * own, a file download much less. */
    rc = rc ? rc : dval__buf_appendf(cmd, "; cd \"$DVAL_WORKDIR\" && (%s)",
                                     run);
    /* an executor that lists from the host needs no trailer: nothing in
     * the sandbox (which the program may have replaced) takes part */
    if (!rc && dval__sandbox_can_list(v->sb))
        return dval__buf_appendf(cmd, "; exit $?");
    rc = rc ? rc : dval__buf_appendf(cmd, "; dval_rc=$?; (cd "
                                     "\"$DVAL_RESULTS_DIR\" 2>/dev/null && "
                                     "find . -type f -name '*.json' > "
                                     "\"$DVAL_WORKDIR/" LISTING "\") "
                                     "</dev/null >/dev/null 2>&1; "
                                     "exit $dval_rc");
    return rc;
}

static int do_exec(vctx *v)
{
    dval__buf cmd = {0};
    int rc = build_command(v, &cmd);
    if (rc) {
        dval__buf_free(&cmd);
        return fail(v, rc, "exec", NULL);
    }
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.channel_prefix = v->prof->channel_prefix;
    eo.cwd = v->workdir;
    eo.timeout_ms = v->req.timeout_ms;
    int code = -1;
    v->in_exec = 1;
    rc = dval_session_exec(v->sess, cmd.data, &eo, on_output, v, &code);
    dval__buf_free(&cmd);
    if (rc)
        return fail(v, rc, "exec", dval_session_errmsg(v->sess));
    v->ran = 1;
    v->exit_code = code;
    return DVAL_OK;
}

/* ---- download */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits the listing into sorted names relative to the results dir. */
static char **parse_listing(char *text, size_t *count)
{
    size_t n = 0, cap = 8;
    char **names = dval__calloc(cap + 1, sizeof *names);
    if (!names)
        return NULL;
    /* split in place (strtok is not thread-safe) */
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "./", 2))
            line += 2;
        if (!*line)
            continue;
        if (n == cap) {
            char **nn = dval__realloc(names, (cap * 2 + 1) * sizeof *nn);
            if (!nn)
                break;
            names = nn;
            cap *= 2;
        }
        names[n++] = line;
        names[n] = NULL;
    }
    qsort(names, n, sizeof *names, cmp_str);
    *count = n;
    return names;
}

static void fetch_one(vctx *v, const char *name)
{
    char remote[512], m[DVAL_ERRMSG_MAX];
    dval__fmt(remote, sizeof remote, "%s/%s", v->resdir, name);
    if (dval__check_remote_path(remote, m, sizeof m)) {
        note_error(v, "results/%s: %s", name, m);
        return;
    }
    char *text = NULL;
    int rc = dval_sandbox_download_json(v->sb, remote, &text);
    if (rc) {
        note_error(v, "results/%s: %s", name, dval_sandbox_errmsg(v->sb));
        return;
    }
    json_error_t jerr;
    json_t *doc = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    dval_free(text);
    if (!doc) {
        note_error(v, "results/%s: %s", name, jerr.text);
        return;
    }
    json_object_set_new(v->results, name, doc);
}

/* The listing the run command left; when it is missing (the program
 * removed it, or the executor cannot download), list with an exec. */
static int fetch_listing(vctx *v, dval__buf *list)
{
    char path[400];
    dval__fmt(path, sizeof path, "%s/" LISTING, v->workdir);
    char *data = NULL;
    size_t len = 0;
    if (dval_sandbox_download(v->sb, path, &data, &len) != DVAL_OK)
        return -1;
    int rc = dval__buf_append(list, data, len);
    dval_free(data);
    return rc ? -1 : 0;
}

/* file_list callback: *.json names one per line into the listing; a
 * refused entry (symlink, hard link, FIFO, device) is an error. */
static int host_entry(const char *rel, int64_t size, void *ud)
{
    vctx *v = ((void **)ud)[0];
    dval__buf *list = ((void **)ud)[1];
    if (size < 0) {
        note_error(v, "results/%s: %s", rel, "not a plain file (a symbolic "
                   "link, hard link, FIFO or device): refused");
        return 0;
    }
    size_t n = strlen(rel);
    if (n < 5 || strcmp(rel + n - 5, ".json") || strchr(rel, '\n'))
        return 0;
    return dval__buf_appendf(list, "%s\n", rel) ? 1 : 0;
}

/* The listing made by the executor from the host side: 1 when the
 * executor cannot list, else a status (DVAL_OK with no results dir). */
static int host_listing(vctx *v, dval__buf *list)
{
    if (!dval__sandbox_can_list(v->sb))
        return 1;
    void *pair[2] = { v, list };
    int rc = dval__sandbox_file_list(v->sb, v->resdir, host_entry, pair);
    if (rc == DVAL_ENOTFOUND)
        return DVAL_OK;
    if (rc == DVAL_ERESULTS)
        note_error(v, "%s%s", dval_sandbox_errmsg(v->sb), "");
    return rc ? fail(v, rc, "download", dval_sandbox_errmsg(v->sb)) : rc;
}

static int do_download(vctx *v)
{
    dval__buf list = {0};
    dval__buf cmd = {0};
    int code = -1;
    int rc = host_listing(v, &list);
    if (rc <= 0) {
        if (rc == DVAL_OK && dval__buf_append(&list, "", 0))
            rc = fail(v, DVAL_ENOMEM, "download", NULL);
        if (rc == DVAL_OK)
            goto parse;
        dval__buf_free(&list);
        return rc;
    }
    rc = DVAL_OK;
    if (fetch_listing(v, &list) == 0)
        goto parse;
    dval__buf_free(&list);
    rc = dval__buf_appendf(&cmd, "cd ");
    rc = rc ? rc : dval__shell_quote(&cmd, v->resdir);
    rc = rc ? rc : dval__buf_appendf(&cmd, " 2>/dev/null && find . -type f "
                                     "-name '*.json'");
    rc = rc ? rc : quiet_exec(v, cmd.data, &list, &code);
    dval__buf_free(&cmd);
    if (rc) {
        dval__buf_free(&list);
        return fail(v, rc, "download", dval_session_errmsg(v->sess));
    }
parse:;
    size_t n = 0;
    char **names = parse_listing(list.data, &n);
    /* each fetch is short: the token is checked between them, and ends
     * a long one through the thread's ambient scope */
    dval__cancel_scope(v->req.cancel);
    for (size_t i = 0; names && i < n && !v->aborted &&
                       !dval_cancel_fired(v->req.cancel); i++)
        fetch_one(v, names[i]);
    dval__cancel_scope(NULL);
    dval__free(names);
    dval__buf_free(&list);
    if (!names)
        return fail(v, DVAL_ENOMEM, "download", NULL);
    if (dval_cancel_fired(v->req.cancel))
        return fail(v, DVAL_ECANCELED, "download", "canceled");
    if (v->aborted)
        return fail(v, DVAL_EABORTED, "download", NULL);
    if (json_array_size(v->errors) > 0)
        return fail(v, DVAL_ERESULTS, "download",
                    json_string_value(json_array_get(v->errors, 0)));
    if (json_object_size(v->results) == 0 && !v->req.allow_missing_results) {
        char m[400];
        dval__fmt(m, sizeof m, "the program wrote no *.json file under %s",
                  v->resdir);
        note_error(v, "%s%s", m, "");
        return fail(v, DVAL_ERESULTS, "download", m);
    }
    return DVAL_OK;
}

/* ---- close: always, whatever happened before */

static void do_close(vctx *v, int main_rc)
{
    int64_t t0;
    phase_start(v, "close", &t0);
    int rc = DVAL_OK;
    if (v->sess) {
        rc = dval_session_close(v->sess);
        if (rc)
            note_error(v, "close session: %s%s",
                       dval_session_errmsg(v->sess), "");
        dval_session_free(v->sess);
        v->sess = NULL;
    }
    if (v->sb && v->claim) { /* after the session: its processes are gone */
        dval__sandbox_release(v->sb, v->claim);
        v->claim = NULL;
    }
    if (v->sb) {
        int r2 = dval_sandbox_release(v->sb);
        if (r2) {
            note_error(v, "release sandbox: %s%s",
                       dval_sandbox_errmsg(v->sb), "");
            rc = rc ? rc : r2;
        }
        dval_sandbox_free(v->sb);
        v->sb = NULL;
    }
    dval_snapshot_free(v->snap);
    v->snap = NULL;
    (void)main_rc;
    phase_done(v, "close", t0, rc, NULL);
}

/* ---- summary */

static char *summary(vctx *v, int status, int64_t t_start)
{
    json_object_set_new(v->timings, "total",
                        json_integer(dval__now_ms() - t_start));
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "exit_code",
                        v->ran ? json_integer(v->exit_code) : json_null());
    json_object_set(o, "results", v->results);
    json_object_set_new(o, "thread_id", json_string(v->thread_id));
    json_object_set_new(o, "sandbox", json_string(
        *v->sb_name ? v->sb_name : v->req.sandbox_name ? v->req.sandbox_name
                                                        : v->prof->sandbox_name));
    json_object_set_new(o, "session",
                        *v->sess_id ? json_string(v->sess_id) : json_null());
    json_object_set_new(o, "profile", json_string(v->prof->name));
    json_object_set_new(o, "executor",
                        json_string(dval_client_executor_name(v->client)));
    json_object_set_new(o, "status", json_string(dval_status_name(status)));
    json_object_set(o, "errors", v->errors);
    json_object_set(o, "timings_ms", v->timings);
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (!text)
        return NULL;
    char *copy = dval__strdup(text);
    free(text);
    return copy;
}

/* ---- the loop */

typedef int (*phase_fn)(vctx *v);

static int run_phase(vctx *v, const char *name, phase_fn fn,
                     const char *(*detail)(vctx *, char *, size_t))
{
    int64_t t0;
    if (dval_cancel_fired(v->req.cancel))
        return fail(v, DVAL_ECANCELED, name, "canceled");
    int rc = phase_start(v, name, &t0);
    if (rc)
        return fail(v, rc, name, NULL);
    rc = fn(v);
    /* whatever a canceled phase failed with, the cause is the token */
    if (dval_cancel_fired(v->req.cancel) && rc != DVAL_EABORTED)
        rc = fail(v, DVAL_ECANCELED, name, "canceled");
    char buf[300] = "";
    const char *d = rc == DVAL_OK && detail ? detail(v, buf, sizeof buf)
                                            : NULL;
    rc = phase_done(v, name, t0, rc, d);
    if (rc == DVAL_EABORTED)
        fail(v, rc, name, NULL);
    return rc;
}

static const char *snapshot_detail(vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%s (%s)", dval_snapshot_name(v->snap),
              dval_snapshot_state_name(dval_snapshot_state(v->snap)));
    return buf;
}

static const char *sandbox_detail(vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%s (%s)", dval_sandbox_name(v->sb),
              dval_sandbox_state_name(dval_sandbox_state(v->sb)));
    return buf;
}

static const char *session_detail(vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%s", v->sess_id);
    return buf;
}

static const char *upload_detail(vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "%zu files, %zu bytes to %s", v->files, v->bytes,
              v->workdir);
    return buf;
}

static const char *exec_detail(vctx *v, char *buf, size_t cap)
{
    dval__fmt(buf, cap, "exit code %d", v->exit_code);
    return buf;
}

static const char *download_detail(vctx *v, char *buf, size_t cap)
{
    size_t n = json_object_size(v->results);
    dval__fmt(buf, cap, "%zu result file%s", n, n == 1 ? "" : "s");
    return buf;
}

/* ---- a sandbox lost under the validation (PROTOCOL 10.3) */

/* sandbox → download once; *lost set when a failure came from the sandbox
 * having stopped or vanished under it. */
static int run_once(vctx *v)
{
    /* the sandbox wait takes no descriptor of its own: the token ends it
     * through the thread's ambient scope */
    dval__cancel_scope(v->req.cancel);
    int rc = run_phase(v, "sandbox", do_sandbox, sandbox_detail);
    dval__cancel_scope(NULL);
    if (!rc)
        rc = run_phase(v, "session", do_session, session_detail);
    /* from here on, firing the token cancels the session's execs */
    dval__cancel_attach(v->req.cancel, v->sess);
    if (!rc)
        rc = run_phase(v, "upload", do_upload, upload_detail);
    if (!rc)
        rc = run_phase(v, "exec", do_exec, exec_detail);
    if (!rc)
        rc = run_phase(v, "download", do_download, download_detail);
    dval__cancel_attach(v->req.cancel, NULL);
    return rc;
}

/* Forgets the handles of a sandbox that is gone or stopped (its session
 * died with it): the next acquire finds or creates it again. */
static void drop_sandbox(vctx *v)
{
    dval_session_free(v->sess);
    v->sess = NULL;
    if (v->sb && v->claim)
        dval__sandbox_release(v->sb, v->claim);
    v->claim = NULL;
    dval_sandbox_free(v->sb);
    v->sb = NULL;
    v->sess_id[0] = 0;
    v->files = v->bytes = 0;
    v->in_exec = v->ran = 0;
    v->exit_code = 0;
    json_object_clear(v->results);
    json_array_clear(v->errors);
}

static int restart_event(vctx *v)
{
    dval_event ev = { .struct_size = sizeof ev, .type = DVAL_EVENT_RESTART };
    ev.phase = "exec";
    ev.status = DVAL_EGONE;
    ev.detail = "the sandbox vanished during the run; running again on a "
                "fresh sandbox: output restarts";
    return emit(v, &ev);
}

/* Runs the sandbox phases; a sandbox that stopped or vanished before the
 * program started is acquired again (the ladder starts or recreates it);
 * one lost while the program ran gives DVAL_EGONE and one re-run from the
 * start, announced by a DVAL_EVENT_RESTART event. */
static int run_recovering(vctx *v)
{
    int recovered = 0, reran = 0;
    for (;;) {
        int rc = run_once(v);
        if (!rc || rc == DVAL_ECANCELED || rc == DVAL_EABORTED || !v->sb ||
            !dval__sandbox_lost(v->sb, rc))
            return rc;
        if (v->in_exec) {
            rc = fail(v, DVAL_EGONE, "exec", "the sandbox vanished or "
                      "stopped while the program ran");
            if (reran++ || restart_event(v))
                return rc;
        } else if (recovered++ >= 2) {
            return rc;
        }
        DVAL__LOG(v->client, DVAL_LOG_WARN, "sandbox %s lost (%s); acquiring "
                  "it again", dval_sandbox_name(v->sb),
                  dval_sandbox_state_name(dval_sandbox_state(v->sb)));
        drop_sandbox(v);
    }
}

DVAL_API int dval_validation_init(dval_validation *req, size_t size)
{
    if (!req)
        return DVAL_EINVAL;
    if (size < offsetof(dval_validation, thread_id))
        return DVAL_EABI;
    memset(req, 0, size);
    req->struct_size = size < sizeof *req ? size : sizeof *req;
    return DVAL_OK;
}

DVAL_API int dval_validate(dval_client *client, const dval_validation *req,
                           dval_event_fn on_event, void *userdata,
                           char **result_json)
{
    if (result_json)
        *result_json = NULL;
    if (!client)
        return DVAL_EINVAL;
    DVAL__NO_REENTRY(client);
    if (!req)
        return fail(&(vctx){.client = client}, DVAL_EINVAL, "request",
                    "no request");
    int64_t t_start = dval__now_ms();
    vctx *v = dval__calloc(1, sizeof *v);
    if (!v)
        return DVAL_ENOMEM;
    v->client = client;
    v->on_event = on_event;
    v->ud = userdata;
    int rc = check_request(v, req);
    if (rc) {
        dval__free(v);
        return rc;
    }
    v->timings = json_object();
    v->results = json_object();
    v->errors = json_array();
    if (!v->timings || !v->results || !v->errors) {
        rc = fail(v, DVAL_ENOMEM, "request", NULL);
        goto out;
    }
    dval__cancel_scope(v->req.cancel);
    rc = run_phase(v, "snapshot", do_snapshot, snapshot_detail);
    dval__cancel_scope(NULL);
    if (!rc)
        rc = run_recovering(v);
    /* keep the first failure's message: close must not overwrite it */
    char saved[DVAL_ERRMSG_MAX];
    dval__strlcpy(saved, dval_client_errmsg(client), sizeof saved);
    dval__cancel_attach(v->req.cancel, NULL);
    do_close(v, rc);
    if (rc == DVAL_OK && v->aborted)
        rc = fail(v, DVAL_EABORTED, "close", NULL);
    else if (rc)
        dval__client_seterr(client, "%s", saved);
    else
        dval__client_seterr(client, "%s", "");
    /* The summary goes back on success and when only the results are at
     * fault, so a host still sees the exit code and whatever was valid. */
    if (result_json && (rc == DVAL_OK || rc == DVAL_ERESULTS)) {
        *result_json = summary(v, rc, t_start);
        if (!*result_json)
            rc = fail(v, DVAL_ENOMEM, "summary", NULL);
    }
out:
    json_decref(v->timings);
    json_decref(v->results);
    json_decref(v->errors);
    dval__free(v);
    return rc;
}
