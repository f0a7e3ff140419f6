/* Registry references: a mirror (DVAL_LOCAL_PULL_MIRROR) changes where a
 * registry's API is asked, never the name an image is recorded under; a
 * malformed mirror list is refused with the variable's name. */
#include "harness.h"
#include "executor/local/pull.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int parse(const char *image, lx_ref *r, dval_call *c)
{
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    return lx_ref_parse(c, image, r);
}

TEST(pull_ref__mirror_changes_where_not_what)
{
    lx_ref r;
    dval_call c;
    setenv("DVAL_LOCAL_PULL_MIRROR", "mcr.microsoft.com=127.0.0.1:5000, "
           "docker.io=mirror.example:443", 1);
    CHECK_INT(parse("mcr.microsoft.com/dotnet/sdk:10.0", &r, &c), DVAL_OK);
    CHECK_STR(r.host, "mcr.microsoft.com");
    CHECK_STR(r.api, "127.0.0.1:5000");
    CHECK_STR(r.canon, "mcr.microsoft.com/dotnet/sdk:10.0");
    CHECK_INT(parse("docker://debian:12", &r, &c), DVAL_OK);
    CHECK_STR(r.api, "mirror.example:443");
    CHECK_STR(r.canon, "docker.io/library/debian:12");
    CHECK_INT(parse("quay.io/a/b:1", &r, &c), DVAL_OK);
    CHECK_STR(r.api, "quay.io");
    /* the whole host is matched, not a prefix */
    CHECK_INT(parse("mcr.microsoft.com.evil.example/x:1", &r, &c), DVAL_OK);
    CHECK_STR(r.api, "mcr.microsoft.com.evil.example");
    unsetenv("DVAL_LOCAL_PULL_MIRROR");
    CHECK_INT(parse("mcr.microsoft.com/dotnet/sdk:10.0", &r, &c), DVAL_OK);
    CHECK_STR(r.api, "mcr.microsoft.com");
    CHECK_INT(parse("docker://debian:12", &r, &c), DVAL_OK);
    CHECK_STR(r.api, "registry-1.docker.io");
}

TEST(pull_ref__malformed_mirror_refused)
{
    lx_ref r;
    dval_call c;
    const char *bad[] = { "mcr.microsoft.com=", "mcr.microsoft.com",
                          "mcr.microsoft.com=a/b", "=127.0.0.1:5000",
                          "mcr.microsoft.com=http://x" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("DVAL_LOCAL_PULL_MIRROR", bad[i], 1);
        CHECK_INT(parse("mcr.microsoft.com/dotnet/sdk:10.0", &r, &c),
                  DVAL_EINVAL);
        CHECK_CONTAINS(c.errmsg, "DVAL_LOCAL_PULL_MIRROR");
    }
    unsetenv("DVAL_LOCAL_PULL_MIRROR");
}

/* Credentials go over plain HTTP only to a loopback host; an authority
 * with user information names another host (curl connects to the part
 * after the '@'), whatever it starts with. */
TEST(pull_ref__loopback_is_the_whole_host)
{
    CHECK_INT(lx_ref_loopback("localhost"), 1);
    CHECK_INT(lx_ref_loopback("localhost:5000"), 1);
    CHECK_INT(lx_ref_loopback("127.0.0.2:80"), 1);
    CHECK_INT(lx_ref_loopback("[::1]:5000"), 1);
    CHECK_INT(lx_ref_loopback("localhost:80@evil.example"), 0);
    CHECK_INT(lx_ref_loopback("127.0.0.1:1@evil.example:80"), 0);
    CHECK_INT(lx_ref_loopback("[::1]:1@evil.example"), 0);
    CHECK_INT(lx_ref_loopback("localhost.evil.example"), 0);
    CHECK_INT(lx_ref_loopback("127.0.0.1.evil.example"), 0);
}
