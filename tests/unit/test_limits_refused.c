/* Limits of a validation's own processes are had or refused, never
 * dropped (red team, round three, item 3): an executor without
 * session_limits (the scripted one here, Daytona in real life) refuses a
 * validation that asks for memory_mib, max_processes or cpu_time_ms
 * before any work, saying which; one without such limits runs. */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

static int validate(fake *f, dval_client *c, int32_t mib, int32_t procs,
                    int64_t cpu_ms)
{
    char empty[] = "/tmp/dval-unit-limits-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "shell";
    v.source_dir = empty;
    v.run_command = "true";
    v.allow_missing_results = 1;
    v.memory_mib = mib;
    v.max_processes = procs;
    v.cpu_time_ms = cpu_ms;
    char *sum = NULL;
    int rc = dval_validate(c, &v, NULL, NULL, &sum);
    dval_free(sum);
    rmdir(empty);
    (void)f;
    return rc;
}

TEST(test_limits_refused__where_the_executor_cannot_enforce_them)
{
    fake f;
    fake_init(&f);
    f.mkdir_ok = 1;
    dval_client *c = fake_client(&f, 0);
    CHECK_INT(validate(&f, c, 64, 0, 0), DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(dval_client_errmsg(c), "cannot limit a validation's own "
                   "processes");
    CHECK_INT(f.snap_builds, 0);           /* refused before any work */
    CHECK_INT(validate(&f, c, 0, 16, 0), DVAL_EUNSUPPORTED);
    CHECK_INT(validate(&f, c, 0, 0, 1000), DVAL_EUNSUPPORTED);
    CHECK_INT(validate(&f, c, -1, 0, 0), DVAL_EINVAL);
    CHECK_INT(validate(&f, c, 0, 0, 0), DVAL_OK);
    dval_client_free(c);
}
