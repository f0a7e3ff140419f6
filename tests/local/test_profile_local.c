/* The local executor's profile_prepare: it answers from the images it
 * really has or can build. The dotnet image copies the host's .NET SDK:
 * on a host without one (and no cached image) the profile is refused,
 * saying how to get one; with one it gets its local steps, as java and
 * shell do; a profile's
 * local_requires is run on the host only when sandboxes see the host's
 * tools (host root), and is ignored over an image. */
#include "lt.h"

#include <stdlib.h>
#include <string.h>

static int prepare(lt *t, const dval_profile *p, const char *const **steps)
{
    CHECK(t->ex.profile_prepare != NULL);
    *steps = (const char *const *)"not set";
    return t->ex.profile_prepare(t->ex.userdata, lt_call(t), p, steps);
}

TEST(test_local_profile__dotnet_needs_the_host_sdk_java_and_shell_do_not)
{
    lt t;
    lt_open(&t, "prof-builtin");
    const char *const *steps;
    const dval_profile *dotnet = dval_profile_find("dotnet");
    /* a host without an SDK and an empty image cache */
    char *path = strdup(getenv("PATH")), cache[600];
    snprintf(cache, sizeof cache, "%s/empty-cache", t.dir);
    setenv("DVAL_LOCAL_CACHE_DIR", cache, 1);
    setenv("PATH", "/nonexistent", 1);
    unsetenv("DOTNET_ROOT");
    CHECK_INT(prepare(&t, dotnet, &steps), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "profile \"dotnet\" is unavailable");
    CHECK_CONTAINS(t.call.errmsg, "apt-get install -y dotnet-sdk-10.0");
    CHECK(steps == NULL);
    setenv("PATH", path, 1);
    free(path);
    unsetenv("DVAL_LOCAL_CACHE_DIR");
    if (system("command -v dotnet >/dev/null") == 0) {
        CHECK_INT(prepare(&t, dotnet, &steps), DVAL_OK);
        CHECK(steps == dotnet->local_build_commands);
    }
    const dval_profile *java = dval_profile_find("java");
    CHECK_INT(prepare(&t, java, &steps), DVAL_OK);
    CHECK(steps == java->local_build_commands);
    const dval_profile *shell = dval_profile_find("shell");
    CHECK_INT(prepare(&t, shell, &steps), DVAL_OK);
    CHECK(steps == shell->local_build_commands);
    lt_close(&t);
}

TEST(test_local_profile__unknown_image_refused_with_the_executors_reason)
{
    lt t;
    lt_open(&t, "prof-image");
    dval_profile p = { .struct_size = sizeof p, .name = "ubuntu-thing",
                       .image = "ubuntu:24.04", .run_command = "true" };
    const char *const *steps;
    CHECK_INT(prepare(&t, &p, &steps), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "profile \"ubuntu-thing\" is unavailable "
                   "on the local executor");
    CHECK_CONTAINS(t.call.errmsg, "image ubuntu:24.04 is not supported");
    lt_close(&t);
}

/* local_requires is a host test: it decides only where the host's tools
 * are the sandbox's; over an image, whatever the host lacks is beside the
 * point (the image decides). */
TEST(test_local_profile__local_requires_only_over_the_host_root)
{
    lt t;
    lt_open(&t, "prof-requires");
    dval_profile p = { .struct_size = sizeof p, .name = "needs-x",
                       .image = "debian:12-slim", .run_command = "true",
                       .local_requires = "exit 3" };
    const char *const *steps;
    CHECK_INT(prepare(&t, &p, &steps), DVAL_OK);
    CHECK(steps == NULL);
    setenv("DVAL_LOCAL_HOST_ROOT", "1", 1);
    CHECK_INT(prepare(&t, &p, &steps), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t.call.errmsg, "`exit 3` failed on the host");
    p.local_unavailable_msg = "install x first";
    CHECK_INT(prepare(&t, &p, &steps), DVAL_EUNSUPPORTED);
    CHECK_STR(t.call.errmsg, "install x first");
    p.local_requires = "exit 0";
    CHECK_INT(prepare(&t, &p, &steps), DVAL_OK);
    unsetenv("DVAL_LOCAL_HOST_ROOT");
    lt_close(&t);
}
