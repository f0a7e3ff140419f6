/* Two validations in one shared sandbox, through the public API
 * (dval_validate on thread ids "va" and "vb" of sandbox "sb"): the
 * attacker (va) tries to read, forge, remove and kill what the victim
 * (vb) has while the victim's program runs; everything must fail and the
 * victim's run stay honest. */
#include "hostile.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct victim {
    hx *h;
    char src[800];
    int rc, code;
    char *out;
} victim;

/* The victim keeps its results and a long sleep while the attacker
 * works, until the test drops a "go" file into its directory. */
#define VICTIM                                                              \
    "echo '{\"ok\":1}' > results/r.json\n"                                  \
    "sleep 600 & s=$!\n"                                                    \
    "touch started\n"                                                       \
    "i=0; while [ ! -e go ] && [ $i -lt 1200 ]; do\n"                       \
    "  sleep 0.1; i=$((i+1))\n"                                             \
    "done\n"                                                                \
    "kill $s 2>/dev/null\n"                                                 \
    "cat results/r.json\n"

static void *victim_run(void *p)
{
    victim *v = p;
    const char *files[] = { v->src, NULL };
    v->rc = hx_run(v->h, "sb", "vb", VICTIM, files, &v->out, &v->code);
    return NULL;
}

static void wait_file(const hx *h, const char *in)
{
    char p[1200];
    hx_inside(h, "sb", in, p, sizeof p);
    for (int i = 0; i < 3000 && access(p, F_OK) != 0; i++)
        usleep(10000);
    CHECK(access(p, F_OK) == 0);
}

static void drop_file(const hx *h, const char *in)
{
    char p[1200];
    hx_inside(h, "sb", in, p, sizeof p);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    CHECK(fd >= 0);
    close(fd);
}

/* One attacker validation; returns the attack's exit code. */
static int attacker(hx *h, const char *script)
{
    int code = -1;
    CHECK_INT(hx_run(h, "sb", "va", script, NULL, NULL, &code), DVAL_OK);
    return code;
}

static int collect(int stream, const char *channel, const char *data,
                   size_t len, void *ud)
{
    (void)channel;
    char *buf = ud;
    size_t n = strlen(buf);
    if (stream == DVAL_STDOUT && n + len < 4096)
        memcpy(buf + n, data, len), buf[n + len] = 0;
    return 0;
}

/* The operator (a session of its own, outside any validation) can still
 * use the victim's directory; its commands run as the operator whether
 * started in the directory (dval_exec_options.cwd: a cwd gives no uid,
 * only a validation's own commands get its uid) or with a hand-written
 * "cd dir && ...". */
static void operator_checks(hx *h)
{
    dval_sandbox *sb;
    dval_session *s;
    CHECK_INT(dval_sandbox_get(&sb, h->client, "sb"), DVAL_OK);
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    char out[4096] = "";
    int code = -1;
    dval_exec_options in_vb;
    dval_exec_options_init(&in_vb, sizeof in_vb);
    in_vb.cwd = "/sandbox/vb";
    CHECK_INT(dval_session_exec(s, "test \"$(stat -c %u .)\" != \"$(id -u)\"",
                                &in_vb, collect, out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_INT(dval_session_exec(s, "cd /sandbox/vb && test \"$(stat -c %u "
                                ".)\" != \"$(id -u)\"", NULL, collect, out,
                                &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_INT(dval_session_exec(s, "echo op > /sandbox/vb/op.txt && "
                                "cat /sandbox/vb/Main.src", NULL, collect,
                                out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_CONTAINS(out, "victim source");
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(dval_sandbox_download(sb, "/sandbox/vb/results/r.json", &data,
                                    &len), DVAL_OK);
    CHECK_STR(data, "{\"ok\":1}\n");
    dval_free(data);
    CHECK_INT(dval_session_close(s), DVAL_OK);
    dval_session_free(s);
    dval_sandbox_free(sb);
}

TEST(test_hostile__validations_cannot_touch_each_other)
{
    hx h;
    hx_open(&h, "ho-share");
    victim v = { &h, "", -1, -1, NULL };
    snprintf(v.src, sizeof v.src, "%s/Main.src", h.src);
    FILE *f = fopen(v.src, "w");
    CHECK(f && fputs("victim source", f) >= 0 && fclose(f) == 0);
    /* the sandbox (and so its init) exists before the victim starts */
    CHECK_INT(attacker(&h, "true\n"), 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, victim_run, &v) == 0);
    wait_file(&h, "/sandbox/vb/started");
    const char *attacks[] = {
        "echo forged > /sandbox/vb/results/r.json\n",
        "cat /sandbox/vb/Main.src\n",
        "ls /sandbox/vb\n",
        "rm -rf /sandbox/vb\n",
        "mv /sandbox/vb /sandbox/vb.old\n",
        "chmod 777 /sandbox/vb\n",
        "kill -9 -1; pkill -9 sleep; sleep 0.2; pgrep -x sleep\n",
        "echo evil > /bin/sh\n",
    };
    for (size_t i = 0; i < sizeof attacks / sizeof *attacks; i++)
        if (attacker(&h, attacks[i]) == 0)
            th_fail(__FILE__, __LINE__, "attack worked: %s", attacks[i]);
    operator_checks(&h);
    drop_file(&h, "/sandbox/vb/go");
    pthread_join(th, NULL);
    CHECK_INT(v.rc, DVAL_OK);
    CHECK_INT(v.code, 0); /* neither killed nor its file gone */
    CHECK_STR(v.out, "{\"ok\":1}\n");
    free(v.out);
    /* no squatter can make /sandbox/vc (a symlink to its own directory)
     * before vc starts */
    CHECK(attacker(&h, "touch mine && ln -s /sandbox/va /sandbox/vc\n") != 0);
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", "vc", "test ! -L . && test ! -e mine && "
                     "test \"$(stat -c %u .)\" = \"$(id -u)\" && ls -A\n",
                     NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK(!strstr(out, "mine"));
    free(out);
    hx_close(&h);
}

/* A validation's HOME is its own directory: writable to it (Maven's ~/.m2,
 * dotnet's ~/.dotnet), and a dotfile one validation plants there is not in
 * another's HOME. */
TEST(test_hostile__home_is_the_validations_own)
{
    hx h;
    hx_open(&h, "ho-home");
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", "ha", "echo \"$HOME\"; mkdir -p ~/.m2 && "
                     "echo planted > ~/.m2/settings.xml && "
                     "(echo planted > /home/daytona/.profile) 2>/dev/null; "
                     "true\n", NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_STR(out, "/sandbox/ha\n");
    free(out);
    CHECK_INT(hx_run(&h, "sb", "hb", "echo \"$HOME\"; "
                     "cat ~/.m2/settings.xml ~/.profile 2>/dev/null; true\n",
                     NULL, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_STR(out, "/sandbox/hb\n");
    free(out);
    hx_close(&h);
}

/* A validation cannot list /sandbox, so it does not learn the thread ids
 * of those it shares a sandbox with (red team A9: the names to aim A8 or
 * A10 at); it can still reach its own directory, but make nothing beside
 * it: no directory under another's name, no build settings that tools
 * look for in parent directories (MSBuild, NuGet, dotnet, Maven). */
TEST(test_hostile__thread_ids_not_listed)
{
    hx h;
    hx_open(&h, "ho-list");
    char *out = NULL;
    int code = -1;
    CHECK_INT(hx_run(&h, "sb", "secret-tid-a", "true\n", NULL, &out, &code),
              DVAL_OK);
    free(out);
    CHECK_INT(hx_run(&h, "sb", "b", "ls -A /sandbox 2>&1; echo \"ls=$?\"\n"
                     "cd /sandbox && echo *\n"
                     "mkdir /sandbox/made-by-b && echo MADE\n"
                     "for f in Directory.Build.props Directory.Build.targets "
                     "NuGet.Config global.json .editorconfig .mvn; do\n"
                     "  echo x > /sandbox/$f && echo PLANTED $f; done\n"
                     "test -d /sandbox/b && echo OWN\n", NULL, &out, &code),
              DVAL_OK);
    fprintf(stderr, "    %s", out);
    CHECK(!strstr(out, "secret-tid-a"));
    CHECK(!strstr(out, "ls=0"));
    CHECK(!strstr(out, "MADE"));
    CHECK(!strstr(out, "PLANTED"));
    CHECK_CONTAINS(out, "OWN\n");
    free(out);
    hx_close(&h);
}
