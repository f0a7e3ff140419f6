/* Sandboxes of one host share no uid (red team A18): per-user kernel
 * limits count every process of a uid, whichever sandbox it runs in, so
 * with shared uids an attacker in its own sandbox (isolation=sandbox)
 * could use up a limit its victim, in another sandbox, then hits. The
 * attack takes every inotify instance of its uid
 * (fs.inotify.max_user_instances) and holds them while a validation in
 * another sandbox asks for one. */
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define REGISTRY "/var/lib/daytona-validate/uid-ranges"

/* syscall 294: inotify_init1 on x86_64 (perl is in every image) */
#define HOG                                                                 \
    "perl -e 'my @f; while (1) { my $f = syscall(294, 0); last if $f < 0;"  \
    " push @f, $f } print \"took \", scalar(@f), \"\\n\";"                  \
    " open(my $h, \">\", \"took\"); close $h;"                              \
    " for (1..1200) { last if -e \"go\";"                                  \
    " select(undef, undef, undef, 0.1) }'\n"                               \
    "echo uid=$(id -u)\n"

#define VICTIM                                                              \
    "perl -e 'my $f = syscall(294, 0); print $f < 0 ? \"inotify refused:"   \
    " $!\\n\" : \"inotify ok\\n\"'\n"                                       \
    "echo uid=$(id -u)\n"

typedef struct hog {
    hx *h;
    int rc, code;
    char *out;
} hog;

static void *hog_run(void *p)
{
    hog *g = p;
    g->rc = hx_run(g->h, "sba", "hog", HOG, NULL, &g->out, &g->code);
    return NULL;
}

static void at(const hx *h, const char *sb, const char *in, char *p,
               size_t cap)
{
    hx_inside(h, sb, in, p, cap);
}

static long uid_in(const char *out)
{
    const char *u = out ? strstr(out, "uid=") : NULL;
    return u ? atol(u + 4) : -1;
}

/* How many links of registry reg point at target; *range gets the
 * last one's name (NULL ok). With drop set, they are removed. */
static int links_in(const char *reg, const char *target, long *range,
                    int drop)
{
    char p[PATH_MAX + 300], t[PATH_MAX];
    int n = 0;
    DIR *d = opendir(reg);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        snprintf(p, sizeof p, "%s/%s", reg, e->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k <= 0 || (t[k] = 0, strcmp(t, target)))
            continue;
        n++;
        if (range)
            *range = atol(e->d_name);
        if (drop)
            unlink(p);
    }
    if (d)
        closedir(d);
    return n;
}

/* How many registry links point at the sandbox's directory. */
static int links_to(const hx *h, const char *sb)
{
    char want[PATH_MAX];
    snprintf(want, sizeof want, "%s/sandboxes/%s", h->dir, sb);
    return links_in(REGISTRY, want, NULL, 0);
}

TEST(test_hostile_uids__no_per_user_limit_shared_across_sandboxes)
{
    hx h;
    hx_open(&h, "uids");
    /* each validation is the first of its sandbox: with one uid range
     * for all sandboxes both would run as its uid number 1 */
    char *out = NULL;
    int code = -1;
    hog g = { &h, -1, -1, NULL };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, hog_run, &g) == 0);
    char took[1200];
    int waited = 0;
    for (; waited < 6000; waited++) {
        at(&h, "sba", "/sandbox/hog/took", took, sizeof took);
        if (access(took, F_OK) == 0)
            break;
        usleep(10000);
    }
    CHECK(waited < 6000);
    CHECK_INT(hx_run(&h, "sbb", "victim", VICTIM, NULL, &out, &code),
              DVAL_OK);
    char go[1200];
    at(&h, "sba", "/sandbox/hog/go", go, sizeof go);
    int fd = open(go, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    CHECK(fd >= 0);
    close(fd);
    pthread_join(t, NULL);
    CHECK_INT(g.rc, DVAL_OK);
    fprintf(stderr, "    attacker: %s    victim: %s", g.out ? g.out : "",
            out ? out : "");
    /* the attack ran: it took every instance its uid may have */
    CHECK(g.out && strstr(g.out, "took ") && atoi(strstr(g.out, "took ") +
                                                  5) > 0);
    CHECK_CONTAINS(out, "inotify ok");
    long ua = uid_in(g.out), ub = uid_in(out);
    CHECK(ua >= 1879048192L && ub >= 1879048192L);
    /* different ranges, not just different slots of one range */
    CHECK((ua - 1879048192L) / 65536 != (ub - 1879048192L) / 65536);
    CHECK_INT(links_to(&h, "sba"), 1);
    CHECK_INT(links_to(&h, "sbb"), 1);
    /* a deleted sandbox gives its range back */
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_get(&sb, h.client, "sba"), DVAL_OK);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    CHECK_INT(links_to(&h, "sba"), 0);
    free(g.out);
    free(out);
    hx_close(&h);
}

static long run_uid(hx *h, const char *sb)
{
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(h, sb, "t", "echo uid=$(id -u)\n", NULL, &out, &code),
              DVAL_OK);
    long u = uid_in(out);
    free(out);
    return u;
}

/* A sandbox takes its range back when it starts (a registry wiped
 * meanwhile), and a range whose sandbox is gone (its state directory
 * removed without a delete: a crash) is free again: with every range
 * of the registry held by such a link, a new sandbox still gets one. */
TEST(test_hostile_uids__ranges_taken_back_and_freed)
{
    hx h;
    hx_open(&h, "uids-reg");
    char dir[PATH_MAX], fake[128];
    snprintf(dir, sizeof dir, "%s/sandboxes/sa", h.dir);
    long u = run_uid(&h, "sa"), r = -1;
    CHECK_INT(links_in(REGISTRY, dir, &r, 1), 1);
    CHECK_INT((u - 1879048192L) / 65536, r);
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_get(&sb, h.client, "sa"), DVAL_OK);
    CHECK_INT(dval_sandbox_stop(sb), DVAL_OK);
    CHECK_INT(dval_sandbox_start(sb), DVAL_OK);
    dval_sandbox_free(sb);
    long again = -1;
    CHECK_INT(links_in(REGISTRY, dir, &again, 0), 1);
    CHECK_INT(again, r);
    CHECK_INT(run_uid(&h, "sa"), u);
    /* every free range held by a sandbox that is gone */
    snprintf(fake, sizeof fake, "/nonexistent-dval-test/%d", (int)getpid());
    for (long i = 2; i < 4096; i++) {
        char p[300];
        snprintf(p, sizeof p, REGISTRY "/%ld", i);
        (void)symlink(fake, p);
    }
    long ub = run_uid(&h, "sb");
    snprintf(dir, sizeof dir, "%s/sandboxes/sb", h.dir);
    long rb = -1;
    CHECK_INT(links_in(REGISTRY, dir, &rb, 0), 1);
    CHECK_INT((ub - 1879048192L) / 65536, rb);
    CHECK(rb != r);
    links_in(REGISTRY, fake, NULL, 1);
    hx_close(&h);
}

/* Where /var/lib cannot be written, the ranges are registered in the
 * state directory: its sandboxes still get ranges of their own. */
TEST(test_hostile_uids__read_only_var_lib)
{
    hx h;
    hx_open(&h, "uids-ro"); /* first: it skips where the tests cannot run */
    CHECK(unshare(CLONE_NEWNS) == 0);
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHECK(mount("tmpfs", "/var/lib", "tmpfs", MS_RDONLY, "size=1m") == 0);
    long ua = run_uid(&h, "sa"), ub = run_uid(&h, "sb");
    CHECK(ua >= 1879048192L + 2 * 65536 && ub >= 1879048192L + 2 * 65536);
    CHECK((ua - 1879048192L) / 65536 != (ub - 1879048192L) / 65536);
    char reg[PATH_MAX], dir[PATH_MAX];
    snprintf(reg, sizeof reg, "%s/uid-ranges", h.dir);
    snprintf(dir, sizeof dir, "%s/sandboxes/sa", h.dir);
    CHECK_INT(links_in(reg, dir, NULL, 0), 1);
    hx_close(&h);
}

/* A sandbox shared by many validations (isolation=session) gives each
 * /sandbox/<dir> a uid of its own and never reuses one while it exists
 * (a file or process of an earlier validation's uid may be left). After
 * 65,535 directories it cannot take another: every later validation
 * failed in its upload ("cannot allocate a uid") for as long as the
 * sandbox existed. Now that sandbox is retired and the validation runs
 * on a new one made from the snapshot. */
TEST(test_hostile_uids__a_sandbox_out_of_uids_is_replaced)
{
    hx h;
    hx_open(&h, "uids-full");
    char *json = NULL;
    CHECK_INT(hx_validate(&h, "sb", "first", "echo '{}' > results/r.json\n",
                          &json), DVAL_OK);
    dval_free(json);
    char p[800];
    snprintf(p, sizeof p, "%s/sandboxes/sb/uids", h.dir);
    FILE *f = fopen(p, "a");
    CHECK(f != NULL);
    for (long i = 1; i < 65535; i++) /* "first" holds slot 1 */
        fprintf(f, "earlier-%ld\n", i);
    CHECK_INT(fclose(f), 0);
    CHECK_INT(hx_validate(&h, "sb", "second", "echo '{\"n\":2}' > "
                          "results/r.json\n", &json), DVAL_OK);
    CHECK(json != NULL);
    CHECK_CONTAINS(json, "\"n\":2");
    dval_free(json);
    /* the new sandbox's table: this validation's directory alone */
    f = fopen(p, "r");
    CHECK(f != NULL);
    char line[300];
    int lines = 0;
    while (fgets(line, sizeof line, f))
        lines++;
    fclose(f);
    CHECK_INT(lines, 1);
    CHECK_INT(hx_inits(&h, "sb"), 1);
    hx_close(&h);
}
