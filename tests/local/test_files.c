/* Local executor files: round trips, parents created, escapes refused. */
#include "lt.h"

#include <stdio.h>
#include <unistd.h>

TEST(test_local_files__roundtrip_and_parents)
{
    lt t;
    lt_open(&t, "fi-rt");
    lt_sandbox(&t, "sb", NULL);
    CHECK_INT(lt_upload(&t, "sb", "/sandbox/t1/deep/er/in.txt", "hello"),
              DVAL_OK);
    CHECK_INT(lt_upload(&t, "sb", "rel/f", "r"), DVAL_OK);
    CHECK_INT(t.ex.folder_create(t.ex.userdata, lt_call(&t), "sb",
                                 "/sandbox/t1/results"), DVAL_OK);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "cat /sandbox/t1/deep/er/in.txt "
                     "/home/daytona/rel/f; test -d /sandbox/t1/results && "
                     "head -c 300000 /dev/urandom | base64 > out.txt", &o),
              0);
    CHECK_STR(o.out.data, "hellor");
    lt_out_free(&o);
    dval__buf b = { 0 };
    CHECK_INT(lt_download(&t, "sb", "out.txt", &b), DVAL_OK);
    CHECK(b.len > 400000);
    dval__buf_free(&b);
    CHECK_INT(lt_download(&t, "sb", "/nope", &b), DVAL_ENOTFOUND);
    CHECK_INT(lt_download(&t, "sb", "/sandbox", &b), DVAL_ENOTFOUND);
    lt_close(&t);
}

TEST(test_local_files__escapes_refused)
{
    lt t;
    lt_open(&t, "fi-esc");
    lt_sandbox(&t, "sb", NULL);
    FILE *f = fopen("/tmp/dval-host-secret", "w");
    CHECK(f && fputs("SECRET", f) >= 0 && fclose(f) == 0);
    CHECK_INT(lt_upload(&t, "sb", "../../tmp/dval-host-secret", "x"),
              DVAL_EINVAL);
    CHECK_INT(lt_upload(&t, "sb", "/sandbox/../etc/x", "x"), DVAL_EINVAL);
    dval__buf b = { 0 };
    CHECK_INT(lt_download(&t, "sb", "/home/../tmp/dval-host-secret", &b),
              DVAL_EINVAL);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "ln -s /tmp/dval-host-secret abs && ln -s "
                     "../../../../../../tmp/dval-host-secret rel && "
                     "ln -s /etc outdir", &o), 0);
    lt_out_free(&o);
    CHECK_INT(lt_download(&t, "sb", "abs", &b), DVAL_ENOTFOUND);
    CHECK_INT(lt_download(&t, "sb", "rel", &b), DVAL_ENOTFOUND);
    CHECK(!b.data || !strstr(b.data, "SECRET"));
    /* writes through links land inside the sandbox, never on the host */
    CHECK_INT(lt_upload(&t, "sb", "abs", "PWNED"), DVAL_OK);
    CHECK_INT(lt_upload(&t, "sb", "outdir/dval-escape", "PWNED"), DVAL_OK);
    CHECK(access("/etc/dval-escape", F_OK) != 0);
    char host[64] = "";
    f = fopen("/tmp/dval-host-secret", "r");
    CHECK(f && fgets(host, sizeof host, f));
    fclose(f);
    CHECK_STR(host, "SECRET");
    unlink("/tmp/dval-host-secret");
    lt_close(&t);
}
