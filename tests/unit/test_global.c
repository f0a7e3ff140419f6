/* dval_global_init/cleanup count their calls and hand libcurl's global
 * state back only once: an extra cleanup (count already 0) must not take
 * a reference the host program holds on libcurl. libcurl's cleanup is
 * interposed here (this binary's definition wins over the shared
 * library's for the statically linked library) and counted. */
#include <dlfcn.h>

#include <curl/curl.h>
#include <dval.h>

#include "harness.h"

static int curl_cleanups;

void curl_global_cleanup(void)
{
    curl_cleanups++;
    void (*real)(void) = (void (*)(void))dlsym(RTLD_NEXT,
                                                "curl_global_cleanup");
    if (real)
        real();
}

TEST(global__extra_cleanups_leave_libcurl_alone)
{
    int n = dval_global_init();
    CHECK(n >= 1);
    for (int i = n; i > 0; i--)
        CHECK_INT(dval_global_cleanup(), i - 1);
    CHECK_INT(curl_cleanups, 1);
    /* the host's own reference on libcurl stays where it is */
    CHECK_INT(dval_global_cleanup(), 0);
    CHECK_INT(dval_global_cleanup(), 0);
    CHECK_INT(curl_cleanups, 1);
}
