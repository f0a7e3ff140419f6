/* Two validations in one shared sandbox: the attacker (working in
 * /sandbox/va) tries to read, forge, remove and kill what the victim
 * (/sandbox/vb) has; everything must fail and the victim's run stay
 * honest. Commands carry the working directory as the core sends it. */
#include "lt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int run_in(lt *t, const char *dir, const char *cmd, lt_out *o)
{
    char full[2048];
    snprintf(full, sizeof full, "cd '%s' && %s", dir, cmd);
    return lt_run(t, "sb", full, o);
}

TEST(test_hostile__validations_cannot_touch_each_other)
{
    lt t;
    lt_open(&t, "ho-share");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata;
    CHECK_INT(t.ex.folder_create(ud, lt_call(&t), "sb", "/sandbox/vb/results"),
              DVAL_OK);
    CHECK_INT(lt_upload(&t, "sb", "/sandbox/vb/Main.src", "victim source"),
              DVAL_OK);
    lt_out o = { 0 };
    CHECK_INT(run_in(&t, "/sandbox/vb", "echo '{\"ok\":1}' > results/r.json"
                     " && id -u", &o), 0);
    /* the victim's program keeps running while the attacker works */
    char cmd[DVAL_ID_MAX];
    CHECK_INT(t.ex.session_create(ud, lt_call(&t), "sb", "victim"), DVAL_OK);
    CHECK_INT(t.ex.command_start(ud, lt_call(&t), "sb", "victim",
                                 "cd '/sandbox/vb' && sleep 3; "
                                 "cat results/r.json", cmd), DVAL_OK);
    lt_out a = { 0 };
    const char *attacks[] = {
        "echo forged > /sandbox/vb/results/r.json",
        "cat /sandbox/vb/Main.src",
        "ls /sandbox/vb",
        "rm -rf /sandbox/vb",
        "mv /sandbox/vb /sandbox/vb.old",
        "chmod 777 /sandbox/vb",
        "kill -9 -1; pkill -9 sleep; sleep 0.2; pgrep -x sleep",
        "echo evil > /bin/sh",
    };
    CHECK_INT(run_in(&t, "/sandbox/va", "true", &a), 0);
    for (size_t i = 0; i < sizeof attacks / sizeof *attacks; i++)
        if (run_in(&t, "/sandbox/va", attacks[i], &a) == 0)
            th_fail(__FILE__, __LINE__, "attack worked: %s", attacks[i]);
    int fin = 0, code = -1;
    for (int i = 0; i < 600 && !fin; i++, usleep(10000))
        CHECK_INT(t.ex.command_status(ud, lt_call(&t), "sb", "victim", cmd,
                                      &fin, &code), DVAL_OK);
    CHECK(fin);
    CHECK_INT(code, 0); /* neither killed nor its file gone */
    dval__buf b = { 0 };
    CHECK_INT(lt_download(&t, "sb", "/sandbox/vb/results/r.json", &b),
              DVAL_OK);
    CHECK_STR(b.data, "{\"ok\":1}\n");
    dval__buf_free(&b);
    /* a squatter's /sandbox/vc (a symlink to its own directory) is moved
     * away when vc starts */
    CHECK_INT(run_in(&t, "/sandbox/va", "touch mine && ln -s /sandbox/va "
                     "/sandbox/vc", &a), 0);
    CHECK_INT(t.ex.folder_create(ud, lt_call(&t), "sb", "/sandbox/vc"),
              DVAL_OK);
    lt_out c = { 0 };
    CHECK_INT(run_in(&t, "/sandbox/vc", "test ! -L . && ls -A | wc -l && "
                     "test \"$(stat -c %u .)\" = \"$(id -u)\"", &c), 0);
    CHECK_STR(c.out.data, "0\n");
    /* a hand-written "cd dir && ..." also runs as the directory's uid,
     * and the operator (commands elsewhere) can still use the directory */
    lt_out d = { 0 };
    CHECK_INT(lt_run(&t, "sb", "cd /sandbox/vb && test \"$(stat -c %u .)\" "
                     "= \"$(id -u)\"", &d), 0);
    CHECK_INT(lt_run(&t, "sb", "echo op > /sandbox/vb/op.txt && "
                     "cat /sandbox/vb/Main.src", &d), 0);
    CHECK_CONTAINS(d.out.data, "victim source");
    lt_out_free(&d);
    lt_out_free(&o);
    lt_out_free(&a);
    lt_out_free(&c);
    CHECK_INT(t.ex.session_delete(ud, lt_call(&t), "sb", "victim"), DVAL_OK);
    lt_close(&t);
}

/* A validation's HOME is its own directory: writable to it (Maven's ~/.m2,
 * dotnet's ~/.dotnet), and a dotfile one validation plants there is not in
 * another's HOME. */
TEST(test_hostile__home_is_the_validations_own)
{
    lt t;
    lt_open(&t, "ho-home");
    lt_sandbox(&t, "sb", NULL);
    void *ud = t.ex.userdata;
    CHECK_INT(t.ex.folder_create(ud, lt_call(&t), "sb", "/sandbox/ha"),
              DVAL_OK);
    CHECK_INT(t.ex.folder_create(ud, lt_call(&t), "sb", "/sandbox/hb"),
              DVAL_OK);
    lt_out o = { 0 };
    CHECK_INT(run_in(&t, "/sandbox/ha", "echo \"$HOME\"; mkdir -p ~/.m2 && "
                     "echo planted > ~/.m2/settings.xml && "
                     "(echo planted > /home/daytona/.profile) 2>/dev/null; "
                     "true", &o), 0);
    CHECK_STR(o.out.data, "/sandbox/ha\n");
    lt_out_free(&o);
    lt_out p = { 0 };
    CHECK_INT(run_in(&t, "/sandbox/hb", "echo \"$HOME\"; "
                     "cat ~/.m2/settings.xml ~/.profile 2>/dev/null; true",
                     &p), 0);
    CHECK_STR(p.out.data, "/sandbox/hb\n");
    lt_out_free(&p);
    lt_close(&t);
}
