/* A recycled sandbox keeps nothing of its earlier use (issue 14 item 2):
 * a pool of one isolation=sandbox slot on the local executor; validation
 * 1 is an attacker that leaves a detached loop (its environment cleared,
 * so the session sweep's marker misses it) rewriting files and other
 * validations' results, files in /tmp, /dev/shm, $HOME, /var/tmp and in
 * another thread's working directory, and SysV shm and message queue
 * objects. Validation 2, on the same recycled sandbox (same name, one
 * sandbox created, a new init), must see none of it, and its results must
 * be its own. */
#include "hostile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATTACK                                                              \
    "loop='while :; do echo evil > /sandbox/evil.txt 2>/dev/null; "        \
    "echo evil > /tmp/evil.txt; for r in /sandbox/*/results; do "           \
    "echo forged > \"$r/r.json\"; done; sleep 0.02; done # DVALATTACKLOOP'\n" \
    "(env -i setsid nohup sh -c \"$loop\" </dev/null >/dev/null 2>&1 &)\n"  \
    "echo x > /tmp/t1 && echo x > /dev/shm/s1 && echo x > \"$HOME/h1\" &&\n" \
    "echo x > /var/tmp/v1 && echo FILES-LEFT\n"                             \
    "echo x > /home/daytona/h1 2>/dev/null && echo HOME-LEFT\n"             \
    "mkdir -p deep/other-tid/results &&\n"                                 \
    "echo forged > deep/other-tid/results/r.json && echo TREE-LEFT\n"      \
    "ipcmk -M 4096 >/dev/null && ipcmk -Q >/dev/null && echo IPC-LEFT\n"    \
    "ipcs -m -q | grep -c '^0x'\n"                                          \
    "sleep 0.2; test -e /tmp/evil.txt && echo LOOP-RUNS\n"

/* Prints what is left: files, processes other than this session's, SysV
 * objects; then its results, checked again after a pause. /sandbox is
 * not listable inside (test_hostile_share): the test lists it from the
 * host while the victim waits after LIST-NOW. */
#define VICTIM                                                              \
    "echo '{\"ok\":2}' > results/r.json\n"                                  \
    "for f in /sandbox/evil.txt /tmp/evil.txt /tmp/t1 /dev/shm/s1 "         \
    "\"$HOME/h1\" /var/tmp/v1 /home/daytona/h1 /sandbox/other-tid; do\n"   \
    "  [ -e \"$f\" ] && echo \"LEFT $f\"\n"                                 \
    "done\n"                                                                \
    "for d in /tmp /dev/shm /var/tmp /home/daytona; do\n"                   \
    "  ls -A \"$d\" 2>/dev/null | sed \"s|^|LS $d/|\"\n"                       \
    "done\n"                                                                \
    "echo LIST-NOW; sleep 0.5\n"                                           \
    "for p in /proc/[0-9]*; do\n"                                           \
    "  c=$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)\n"                        \
    "  case \"$c\" in *DVALATTACKLOOP*) echo \"PROC ${p#/proc/} $c\";; esac\n" \
    "done\n"                                                                \
    "echo \"IPC $(ipcs -m -q | grep -c '^0x')\"\n"                          \
    "sleep 0.3; cat results/r.json\n"

/* The victim's stdout, and "SB <entry>" lines for what /sandbox held
 * when it printed LIST-NOW, as the host sees it through the sandbox's
 * init (sbdir: the sandbox's directory in the state dir). */
typedef struct lister {
    hx *h;
    hx_buf out;
    const char *sbdir;
    char listing[4096];
    int listed;
} lister;

static void list_sandbox_dir(lister *l)
{
    char p[1200];
    hx_inside(l->h, l->sbdir, "/sandbox", p, sizeof p);
    DIR *d = opendir(p);
    struct dirent *e;
    size_t n = 0;
    while (d && (e = readdir(d)) && n < sizeof l->listing - 300)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n += (size_t)snprintf(l->listing + n, sizeof l->listing - n,
                                  "SB %s\n", e->d_name);
    l->listed = d != NULL;
    if (d)
        closedir(d);
}

static int on_victim_event(const dval_event *ev, void *ud)
{
    lister *l = ud;
    int rc = hx_on_stdout(ev, &l->out);
    if (!l->listed && l->out.data && strstr(l->out.data, "LIST-NOW\n"))
        list_sandbox_dir(l);
    return rc;
}

/* One isolation=sandbox validation of script through the pool: its
 * stdout (free), the summary in *json (dval_free); with l, the stdout
 * goes through l (and the result is l's). */
static char *run(hx *h, dval_pool *pool, const char *script, char **json,
                 lister *l)
{
    char *out = NULL;
    int rc;
    if (l) {
        l->out.data = calloc(1, 1);
        rc = hx_pool_run_ev(h, pool, script, NULL, on_victim_event, l, json);
        out = l->out.data;
    } else {
        rc = hx_pool_run(h, pool, script, NULL, &out, json);
    }
    /* the attacker's loop forges its own results too */
    if (rc && !(rc == DVAL_ERESULTS && strstr(script, "DVALATTACKLOOP")))
        th_fail(__FILE__, __LINE__, "validation: %s: %s",
                dval_status_name(rc), dval_client_errmsg(h->client));
    return out;
}

/* The only sandbox directory of the state dir: its name and init pid. */
static int only_sandbox(const hx *h, char *name, size_t cap)
{
    sbstate_only_name(h->dir, name, cap);
    return sbstate_init_pid(h->dir, name);
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *l = text; l && *l;) {
        n += !strncmp(l, prefix, strlen(prefix));
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
    return n;
}

/* Lines of <state>/sandboxes/<dir>/<file> (0 when absent), entries of
 * a directory there with dir_entries. */
static int lines_of(const hx *h, const char *dir, const char *file)
{
    char p[1200], line[400];
    snprintf(p, sizeof p, "%s/sandboxes/%s/%s", h->dir, dir, file);
    FILE *f = fopen(p, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n++;
    if (f)
        fclose(f);
    return n;
}

/* Entries of a sandbox's directory sub, but "." and ".." and the
 * claims' spare (a released claim kept to be taken again) */
static int dir_entries(const hx *h, const char *dir, const char *sub)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/sandboxes/%s/%s", h->dir, dir, sub);
    DIR *d = opendir(p);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.' && strcmp(e->d_name, "+spare");
    if (d)
        closedir(d);
    return n;
}

static const char *sandbox_of(const char *json, char *buf, size_t cap)
{
    const char *s = strstr(json, "\"sandbox\":\"");
    CHECK(s);
    s += 11;
    snprintf(buf, cap, "%.*s", (int)strcspn(s, "\""), s);
    return buf;
}

TEST(test_hostile__recycled_sandbox_keeps_nothing)
{
    hx h;
    hx_open(&h, "ho-recycle");
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.name = "rcy";
    o.max_sandboxes = 1;
    dval_pool *pool = NULL;
    CHECK_INT(dval_pool_new(&pool, h.client, &o), DVAL_OK);
    char *j1 = NULL, *j2 = NULL, n1[200], n2[200], dir1[300], dir2[300];
    char *o1 = run(&h, pool, ATTACK, &j1, NULL);
    fprintf(stderr, "    attacker:\n%s", o1);
    CHECK_CONTAINS(o1, "FILES-LEFT");
    CHECK_CONTAINS(o1, "TREE-LEFT");
    CHECK_CONTAINS(o1, "IPC-LEFT");
    CHECK_CONTAINS(o1, "LOOP-RUNS");
    int pid1 = only_sandbox(&h, dir1, sizeof dir1);
    lister l = { &h, { NULL, 0 }, dir1, "", 0 };
    char *o2 = run(&h, pool, VICTIM, &j2, &l);
    fprintf(stderr, "    second validation:\n%s%s", o2, l.listing);
    int pid2 = only_sandbox(&h, dir2, sizeof dir2);
    /* really recycled: the same (only) sandbox; the fast reset keeps its
     * init (lib/executor/local/sandbox_reset.c), the full one
     * (DVAL_LOCAL_FULL_RESET=1, or where the fast one cannot be done)
     * starts a new one */
    CHECK_STR(sandbox_of(j1, n1, sizeof n1), sandbox_of(j2, n2, sizeof n2));
    CHECK_STR(dir1, dir2);
    CHECK(pid1 > 0 && pid2 > 0);
    const char *full = getenv("DVAL_LOCAL_FULL_RESET");
    if ((full && !strcmp(full, "1")) || geteuid() != 0)
        CHECK(pid1 != pid2);
    else
        CHECK_INT(pid1, pid2);
    /* the reset after validation 2 forgot both thread ids' uids and
     * workdir claims: a sandbox recycled thousands of times neither runs
     * out of uid slots nor scans an ever longer table */
    CHECK_INT(lines_of(&h, dir2, "uids"), 0);
    CHECK_INT(dir_entries(&h, dir2, "claims"), 0);
    CHECK(!strstr(o2, "LEFT "));
    CHECK(!strstr(o2, "LS "));      /* /tmp, /dev/shm, /var/tmp, home empty */
    CHECK(!strstr(o2, "PROC "));
    CHECK(l.listed);
    CHECK(!strstr(l.listing, "SB other-tid"));
    /* $HOME is the working directory: the attacker's is gone with it */
    CHECK_INT(count_lines(l.listing, "SB "), 1);
    CHECK_CONTAINS(o2, "IPC 0\n");
    CHECK_CONTAINS(o2, "{\"ok\":2}\n");   /* not rewritten while it ran */
    CHECK(!strstr(o2, "forged"));
    CHECK_CONTAINS(j2, "{\"ok\":2}");     /* the results it returned */
    CHECK(!strstr(j2, "forged"));
    free(o1);
    free(o2);
    dval_free(j1);
    dval_free(j2);
    dval_pool_free(pool);
    /* dval_pool_free deleted the recycled sandbox */
    char p[1200];
    snprintf(p, sizeof p, "%s/sandboxes/%s", h.dir, dir1);
    CHECK(access(p, F_OK) != 0);
    hx_close(&h);
}
