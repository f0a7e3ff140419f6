/* Shared helpers of the hostile-program tests (see hostile.h). */
#include "hostile.h"

#include <linux/openat2.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define HX_BASE "/tmp/dval-hostile-tests"

/* Kills every process whose command line names the state dir (inits and
 * helpers left by an earlier, failed run of the same test). */
static void kill_by_dir(const char *dir)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 1 || pid == getpid())
            continue;
        char p[64], buf[8192];
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        FILE *f = fopen(p, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[n] = 0;
        if (n && strstr(buf, "dval-local-helper") && strstr(buf, dir))
            kill(pid, SIGKILL);
    }
    if (d)
        closedir(d);
}

static void rm_rf(const char *dir)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* A failing CHECK _exit()s the test at once: a janitor process waits for
 * the test to end, however it ends (pipe EOF), then kills what is left of
 * its sandboxes and removes its directories. */
static void janitor(const char *dir, const char *src)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        /* out of the terminal's session: a pty closed under a failed run
         * (script | head) would SIGHUP it before it cleans up, leaving the
         * sandbox's init behind */
        setsid();
        close(p[1]);
        char c;
        while (read(p[0], &c, 1) != 0 && errno == EINTR)
            ;
        kill_by_dir(dir);
        umount2(dir, MNT_DETACH); /* a test's own filesystem there */
        rm_rf(dir);
        rm_rf(src);
        _exit(0);
    }
    close(p[0]); /* the write end stays open in the test until it exits */
}

void hx_open(hx *h, const char *name)
{
    memset(h, 0, sizeof *h);
    if (geteuid() != 0)
        th_skip("the hostile-program tests need root");
    /* the local executor fails closed without openat2 (confined files,
     * host-side results); valgrind does not emulate it */
    struct open_how how = { .flags = O_RDONLY | O_DIRECTORY };
    long probe = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
    if (probe < 0 && errno == ENOSYS)
        th_skip("openat2 is not available here (valgrind?)");
    if (probe >= 0)
        close((int)probe);
    mkdir(HX_BASE, 0755);
    /* the pid keeps concurrent runs of the suite (other checkouts on the
     * same machine) out of each other's sandboxes */
    snprintf(h->dir, sizeof h->dir, HX_BASE "/%s.%d", name, (int)getpid());
    snprintf(h->src, sizeof h->src, HX_BASE "/%s.%d.src", name,
             (int)getpid());
    kill_by_dir(h->dir);
    rm_rf(h->dir);
    rm_rf(h->src);
    mkdir(h->src, 0755);
    janitor(h->dir, h->src);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = h->dir;
    o.local = &lo;
    if (dval_client_new(&h->client, &o) != DVAL_OK)
        th_fail(__FILE__, __LINE__, "client");
}

static int collect(const char *id, const char *name, int state, void *ud)
{
    (void)name, (void)state;
    char ***names = ud;
    size_t n = 0;
    while (*names && (*names)[n])
        n++;
    char **nn = realloc(*names, (n + 2) * sizeof *nn);
    if (!nn)
        return 1;
    nn[n] = strdup(id);
    nn[n + 1] = NULL;
    *names = nn;
    return 0;
}

void hx_close(hx *h)
{
    char **names = NULL;
    dval_sandbox_list(h->client, NULL, collect, &names);
    for (size_t i = 0; names && names[i]; i++) {
        dval_sandbox *sb;
        if (dval_sandbox_get(&sb, h->client, names[i]) == DVAL_OK) {
            if (dval_sandbox_delete(sb) != DVAL_OK)
                fprintf(stderr, "delete %s: %s\n", names[i],
                        dval_sandbox_errmsg(sb));
            dval_sandbox_free(sb);
        }
        free(names[i]);
    }
    free(names);
    dval_client_free(h->client);
    kill_by_dir(h->dir);
    umount2(h->dir, MNT_DETACH); /* a test's own filesystem there */
    rm_rf(h->dir);
    rm_rf(h->src);
}

int hx_validate_disk(hx *h, const char *sbname, const char *tid,
                     const char *script, int disk_gib, char **json)
{
    char dir[700], p[800];
    snprintf(dir, sizeof dir, "%s/%d-%d", h->src, (int)getpid(),
             __atomic_add_fetch(&h->nsrc, 1, __ATOMIC_SEQ_CST));
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/run.sh", dir);
    FILE *f = fopen(p, "w");
    if (!f || fputs(script, f) < 0 || fclose(f) != 0)
        th_fail(__FILE__, __LINE__, "write %s", p);
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.profile = "shell";
    r.source_dir = dir;
    r.sandbox_name = sbname;
    r.thread_id = tid;
    r.release = DVAL_RELEASE_KEEP;
    r.timeout_ms = 120000;
    (void)disk_gib; /* set through the sandbox by the disk tests */
    if (json)
        *json = NULL;
    return dval_validate(h->client, &r, NULL, NULL, json);
}

int hx_validate(hx *h, const char *sbname, const char *tid,
                const char *script, char **json)
{
    return hx_validate_disk(h, sbname, tid, script, 0, json);
}

int hx_inits(const hx *h, const char *sbname)
{
    char want[800];
    snprintf(want, sizeof want, "init %s/sandboxes/%s ", h->dir, sbname);
    int count = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 1)
            continue;
        char p[64], buf[8192], st[512] = "";
        snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
        FILE *f = fopen(p, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        snprintf(p, sizeof p, "/proc/%d/stat", pid);
        f = fopen(p, "r");
        if (f && !fgets(st, sizeof st, f))
            st[0] = 0;
        if (f)
            fclose(f);
        char *close_paren = strrchr(st, ')');
        if (close_paren && close_paren[2] == 'Z')
            continue;
        for (size_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[n] = 0;
        if (n && strstr(buf, "dval-local-helper") && strstr(buf, want))
            count++;
    }
    if (d)
        closedir(d);
    return count;
}

void hx_inside(const hx *h, const char *sbname, const char *path, char *out,
               size_t cap)
{
    snprintf(out, cap, "/proc/%d/root%s", sbstate_init_pid(h->dir, sbname),
             path);
}


/* Collects the program's stdout (what a caller's on_event sees). */
int hx_on_stdout(const dval_event *ev, void *ud)
{
    hx_buf *b = ud;
    if (ev->type == DVAL_EVENT_RESTART)
        b->len = 0;
    if (ev->type != DVAL_EVENT_OUTPUT || ev->stream != DVAL_STDOUT)
        return 0;
    char *n = realloc(b->data, b->len + ev->len + 1);
    if (!n)
        return 1;
    memcpy(n + b->len, ev->data, ev->len);
    b->len += ev->len;
    n[b->len] = 0;
    b->data = n;
    return 0;
}

static void copy_file(const char *from, const char *dir)
{
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/'", from, dir);
    if (system(cmd) != 0)
        th_fail(__FILE__, __LINE__, "%s", cmd);
}

void hx_program(hx *h, const char *script, const char *const *files,
                char *dir, size_t cap)
{
    char p[800];
    snprintf(dir, cap, "%s/%d-%d", h->src, (int)getpid(),
             __atomic_add_fetch(&h->nsrc, 1, __ATOMIC_SEQ_CST));
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/run.sh", dir);
    FILE *f = fopen(p, "w");
    if (!f || fputs(script, f) < 0 || fclose(f) != 0)
        th_fail(__FILE__, __LINE__, "write %s", p);
    for (size_t i = 0; files && files[i]; i++)
        copy_file(files[i], dir);
}

int hx_pool_run_ev(hx *h, dval_pool *pool, const char *script,
                   const char *const *files, dval_event_fn on_event,
                   void *ud, char **json)
{
    char dir[700];
    hx_program(h, script, files, dir, sizeof dir);
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.source_dir = dir;
    r.isolation = DVAL_ISOLATION_SANDBOX;
    r.timeout_ms = 120000;
    r.allow_missing_results = 1;
    return dval_pool_validate(pool, &r, on_event, ud, json);
}

int hx_pool_run(hx *h, dval_pool *pool, const char *script,
                const char *const *files, char **out, char **json)
{
    hx_buf b = { calloc(1, 1), 0 };
    int rc = hx_pool_run_ev(h, pool, script, files, hx_on_stdout, &b, json);
    *out = b.data;
    return rc;
}

int hx_sink(int stream, const char *channel, const char *data, size_t len,
            void *ud)
{
    (void)stream, (void)channel;
    hx_out *o = ud;
    size_t room = sizeof o->text - 1 - o->len;
    memcpy(o->text + o->len, data, len < room ? len : room);
    o->len += len < room ? len : room;
    o->text[o->len] = 0;
    return 0;
}

int hx_sh(dval_sandbox *sb, const char *cmd, hx_out *o)
{
    dval_session *s;
    if (dval_session_open(&s, sb) != DVAL_OK)
        th_fail(__FILE__, __LINE__, "session: %s", dval_sandbox_errmsg(sb));
    int code = -1;
    memset(o, 0, sizeof *o);
    int rc = dval_session_exec(s, cmd, NULL, hx_sink, o, &code);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "exec: %s", dval_session_errmsg(s));
    dval_session_close(s);
    dval_session_free(s);
    return code;
}

int hx_run(hx *h, const char *sbname, const char *tid, const char *script,
           const char *const *files, char **out, int *code)
{
    return hx_run_command(h, sbname, tid, script, NULL, files, out, code);
}

int hx_run_command(hx *h, const char *sbname, const char *tid,
                   const char *script, const char *run_command,
                   const char *const *files, char **out, int *code)
{
    char dir[700];
    hx_program(h, script, files, dir, sizeof dir);
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.profile = "shell";
    r.run_command = run_command;
    r.source_dir = dir;
    r.sandbox_name = sbname;
    r.thread_id = tid;
    r.release = DVAL_RELEASE_KEEP;
    r.timeout_ms = 120000;
    r.allow_missing_results = 1;
    hx_buf b = { calloc(1, 1), 0 };
    char *json = NULL;
    int rc = dval_validate(h->client, &r, hx_on_stdout, &b, &json);
    const char *ec = json ? strstr(json, "\"exit_code\":") : NULL;
    *code = ec ? atoi(ec + 12) : -1;
    dval_free(json);
    if (out)
        *out = b.data;
    else
        free(b.data);
    return rc;
}

void hx_compile(const hx *h, const char *src, char *out, size_t cap)
{
    snprintf(out, cap, "%s/attack", h->src);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "cc -static -O1 -o '%s' tests/local/%s", out,
             src);
    if (system(cmd) != 0)
        th_fail(__FILE__, __LINE__, "%s", cmd);
}

void hx_attack_bin(const hx *h, char *out, size_t cap)
{
    hx_compile(h, "hostile_attack.c", out, cap);
}
