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

/* A name longer than the check's buffer is judged whole, never by the
 * prefix that fits: "localhost:" and 300 digits then "@evil.example" is
 * evil.example to curl. The same holds for a token realm's URL. */
TEST(pull_ref__loopback_judges_a_long_name_whole)
{
    char name[400], url[420];
    memset(name, 0, sizeof name);
    memcpy(name, "localhost:", 10);
    memset(name + 10, '1', 300);
    strcat(name, "@evil.example");
    CHECK_INT(lx_ref_loopback(name), 0);
    snprintf(url, sizeof url, "http://%s/token", name);
    CHECK_INT(lx_url_safe_for_secrets(url), 0);
    CHECK_INT(lx_url_safe_for_secrets("http://127.0.0.1:5000/token?x"), 1);
    CHECK_INT(lx_url_safe_for_secrets("https://auth.example/token"), 1);
    CHECK_INT(lx_url_safe_for_secrets("http://auth.example/token"), 0);
    CHECK_INT(lx_url_safe_for_secrets("ftp://localhost/token"), 0);
}
