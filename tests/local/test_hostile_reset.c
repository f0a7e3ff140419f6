/* The reset that keeps a sandbox's init and namespaces (issue 14 item 7,
 * lib/executor/local/sandbox_reset.c) against a hostile earlier use: a
 * pool of one isolation=sandbox slot; validation 1 runs
 * tests/local/reset_attack.c, validation 2 on the recycled sandbox checks
 * what is left, and the host checks the sandbox's pid namespace between
 * the two (the reset runs before dval_pool_validate returns).
 *   - processes: a SIGSTOPped one, a zombie's parent, one forking in a
 *     loop, all detached from the session; none may survive the reset;
 *   - SysV shm, queue and semaphore set, a POSIX queue and shm object;
 *   - a deep tree (/var/tmp), a fifo and a symlink (/tmp), a file in
 *     /sandbox; the hostname (the attempt to change it must fail);
 *   - a TCP port left in TIME_WAIT: the next use must be able to bind
 *     it (the fast reset refuses a netns with a socket left, and the full
 *     reset makes a new one). */
#include "hostile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One isolation=sandbox validation of "./reset_attack <mode>". */
static char *run(hx *h, dval_pool *pool, const char *mode)
{
    char bin[700], script[200];
    const char *files[] = { bin, NULL };
    snprintf(bin, sizeof bin, "%s/reset_attack", h->src);
    if (access(bin, X_OK) != 0) {
        char cmd[1600];
        snprintf(cmd, sizeof cmd, "cc -static -O1 -o '%s' "
                 "tests/local/reset_attack.c", bin);
        if (system(cmd) != 0)
            th_fail(__FILE__, __LINE__, "%s", cmd);
    }
    /* env -i: without the session's marker in their environment, the
     * session's sweep misses the detached processes: the reset must
     * remove them */
    snprintf(script, sizeof script, "chmod +x reset_attack && "
             "env -i ./reset_attack %s\n", mode);
    char *out;
    int rc = hx_pool_run(h, pool, script, files, &out, NULL);
    if (rc)
        th_fail(__FILE__, __LINE__, "validation: %s: %s",
                dval_status_name(rc), dval_client_errmsg(h->client));
    fprintf(stderr, "    %s:\n%s", mode, out);
    return out;
}

/* The init pid of the only sandbox of the state dir. */
static int init_pid(const hx *h)
{
    char name[256];
    sbstate_only_name(h->dir, name, sizeof name);
    return sbstate_init_pid(h->dir, name);
}

/* Processes of the host in the pid namespace of init's children. */
static int in_sandbox(int init)
{
    char p[300], ns[128], other[128];
    snprintf(p, sizeof p, "/proc/%d/ns/pid_for_children", init);
    ssize_t n = readlink(p, ns, sizeof ns - 1);
    CHECK(n > 0);
    ns[n] = 0;
    int count = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while ((e = readdir(d)))
        if (atoi(e->d_name) > 0 && atoi(e->d_name) != init) {
            snprintf(p, sizeof p, "/proc/%s/ns/pid", e->d_name);
            n = readlink(p, other, sizeof other - 1);
            other[n > 0 ? n : 0] = 0;
            count += n > 0 && !strcmp(other, ns);
        }
    closedir(d);
    return count;
}

static dval_pool *pool_of(hx *h)
{
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.name = "rst";
    o.max_sandboxes = 1;
    dval_pool *pool = NULL;
    CHECK_INT(dval_pool_new(&pool, h->client, &o), DVAL_OK);
    return pool;
}

TEST(test_hostile__reset_keeps_no_process_ipc_or_file)
{
    hx h;
    hx_open(&h, "ho-reset");
    dval_pool *pool = pool_of(&h);
    free(run(&h, pool, "check")); /* the slot's sandbox made, then reset */
    int pid0 = init_pid(&h);
    char *o1 = run(&h, pool, "plant");
    CHECK_CONTAINS(o1, "IPC-PLANTED");
    CHECK_CONTAINS(o1, "FILES-PLANTED");
    CHECK(!strstr(o1, "HOSTNAME-CHANGED"));
    int pid1 = init_pid(&h);
    CHECK(pid0 > 0 && pid1 > 0);
    CHECK_INT(in_sandbox(pid1), 0);
    /* the fast reset did it all itself: the same init (a step that left
     * something makes it fall back to the full reset, a new init) */
    const char *full = getenv("DVAL_LOCAL_FULL_RESET");
    if (!full || strcmp(full, "1"))
        CHECK_INT(pid1, pid0);
    char *o2 = run(&h, pool, "check");
    CHECK_CONTAINS(o2, "CHECKED");
    CHECK(!strstr(o2, "LEFT"));
    free(o1);
    free(o2);
    dval_pool_free(pool);
    hx_close(&h);
}

TEST(test_hostile__reset_frees_a_time_wait_port)
{
    hx h;
    hx_open(&h, "ho-resetnet");
    dval_pool *pool = pool_of(&h);
    char *o1 = run(&h, pool, "net");
    CHECK_CONTAINS(o1, "NET-PLANTED");
    char *o2 = run(&h, pool, "bind");
    CHECK_CONTAINS(o2, "BIND-OK");
    free(o1);
    free(o2);
    dval_pool_free(pool);
    hx_close(&h);
}
