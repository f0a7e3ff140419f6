/* Shared helpers of the local executor tests (see lt.h). */
#include "lt.h"

#include <jansson.h>

#include <dirent.h>
#include <sys/mount.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* DVAL_LOCAL_TEST_ROOT keeps concurrent runs from two checkouts apart. */
const char *lt_base(void)
{
    const char *b = getenv("DVAL_LOCAL_TEST_ROOT");
    return b && *b ? b : "/tmp/dval-local-tests";
}

/* The last debug lines, printed when a test fails: why a fast path fell
 * back is logged at debug level only, and a flake is seldom rerun. */
#define LT_RING 24
static char ring[LT_RING][400];
static unsigned ring_n;
static pthread_mutex_t ring_mu = PTHREAD_MUTEX_INITIALIZER;

static void logfn(int level, const char *msg, void *ud)
{
    (void)ud;
    if (level <= DVAL_LOG_WARN || getenv("LT_VERBOSE"))
        fprintf(stderr, "    [log %d] %s\n", level, msg);
    pthread_mutex_lock(&ring_mu);
    snprintf(ring[ring_n++ % LT_RING], sizeof ring[0], "%d] %s", level, msg);
    pthread_mutex_unlock(&ring_mu);
}

static void ring_dump(void)
{
    pthread_mutex_lock(&ring_mu);
    unsigned from = ring_n > LT_RING ? ring_n - LT_RING : 0;
    if (from < ring_n)
        fprintf(stderr, "    the executor's last log lines:\n");
    for (unsigned i = from; i < ring_n; i++)
        fprintf(stderr, "    [log %s\n", ring[i % LT_RING]);
    pthread_mutex_unlock(&ring_mu);
}

/* Mounts the executor left under dir (a snapshot's shared services'
 * tmpfs outlives the test that made it), detached, so dir can go. */
static void unmount_under(const char *dir)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096], mnt[4096];
    size_t n = strlen(dir);
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
            !strncmp(mnt, dir, n) && mnt[n] == '/')
            umount2(mnt, MNT_DETACH);
    if (f)
        fclose(f);
}

static void kill_old(const char *dir)
{
    unmount_under(dir);
    char p[1024];
    snprintf(p, sizeof p, "%s/sandboxes", dir);
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char sp[1400], line[256];
        snprintf(sp, sizeof sp, "%s/%s/state", p, e->d_name);
        FILE *f = fopen(sp, "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "pid=", 4) && atoi(line + 4) > 0)
                kill(atoi(line + 4), SIGKILL);
        if (f)
            fclose(f);
        /* an init whose pid the state lost (a creation killed or canceled
         * mid-way) is named in the lock it holds */
        snprintf(sp, sizeof sp, "%s/%s/init.lock", p, e->d_name);
        f = fopen(sp, "r");
        if (f && fgets(line, sizeof line, f) && atoi(line) > 1)
            kill(atoi(line), SIGKILL);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
}

/* Every suite shares the machine's image cache (~/.cache/daytona-validate
 * unless DVAL_LOCAL_CACHE_DIR is set): the Debian base is built once per
 * machine, here with a generous deadline (a fresh machine under load
 * needs a minute), so the tests' own 60 s calls never wait for it. A
 * snapshot without steps then costs milliseconds. */
static void warm_image(lt *t)
{
    dval_call *c = lt_call(t);
    c->timeout_ms = 1800000;
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = "lt-warm" };
    int rc = t->ex.snapshot_create(t->ex.userdata, c, &s, NULL, NULL, NULL);
    if (rc == DVAL_EISOLATION) /* the test itself skips, or wants that */
        return;
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "base image: %s", t->call.errmsg);
    t->ex.snapshot_delete(t->ex.userdata, lt_call(t), "lt-warm");
}

/* th_fail/th_skip end the test process at once: the inits it started
 * would outlive it (their state stays, for a look after a failure) */
static void kill_at_end(void *ud)
{
    ring_dump();
    kill_old(((lt *)ud)->dir);
}

/* 0 when dir + sub is gone */
static int rm_rf(const char *dir, const char *sub)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s%s'", dir, sub);
    return system(cmd) != 0;
}

static void remove_tree(const char *dir, const char *sub)
{
    if (rm_rf(dir, sub))
        th_fail(__FILE__, __LINE__, "cannot clean %s%s", dir, sub);
}

/* 1 when dir's suite-run file names the suite process pid */
static int suite_run_is(const char *dir, pid_t pid)
{
    char p[600], want[32], have[32] = "";
    snprintf(p, sizeof p, "%s/suite-run", dir);
    snprintf(want, sizeof want, "%d\n", (int)pid);
    FILE *f = fopen(p, "r");
    if (f && !fgets(have, sizeof have, f))
        have[0] = 0;
    if (f)
        fclose(f);
    return !strcmp(have, want);
}

static void open_dir(lt *t, const char *name, int shared)
{
    memset(t, 0, sizeof *t);
    mkdir(lt_base(), 0755);
    snprintf(t->dir, sizeof t->dir, "%s/%s", lt_base(), name);
    kill_old(t->dir);
    t->shared = shared && suite_run_is(t->dir, getppid());
    remove_tree(t->dir, t->shared ? "/sandboxes" : "");
    if (shared && !t->shared) {
        char p[600];
        mkdir(t->dir, 0755);
        snprintf(p, sizeof p, "%s/suite-run", t->dir);
        FILE *f = fopen(p, "w");
        if (!f || fprintf(f, "%d\n", (int)getppid()) < 0 || fclose(f))
            th_fail(__FILE__, __LINE__, "cannot write %s", p);
        t->shared = 1;
    }
    th_at_end(kill_at_end, t);
    dval_local_options_init(&t->lo, sizeof t->lo);
    t->lo.state_dir = t->dir;
    t->cfg.log_fn = logfn;
    t->cfg.log_level = DVAL_LOG_DEBUG;
    char err[256] = "";
    int rc = dval__local_executor(&t->ex, &t->cfg, &t->lo, err, sizeof err);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "executor: %s", err);
    if (geteuid() != 0)
        th_skip("the local executor tests need root (overlay over /)");
    warm_image(t);
}

void lt_open(lt *t, const char *name)
{
    open_dir(t, name, 0);
}

void lt_open_shared(lt *t, const char *name)
{
    open_dir(t, name, 1);
}

/* The suite's shared directories go with it (their snapshots are large). */
void th_suite_done(void)
{
    DIR *d = opendir(lt_base());
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", lt_base(), e->d_name);
        int ours = e->d_name[0] != '.' && suite_run_is(dir, getpid());
        if (ours) { /* each test deleted its sandboxes (lt_close) */
            kill_old(dir);
            if (rm_rf(dir, ""))
                fprintf(stderr, "cannot remove %s\n", dir);
        }
    }
    if (d)
        closedir(d);
}

/* Deleted by the executor, so each init removes its cgroups: an init
 * killed by kill_old leaves them behind on the machine. */
static void delete_sandboxes(lt *t)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/sandboxes", t->dir);
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            t->ex.sandbox_delete(t->ex.userdata, lt_call(t), e->d_name);
    if (d)
        closedir(d);
}

void lt_close(lt *t)
{
    th_at_end_drop(t);
    delete_sandboxes(t);
    kill_old(t->dir);
    t->ex.destroy(t->ex.userdata);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s%s'", t->dir,
             t->shared ? "/sandboxes" : "");
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", t->dir);
}

dval_client *lt_client(lt *t)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = t->dir;
    o.local = &lo;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    return c;
}

static dval_call *call_init(dval_call *c)
{
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    c->cancel_fd = -1;
    c->timeout_ms = 60000;
    c->retry_after_ms = -1;
    return c;
}

dval_call *lt_call(lt *t)
{
    return call_init(&t->call);
}

void lt_sandbox(lt *t, const char *name, dval_sandbox_options *opts)
{
    dval_sandbox_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    if (!opts)
        opts = &o;
    opts->name = name;
    dval_sandbox_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    int rc = t->ex.sandbox_create(t->ex.userdata, lt_call(t), opts, &info);
    if (rc == DVAL_EISOLATION)
        th_skip(t->call.errmsg);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "sandbox_create: %d %s", rc,
                t->call.errmsg);
    CHECK_INT(info.state, DVAL_SANDBOX_STARTED);
}

static int sink(int stream, const char *data, size_t len, void *ud)
{
    lt_out *o = ud;
    if (stream == DVAL_STDOUT && !o->first_out_ms)
        o->first_out_ms = dval__now_ms();
    CHECK(stream == DVAL_STDOUT || stream == DVAL_STDERR);
    dval__buf_append(stream == DVAL_STDOUT ? &o->out : &o->err, data, len);
    return 0;
}

static int no_openat2(int rc);

/* What a test runs: shell text, or argv with env, as owner's */
typedef struct what {
    const char *cwd, *text;
    const char *const *argv, *const *env;
    const char *owner;
} what;

/* An owner needs openat2 (the uid of its directory), which valgrind
 * lacks. */
static int start(lt *t, dval_call *c, const char *sb, const char *sid,
                 const what *w, char *cmd)
{
    dval_command d = { .struct_size = sizeof d, .sandbox_id = sb,
                       .session_id = sid, .cwd = w->cwd, .text = w->text,
                       .argv = w->argv, .env = w->env, .owner = w->owner };
    int rc = t->ex.command_start(t->ex.userdata, c, &d, cmd);
    return w->owner ? no_openat2(rc) : rc;
}

int lt_start(lt *t, dval_call *c, const char *sb, const char *sid,
             const char *text, char *cmd)
{
    what w = { NULL, text, NULL, NULL, NULL };
    return start(t, c, sb, sid, &w, cmd);
}

static int run_what(lt *t, const char *sb, const what *w, lt_out *o)
{
    static int seq;
    char sid[64], cmd[DVAL_ID_MAX];
    void *ud = t->ex.userdata;
    dval_call own, *c = &own; /* its own: tests run commands from threads */
    snprintf(sid, sizeof sid, "s%d", __atomic_add_fetch(&seq, 1,
                                                        __ATOMIC_RELAXED));
    int rc = t->ex.session_create(ud, call_init(c), sb, sid);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "session_create: %s", c->errmsg);
    rc = start(t, call_init(c), sb, sid, w, cmd);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "command_start: %s", c->errmsg);
    void *st;
    CHECK_INT(t->ex.stream_open(ud, call_init(c), sb, sid, cmd, 0, 0, &st),
              DVAL_OK);
    int closed = 0, finished = 0, code = -1;
    while (!closed) {
        call_init(c)->timeout_ms = 200;
        CHECK_INT(t->ex.stream_read(ud, c, st, sink, o, &closed), DVAL_OK);
    }
    t->ex.stream_close(ud, st);
    while (!finished) {
        CHECK_INT(t->ex.command_status(ud, call_init(c), sb, sid, cmd,
                                       &finished, &code), DVAL_OK);
        if (!finished)
            usleep(5000);
    }
    o->exit_ms = dval__now_ms();
    CHECK_INT(t->ex.session_delete(ud, call_init(c), sb, sid), DVAL_OK);
    return code;
}

int lt_run(lt *t, const char *sb, const char *command, lt_out *o)
{
    what w = { NULL, command, NULL, NULL, NULL };
    return run_what(t, sb, &w, o);
}

/* As the core gives a validation's commands: the owner is the
 * validation whose directory (/sandbox/<owner>) cwd is in. */
static const char *owner_of(const char *cwd, char *top, size_t cap)
{
    top[0] = 0;
    if (cwd && !strncmp(cwd, "/sandbox/", 9))
        snprintf(top, cap, "%.*s", (int)strcspn(cwd + 9, "/"), cwd + 9);
    return top[0] ? top : NULL;
}

int lt_run_in(lt *t, const char *sb, const char *cwd, const char *command,
              lt_out *o)
{
    char top[256];
    what w = { cwd, command, NULL, NULL, owner_of(cwd, top, sizeof top) };
    return run_what(t, sb, &w, o);
}

int lt_run_as(lt *t, const char *sb, const char *owner, const char *cwd,
              const char *command, lt_out *o)
{
    what w = { cwd, command, NULL, NULL, owner };
    return run_what(t, sb, &w, o);
}

int lt_run_argv(lt *t, const char *sb, const char *cwd,
                const char *const *argv, const char *const *env, lt_out *o)
{
    char top[256];
    what w = { cwd, NULL, argv, env, owner_of(cwd, top, sizeof top) };
    return run_what(t, sb, &w, o);
}

void lt_out_free(lt_out *o)
{
    dval__buf_free(&o->out);
    dval__buf_free(&o->err);
}

static int src(char *buf, size_t cap, size_t *len, void *ud)
{
    const char **p = ud;
    size_t n = strlen(*p);
    if (n > cap)
        n = cap;
    memcpy(buf, *p, n);
    *p += n;
    *len = n;
    return 0;
}

/* valgrind does not emulate openat2, which confined file access needs */
static int no_openat2(int rc)
{
    if (rc == DVAL_EISOLATION && getenv("DVAL_VALGRIND"))
        th_skip("openat2 is not available under valgrind");
    return rc;
}

int lt_upload(lt *t, const char *sb, const char *path, const char *data)
{
    return no_openat2(t->ex.file_upload(t->ex.userdata, lt_call(t), sb, path,
                                        src, &data, (int64_t)strlen(data)));
}

static int dsink(const char *data, size_t len, void *ud)
{
    return dval__buf_append(ud, data, len);
}

int lt_download(lt *t, const char *sb, const char *path, dval__buf *out)
{
    return no_openat2(t->ex.file_download(t->ex.userdata, lt_call(t), sb,
                                          path, dsink, out));
}

int lt_state(lt *t, const char *sb)
{
    dval_sandbox_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    int rc = t->ex.sandbox_get(t->ex.userdata, lt_call(t), sb, &info);
    return rc == DVAL_OK ? info.state : rc;
}

const char *lt_state_key(lt *t, const char *sb, const char *key)
{
    static char val[512];
    sbstate_key(t->dir, sb, key, val, sizeof val);
    return val;
}

void lt_set_state_key(lt *t, const char *sb, const char *key,
                      const char *val)
{
    char p[1024], cmd[2400];
    snprintf(p, sizeof p, "%s/sandboxes/%s/state", t->dir, sb);
    snprintf(cmd, sizeof cmd, "sed -i 's/^%s=.*/%s=%s/' '%s'", key, key, val,
             p);
    if (system(cmd) != 0)
        th_fail(__FILE__, __LINE__, "%s", cmd);
}

static int fsrc(char *buf, size_t cap, size_t *len, void *ud)
{
    ssize_t n = read(*(int *)ud, buf, cap);
    *len = n > 0 ? (size_t)n : 0;
    return n < 0;
}

int lt_upload_file(lt *t, const char *sb, const char *path,
                   const char *local)
{
    int fd = open(local, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return DVAL_ENOTFOUND;
    int rc = no_openat2(t->ex.file_upload(t->ex.userdata, lt_call(t), sb,
                                          path, fsrc, &fd, -1));
    close(fd);
    return rc;
}

int lt_snapshot(lt *t, const char *name, const char *image,
                const char *const *steps, dval_snapshot_info *info)
{
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = name,
                             .image = image, .build_commands = steps };
    dval_snapshot_info tmp;
    if (!info)
        info = &tmp;
    memset(info, 0, sizeof *info);
    info->struct_size = sizeof *info;
    return t->ex.snapshot_create(t->ex.userdata, lt_call(t), &s, info, NULL,
                                 NULL);
}

void lt_sh(const char *cmd)
{
    th_step(cmd);
    if (system(cmd) != 0)
        th_fail(__FILE__, __LINE__, "host command failed: %s", cmd);
}

void lt_mini_root(const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "set -e; R='%s'; rm -rf \"$R\"; mkdir -p \"$R/bin\"; "
             "for b in sh cat ls id; do p=$(command -v $b); "
             "cp -L \"$p\" \"$R/bin/$b\"; "
             "for l in $(ldd \"$p\" | grep -o '/[^ ]*'); do "
             "mkdir -p \"$R$(dirname $l)\"; cp -L \"$l\" \"$R$l\"; "
             "done; done", dir);
    lt_sh(cmd);
}

json_t *lt_validate(lt *t, const dval_validation *req)
{
    if (getenv("DVAL_VALGRIND")) /* the uploads need openat2 */
        th_skip("valgrind has no openat2, which a validation's upload needs");
    dval_client *c = lt_client(t);
    char *sum = NULL;
    int rc = dval_validate(c, req, NULL, NULL, &sum);
    if (rc)
        fprintf(stderr, "%s\n", sum ? sum : dval_client_errmsg(c));
    dval_client_free(c);
    CHECK_INT(rc, DVAL_OK);
    json_t *j = json_loads(sum, 0, NULL);
    dval_free(sum);
    CHECK(j != NULL);
    return j;
}

const char *lt_shell_dir(lt *t, const char *name, const char *script)
{
    if (getenv("DVAL_VALGRIND")) /* the uploads need openat2 */
        th_skip("valgrind has no openat2, which a validation's upload needs");
    static char dirs[8][600];
    static int k;
    char *d = dirs[k++ & 7], p[1300];
    snprintf(d, sizeof dirs[0], "%s/src-%s", t->dir, name);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/run.sh", d);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(script, f);
    fclose(f);
    return d;
}
