/* Concurrency stress of the local executor through the public API: one
 * dval_client shared by 32 threads × 20 sessions (tests/stress/stress.h),
 * on one shared sandbox handle and on several sandboxes acquired
 * concurrently by every thread. Also the state-store races those runs
 * revealed, each shown directly:
 *  - state files written by two threads of one process through the same
 *    temporary name (a reader saw an empty file: "sandbox (null) is
 *    unknown, not started");
 *  - unlocked read-modify-write of the state file by activity stamps
 *    (lost a concurrent stop: a stopped sandbox came back as "started");
 * and that nothing of the sandboxes outlives their deletion, and that a
 * sandbox's init ends on a SIGTERM from the host (not from inside). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "executor/local/local.h"
#include "stress/stress.h"
#include "sbstate.h"

#define BASE "/tmp/dval-stress-local"

/* In every command of this process's sandboxes (sb_opts), so fx_close
 * finds what outlived them. */
static char run_mark[64];

static atomic_int warnings;

static void logfn(int level, const char *msg, void *ud)
{
    (void)ud;
    if (level <= DVAL_LOG_WARN) {
        atomic_fetch_add(&warnings, 1);
        fprintf(stderr, "    [log %d] %s\n", level, msg);
    } else if (getenv("LT_VERBOSE")) {
        fprintf(stderr, "    [log %d] %s\n", level, msg);
    }
}

typedef struct fx {
    char dir[256];
    dval_client *client;
    dval_snapshot *snap;
} fx;

static void rm_rf(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Processes whose command line or environment mentions needle. */
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
        static const char *files[] = { "cmdline", "environ" };
        for (int f = 0; f < 2; f++) {
            char p[64], buf[16384];
            snprintf(p, sizeof p, "/proc/%d/%s", pid, files[f]);
            int fd = open(p, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            ssize_t r = read(fd, buf, sizeof buf);
            close(fd);
            if (r > 0 && memmem(buf, (size_t)r, needle, nl)) {
                n++;
                if (kill_them)
                    kill(pid, SIGKILL);
                break;
            }
        }
    }
    if (d)
        closedir(d);
    return n;
}

static void fx_open(fx *f, const char *name)
{
    memset(f, 0, sizeof *f);
    if (geteuid() != 0)
        th_skip("the local executor stress needs root (overlay over /)");
    mkdir(BASE, 0755);
    snprintf(f->dir, sizeof f->dir, BASE "/%s", name);
    count_procs(f->dir, 1);
    rm_rf(f->dir);
    snprintf(run_mark, sizeof run_mark, "DVAL_STRESS_RUN=%d", (int)getpid());
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = f->dir;
    o.local = &lo;
    o.log_fn = logfn;
    o.log_level = DVAL_LOG_WARN;
    o.retry_base_ms = 50;
    CHECK_INT(dval_client_new(&f->client, &o), DVAL_OK);
    const char *steps[] = { "echo stress > /etc/dval-stress", NULL };
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "stress-snap";
    s.build_commands = steps;
    int rc = dval_snapshot_ensure(&f->snap, f->client, &s, NULL, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(f->client));
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "snapshot: %s: %s", dval_status_name(rc),
                dval_client_errmsg(f->client));
}

static void sb_opts(dval_sandbox_options *o, const char *name)
{
    static const char *env[] = { run_mark, NULL };
    dval_sandbox_options_init(o, sizeof *o);
    o->env = env;
    o->name = name;
    o->snapshot = "stress-snap";
    o->release = DVAL_RELEASE_DELETE;
}

/* Frees the client; checks that no process of the state dir is left. */
static void fx_close(fx *f)
{
    dval_snapshot_free(f->snap);
    dval_client_free(f->client);
    int left = 0;
    for (int i = 0; i < 100 && (left = count_procs(f->dir, 0) +
                                       count_procs(run_mark, 0)); i++)
        usleep(20000);
    if (left) {
        count_procs(f->dir, 1);
        count_procs(run_mark, 1);
        th_fail(__FILE__, __LINE__, "%d processes of %s outlived their "
                "sandboxes", left, f->dir);
    }
    rm_rf(f->dir);
}

TEST(stress_shared_sandbox)
{
    fx f;
    fx_open(&f, "shared");
    dval_sandbox_options o;
    sb_opts(&o, "stress-shared");
    stress st;
    dval_sandbox *sb = stress_run_shared(&st, f.client, &o);
    /* the sandbox is still there and started after all of it */
    CHECK_INT(dval_sandbox_refresh(sb), DVAL_OK);
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    stress_check(&st, "local shared sandbox");
    fx_close(&f);
}

TEST(stress_several_sandboxes_own_handles)
{
    fx f;
    fx_open(&f, "several");
    static const char *const names[] = { "stress-0", "stress-1", "stress-2",
                                         "stress-3" };
    dval_sandbox_options o;
    sb_opts(&o, NULL);
    stress st;
    /* every thread acquires its own handle: the first ones race to create
     * each sandbox, the others find it */
    stress_run_named(&st, f.client, &o, names, 4, 1);
    stress_check(&st, "local 4 sandboxes");
    fx_close(&f);
}

/* ---- the races, one by one, on the executor's own functions */

typedef struct kv_race {
    char path[300];
    atomic_int stop;
    atomic_long bad, reads, writes;
    int id;
} kv_race;

static void *kv_writer(void *arg)
{
    kv_race *k = arg;
    lx_kv kv;
    memset(&kv, 0, sizeof kv);
    lx_kv_set(&kv, "name", "sb");
    lx_kv_set(&kv, "state", "started");
    for (int i = 0; i < 2000 && !atomic_load(&k->stop); i++) {
        lx_kv_setnum(&kv, "last_activity", i);
        if (lx_kv_save(&kv, k->path) != DVAL_OK)
            atomic_fetch_add(&k->bad, 1);
        atomic_fetch_add(&k->writes, 1);
    }
    lx_kv_free(&kv);
    return NULL;
}

static void *kv_reader(void *arg)
{
    kv_race *k = arg;
    while (!atomic_load(&k->stop)) {
        lx_kv kv;
        int rc = lx_kv_load(&kv, k->path);
        if (rc != DVAL_OK || !lx_kv_get(&kv, "name") ||
            !lx_kv_get(&kv, "state"))
            atomic_fetch_add(&k->bad, 1);
        if (rc == DVAL_OK)
            lx_kv_free(&kv);
        atomic_fetch_add(&k->reads, 1);
    }
    return NULL;
}

/* Many threads of one process save the same state file while others read
 * it: every read sees a whole file, every save succeeds, and no temporary
 * file is left behind. (Before: one "<path>.tmp.<pid>" for all threads.) */
TEST(state_file_concurrent_writers_and_readers)
{
    kv_race k;
    memset(&k, 0, sizeof k);
    char dir[] = "/tmp/dval-kvrace-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(k.path, sizeof k.path, "%s/state", dir);
    lx_kv kv;
    memset(&kv, 0, sizeof kv);
    lx_kv_set(&kv, "name", "sb");
    lx_kv_set(&kv, "state", "started");
    CHECK_INT(lx_kv_save(&kv, k.path), DVAL_OK);
    lx_kv_free(&kv);
    pthread_t w[6], r[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, kv_reader, &k);
    for (int i = 0; i < 6; i++)
        pthread_create(&w[i], NULL, kv_writer, &k);
    for (int i = 0; i < 6; i++)
        pthread_join(w[i], NULL);
    atomic_store(&k.stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    fprintf(stderr, "    %ld writes, %ld reads, %ld bad\n",
            atomic_load(&k.writes), atomic_load(&k.reads),
            atomic_load(&k.bad));
    CHECK_INT(atomic_load(&k.bad), 0);
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            files++;
    closedir(d);
    CHECK_INT(files, 1);
    rm_rf(dir);
}

#define UID_NAMES 300
#define UID_THREADS 8

typedef struct uid_race {
    lx_sb sb;
    int t;
    long uid[UID_NAMES];
    int failed;
} uid_race;

static void *uid_allocator(void *arg)
{
    uid_race *u = arg;
    for (int k = 0; k < UID_NAMES; k++) {
        int i = (k * 7 + u->t * 37) % UID_NAMES; /* each its own order */
        char name[32];
        snprintf(name, sizeof name, "v%d", i);
        dval_call c;
        memset(&c, 0, sizeof c);
        c.struct_size = sizeof c;
        c.cancel_fd = -1;
        if (lx_uid_alloc(&c, &u->sb, name, &u->uid[i]) != DVAL_OK)
            u->failed++;
    }
    return NULL;
}

/* The per-validation uid table is written without a lock (one O_APPEND
 * write per new name): threads allocating the same names in different
 * orders all get one uid per name, a different one for each name; a line
 * a crash cut short keeps a slot of its own. */
TEST(uid_table_concurrent_allocations)
{
    char dir[] = "/tmp/dval-uidrace-XXXXXX", p[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(p, sizeof p, "%s/uids", dir);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs("cut", f); /* no newline: a write a crash cut */
    fclose(f);
    static uid_race u[UID_THREADS];
    pthread_t th[UID_THREADS];
    for (int t = 0; t < UID_THREADS; t++) {
        memset(&u[t], 0, sizeof u[t]);
        snprintf(u[t].sb.dir, sizeof u[t].sb.dir, "%s", dir);
        u[t].t = t;
        pthread_create(&th[t], NULL, uid_allocator, &u[t]);
    }
    for (int t = 0; t < UID_THREADS; t++)
        pthread_join(th[t], NULL);
    long base = lx_uid_base(&u[0].sb);
    for (int t = 0; t < UID_THREADS; t++) {
        CHECK_INT(u[t].failed, 0);
        for (int i = 0; i < UID_NAMES; i++)
            CHECK_INT(u[t].uid[i], u[0].uid[i]);
    }
    for (int i = 0; i < UID_NAMES; i++) {
        CHECK(u[0].uid[i] > base + 1); /* slot 1: the cut line's */
        for (int j = 0; j < i; j++)
            CHECK(u[0].uid[i] != u[0].uid[j]);
    }
    long cut = 0;
    dval_call c;
    memset(&c, 0, sizeof c);
    c.cancel_fd = -1;
    CHECK_INT(lx_uid_alloc(&c, &u[0].sb, "cut", &cut), DVAL_OK);
    CHECK_INT(cut, base + 1);
    rm_rf(dir);
}

typedef struct touch_race {
    lx *x;
    atomic_int stop;
    atomic_long touches;
} touch_race;

static void *toucher(void *arg)
{
    touch_race *tr = arg;
    while (!atomic_load(&tr->stop)) {
        dval_call c;
        memset(&c, 0, sizeof c);
        c.struct_size = sizeof c;
        c.cancel_fd = -1;
        lx_sb sb;
        if (lx_sb_open(tr->x, &c, "victim", &sb, NULL) == DVAL_OK) {
            if (lx_sb_require_started(&c, &sb) == DVAL_OK)
                lx_sb_touch(&sb);
            lx_sb_close(&sb);
        }
        atomic_fetch_add(&tr->touches, 1);
    }
    return NULL;
}

/* Activity stamps (every session/command/file operation) run while the
 * sandbox is stopped from another thread: the stop must stick. Before, a
 * stamp wrote back the whole state it had read, "started" and the dead
 * init's pid included. */
TEST(activity_stamp_does_not_undo_stop)
{
    if (geteuid() != 0)
        th_skip("needs root (overlay over /)");
    char dir[] = BASE "/touch";
    mkdir(BASE, 0755);
    count_procs(dir, 1);
    rm_rf(dir);
    dval__config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.log_fn = logfn;
    cfg.log_level = DVAL_LOG_WARN;
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = dir;
    struct dval_executor ex;
    char err[256] = "";
    CHECK_INT(dval__local_executor(&ex, &cfg, &lo, err, sizeof err), DVAL_OK);
    dval_call c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.cancel_fd = -1;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "victim";
    dval_sandbox_info info = { .struct_size = sizeof info };
    int rc = ex.sandbox_create(ex.userdata, &c, &o, &info);
    if (rc == DVAL_EISOLATION)
        th_skip(c.errmsg);
    CHECK_INT(rc, DVAL_OK);
    touch_race tr = { .x = ex.userdata };
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, toucher, &tr);
    int bad = 0;
    for (int round = 0; round < 10; round++) {
        usleep(20000);
        CHECK_INT(ex.sandbox_stop(ex.userdata, &c, "victim", &info), DVAL_OK);
        CHECK_INT(info.state, DVAL_SANDBOX_STOPPED);
        usleep(20000);
        CHECK_INT(ex.sandbox_get(ex.userdata, &c, "victim", &info), DVAL_OK);
        if (info.state != DVAL_SANDBOX_STOPPED) {
            fprintf(stderr, "    round %d: stopped sandbox is %s (%s)\n",
                    round, dval_sandbox_state_name(info.state),
                    info.error_reason);
            bad++;
        }
        CHECK_INT(ex.sandbox_start(ex.userdata, &c, "victim", &info),
                  DVAL_OK);
        CHECK_INT(info.state, DVAL_SANDBOX_STARTED);
    }
    atomic_store(&tr.stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    fprintf(stderr, "    %ld activity stamps\n", atomic_load(&tr.touches));
    CHECK_INT(ex.sandbox_delete(ex.userdata, &c, "victim"), DVAL_OK);
    ex.destroy(ex.userdata);
    CHECK_INT(bad, 0);
    CHECK_INT(count_procs(dir, 1), 0);
    rm_rf(dir);
}

/* The init ignored SIGTERM (a namespace's init without a handler): a host
 * shutdown or cleanup script left sandboxes running. Now SIGTERM from the
 * host ends it (and everything in it); from inside it still does not. */
TEST(init_exits_on_host_sigterm_only)
{
    if (geteuid() != 0)
        th_skip("needs root (overlay over /)");
    char dir[] = BASE "/sigterm";
    mkdir(BASE, 0755);
    count_procs(dir, 1);
    rm_rf(dir);
    dval__config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.log_fn = logfn;
    cfg.log_level = DVAL_LOG_WARN;
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = dir;
    struct dval_executor ex;
    char err[256] = "";
    CHECK_INT(dval__local_executor(&ex, &cfg, &lo, err, sizeof err), DVAL_OK);
    dval_call c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.cancel_fd = -1;
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "term";
    dval_sandbox_info info = { .struct_size = sizeof info };
    int rc = ex.sandbox_create(ex.userdata, &c, &o, &info);
    if (rc == DVAL_EISOLATION)
        th_skip(c.errmsg);
    CHECK_INT(rc, DVAL_OK);
    int pid = sbstate_init_pid(dir, "term");
    CHECK(pid > 1);
    /* from inside: pid 1 of the sandbox ignores it */
    CHECK_INT(ex.session_create(ex.userdata, &c, "term", "s1"), DVAL_OK);
    char cmd[DVAL_ID_MAX];
    dval_command d = { .struct_size = sizeof d, .sandbox_id = "term",
                       .session_id = "s1", .text = "kill -TERM 1; sleep 0.2" };
    CHECK_INT(ex.command_start(ex.userdata, &c, &d, cmd), DVAL_OK);
    int fin = 0, code = -1;
    for (int i = 0; i < 500 && !fin; i++) {
        CHECK_INT(ex.command_status(ex.userdata, &c, "term", "s1", cmd, &fin,
                                    &code), DVAL_OK);
        usleep(10000);
    }
    CHECK(fin);
    CHECK_INT(ex.session_delete(ex.userdata, &c, "term", "s1"), DVAL_OK);
    CHECK_INT(kill(pid, 0), 0);
    CHECK_INT(ex.sandbox_get(ex.userdata, &c, "term", &info), DVAL_OK);
    CHECK_INT(info.state, DVAL_SANDBOX_STARTED);
    /* from the host: the init exits and the sandbox reads as error */
    CHECK_INT(kill(pid, SIGTERM), 0);
    for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
        usleep(10000);
    CHECK(kill(pid, 0) != 0);
    CHECK_INT(ex.sandbox_get(ex.userdata, &c, "term", &info), DVAL_OK);
    CHECK_INT(info.state, DVAL_SANDBOX_ERROR);
    CHECK_INT(ex.sandbox_recover(ex.userdata, &c, "term", &info), DVAL_OK);
    CHECK_INT(info.state, DVAL_SANDBOX_STARTED);
    CHECK_INT(ex.sandbox_delete(ex.userdata, &c, "term"), DVAL_OK);
    ex.destroy(ex.userdata);
    CHECK_INT(count_procs(dir, 1), 0);
    rm_rf(dir);
}
