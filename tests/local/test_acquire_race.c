/* Threads acquiring the SAME local sandbox at once, through the public API
 * (one shared dval_client, as tests/bench/dvbench.c's scaling bench did
 * before it serialised its acquires): every thread calls
 * dval_sandbox_acquire on one name, then opens a session and runs a
 * command in it. The sandbox is absent, stopped, started or broken (init
 * killed) when the threads start, and every one of them must end with a
 * working handle. Seen before the fix: sessions failing with "sandbox
 * (null) is unknown, not started" (6 of 12 loops at 4 threads, 22 of 192
 * at 64).
 *
 * Size: DVAL_RACE_THREADS (default 8) threads, DVAL_RACE_LOOPS (default 6)
 * loops per starting state. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "sbstate.h"

#define BASE "/tmp/dval-acquire-race"
#define NAME "race"
#define MAX_THREADS 128

static void logfn(int level, const char *msg, void *ud)
{
    (void)ud;
    if (level <= DVAL_LOG_WARN && getenv("LT_VERBOSE"))
        fprintf(stderr, "    [log %d] %s\n", level, msg);
}

static int env_int(const char *name, int def, int max)
{
    const char *v = getenv(name);
    int n = v ? atoi(v) : 0;
    return n > 0 ? (n < max ? n : max) : def;
}

/* Processes whose command line mentions needle (optionally killed). */
static int count_procs(const char *needle, int kill_them)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    size_t nl = strlen(needle);
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 1 || pid == getpid())
            continue;
        char p[64], buf[8192];
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf);
        close(fd);
        if (r > 0 && memmem(buf, (size_t)r, needle, nl)) {
            n++;
            if (kill_them)
                kill(pid, SIGKILL);
        }
    }
    if (d)
        closedir(d);
    return n;
}

static void rm_rf(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

typedef struct race {
    char dir[256];
    dval_client *client;
    int threads;
    pthread_barrier_t go;
    atomic_int failed, null_msgs;
    pthread_mutex_t lock;
    int nerrs;
    char errs[6][600];
} race;

static void sb_opts(dval_sandbox_options *o)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = NAME;
    o->snapshot = "race-snap";
    o->zombie_pause_ms = -1;
    o->start_timeout_ms = 20000; /* a sandbox stuck "creating": fail, not
                                    wait the default 3 minutes */
}

static void race_err(race *r, const char *what, const char *msg)
{
    atomic_fetch_add(&r->failed, 1);
    if (msg && strstr(msg, "(null)"))
        atomic_fetch_add(&r->null_msgs, 1);
    pthread_mutex_lock(&r->lock);
    if (r->nerrs < 6)
        snprintf(r->errs[r->nerrs++], sizeof r->errs[0], "%s: %s", what,
                 msg ? msg : "");
    pthread_mutex_unlock(&r->lock);
}

static int sink(int stream, const char *channel, const char *data,
                size_t len, void *ud)
{
    (void)channel;
    if (stream == DVAL_STDOUT) {
        char *out = ud;
        size_t n = strlen(out);
        if (n + len < 64) {
            memcpy(out + n, data, len);
            out[n + len] = 0;
        }
    }
    return 0;
}

static void *worker(void *arg)
{
    race *r = arg;
    dval_sandbox_options o;
    sb_opts(&o);
    pthread_barrier_wait(&r->go);
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, r->client, &o);
    if (rc != DVAL_OK) {
        race_err(r, "acquire", dval_client_errmsg(r->client));
        return NULL;
    }
    if (dval_sandbox_state(sb) != DVAL_SANDBOX_STARTED)
        race_err(r, "acquire", dval_sandbox_state_name(dval_sandbox_state(sb)));
    dval_session *s = NULL;
    rc = dval_session_open(&s, sb);
    if (rc != DVAL_OK) {
        race_err(r, "session open", dval_sandbox_errmsg(sb));
    } else {
        char out[64] = "";
        int code = -1;
        rc = dval_session_exec(s, "echo ok", NULL, sink, out, &code);
        if (rc != DVAL_OK)
            race_err(r, "exec", dval_session_errmsg(s));
        else if (code != 0 || strcmp(out, "ok\n") != 0)
            race_err(r, "exec", "wrong exit code or output");
        if (dval_session_close(s) != DVAL_OK)
            race_err(r, "session close", dval_session_errmsg(s));
        dval_session_free(s);
    }
    dval_sandbox_free(sb);
    return NULL;
}

enum start { ABSENT, STOPPED, STARTED, BROKEN, INTERRUPTED };

/* Rewrites the state file's state (as a creator killed mid-create would
 * have left it). */
static void set_state(const race *r, const char *state)
{
    char p[400], cmd[1000];
    snprintf(p, sizeof p, "%s/sandboxes/" NAME "/state", r->dir);
    snprintf(cmd, sizeof cmd, "sed -i 's/^state=.*/state=%s/' '%s'", state,
             p);
    if (system(cmd) != 0)
        th_fail(__FILE__, __LINE__, "%s", cmd);
}

/* Puts the sandbox into the starting state of a loop. */
static void prepare(race *r, enum start st)
{
    dval_sandbox_options o;
    sb_opts(&o);
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, r->client, &o);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "prepare: acquire: %s: %s",
                dval_status_name(rc), dval_client_errmsg(r->client));
    if (st == ABSENT)
        CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    else if (st == STOPPED)
        CHECK_INT(dval_sandbox_stop(sb), DVAL_OK);
    else if (st == INTERRUPTED) {
        CHECK_INT(dval_sandbox_stop(sb), DVAL_OK);
        set_state(r, "creating");
    }
    else if (st == BROKEN) {
        int pid = sbstate_init_pid(r->dir, NAME);
        CHECK(pid > 1);
        CHECK_INT(kill(pid, SIGKILL), 0);
        for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
            usleep(5000);
    }
    dval_sandbox_free(sb);
}

static void run(const char *name, enum start st)
{
    static race r;
    memset(&r, 0, sizeof r);
    if (geteuid() != 0)
        th_skip("the local executor tests need root (overlay over /)");
    mkdir(BASE, 0755);
    snprintf(r.dir, sizeof r.dir, BASE "/%s", name);
    count_procs(r.dir, 1);
    rm_rf(r.dir);
    pthread_mutex_init(&r.lock, NULL);
    r.threads = env_int("DVAL_RACE_THREADS", 8, MAX_THREADS);
    int loops = env_int("DVAL_RACE_LOOPS", 6, 1000);
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = r.dir;
    co.local = &lo;
    co.log_fn = logfn;
    co.log_level = DVAL_LOG_WARN;
    co.retry_base_ms = 20;
    CHECK_INT(dval_client_new(&r.client, &co), DVAL_OK);
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "race-snap";
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, r.client, &s, NULL, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(r.client));
    CHECK_INT(rc, DVAL_OK);
    dval_snapshot_free(snap);
    pthread_t th[MAX_THREADS];
    for (int loop = 0; loop < loops; loop++) {
        if (loop > 0 || st != ABSENT)
            prepare(&r, st);
        pthread_barrier_init(&r.go, NULL, (unsigned)r.threads);
        for (int i = 0; i < r.threads; i++)
            CHECK_INT(pthread_create(&th[i], NULL, worker, &r), 0);
        for (int i = 0; i < r.threads; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&r.go);
    }
    /* delete what is left; nothing of it may outlive the deletion */
    dval_sandbox_options o;
    sb_opts(&o);
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, r.client, &o), DVAL_OK);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    dval_client_free(r.client);
    int left = 0;
    for (int i = 0; i < 100 && (left = count_procs(r.dir, 0)); i++)
        usleep(20000);
    count_procs(r.dir, 1);
    fprintf(stderr, "    %s: %d threads x %d loops, %d failed\n", name,
            r.threads, loops, atomic_load(&r.failed));
    for (int i = 0; i < r.nerrs; i++)
        fprintf(stderr, "      %s\n", r.errs[i]);
    CHECK_INT(atomic_load(&r.null_msgs), 0);
    CHECK_INT(atomic_load(&r.failed), 0);
    CHECK_INT(left, 0);
    rm_rf(r.dir);
}

TEST(acquire_race_absent) { run("absent", ABSENT); }
TEST(acquire_race_stopped) { run("stopped", STOPPED); }
TEST(acquire_race_started) { run("started", STARTED); }
TEST(acquire_race_broken) { run("broken", BROKEN); }
/* A creator that died between making the sandbox and starting it (state
 * "creating", its lock free): acquirers recover it instead of waiting for
 * a creation that will never end. */
TEST(acquire_race_interrupted_create) { run("interrupted", INTERRUPTED); }

/* Acquires racing with deletes: odd threads delete the sandbox they just
 * acquired, even ones use it (their session may fail: the sandbox can be
 * deleted under them). Whatever interleaving, no init may survive the
 * last delete and nothing may be left in the state dir. A lock taken on a
 * sandbox directory that a delete renamed away meanwhile guarded nothing:
 * a start under it could run an init nobody would ever kill. */
static void *churn(void *arg)
{
    race *r = arg;
    static atomic_int next;
    int t = atomic_fetch_add(&next, 1);
    dval_sandbox_options o;
    sb_opts(&o);
    pthread_barrier_wait(&r->go);
    for (int i = 0; i < 6; i++) {
        dval_sandbox *sb = NULL;
        int rc = dval_sandbox_acquire(&sb, r->client, &o);
        if (rc != DVAL_OK) {
            const char *m = dval_client_errmsg(r->client);
            if (m && strstr(m, "(null)"))
                race_err(r, "acquire", m);
            continue;
        }
        if (t % 2) {
            dval_sandbox_delete(sb);
        } else {
            dval_session *s = NULL;
            if (dval_session_open(&s, sb) == DVAL_OK) {
                int code;
                dval_session_exec(s, "true", NULL, NULL, NULL, &code);
                dval_session_close(s);
                dval_session_free(s);
            }
        }
        dval_sandbox_free(sb);
    }
    return NULL;
}

TEST(acquire_race_with_deletes)
{
    static race r;
    memset(&r, 0, sizeof r);
    if (geteuid() != 0)
        th_skip("the local executor tests need root (overlay over /)");
    mkdir(BASE, 0755);
    snprintf(r.dir, sizeof r.dir, BASE "/churn");
    count_procs(r.dir, 1);
    rm_rf(r.dir);
    pthread_mutex_init(&r.lock, NULL);
    r.threads = env_int("DVAL_RACE_THREADS", 8, MAX_THREADS);
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = r.dir;
    co.local = &lo;
    co.log_fn = logfn;
    co.log_level = DVAL_LOG_WARN;
    co.retry_base_ms = 20;
    CHECK_INT(dval_client_new(&r.client, &co), DVAL_OK);
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "race-snap";
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, r.client, &s, NULL, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(r.client));
    CHECK_INT(rc, DVAL_OK);
    dval_snapshot_free(snap);
    pthread_t th[MAX_THREADS];
    pthread_barrier_init(&r.go, NULL, (unsigned)r.threads);
    for (int i = 0; i < r.threads; i++)
        CHECK_INT(pthread_create(&th[i], NULL, churn, &r), 0);
    for (int i = 0; i < r.threads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&r.go);
    dval_sandbox_options o;
    sb_opts(&o);
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, r.client, &o), DVAL_OK);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    dval_client_free(r.client);
    int left = 0;
    for (int i = 0; i < 100 && (left = count_procs(r.dir, 0)); i++)
        usleep(20000);
    count_procs(r.dir, 1);
    char p[400];
    snprintf(p, sizeof p, "%s/sandboxes", r.dir);
    DIR *d = opendir(p);
    struct dirent *e;
    int entries = 0;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            fprintf(stderr, "    left in the state dir: %s\n", e->d_name);
            entries++;
        }
    if (d)
        closedir(d);
    for (int i = 0; i < r.nerrs; i++)
        fprintf(stderr, "      %s\n", r.errs[i]);
    CHECK_INT(atomic_load(&r.null_msgs), 0);
    CHECK_INT(left, 0);
    CHECK_INT(entries, 0);
    rm_rf(r.dir);
}
