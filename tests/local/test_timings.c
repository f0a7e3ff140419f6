/* Timings that add up (issue 45): every millisecond of a validation's
 * wall belongs to one phase, and the phases sum to the total within 1 %
 * (or the phases' own rounding, a millisecond each), with a sandbox of
 * its own as with the shared one. */
#include "lt.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_sum(lt *t, const char *src, int isolation)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = src;
    req.isolation = isolation;
    req.allow_missing_results = 1;
    json_t *j = lt_validate(t, &req);
    json_t *tm = json_object_get(j, "timings_ms");
    long long total = json_integer_value(json_object_get(tm, "total"));
    long long sum = 0, n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(tm, k, v) {
        if (strcmp(k, "total")) {
            sum += json_integer_value(v);
            n++;
        }
    }
    long long slack = total / 100 > n ? total / 100 : n;
    fprintf(stderr, "    isolation %d: phases %lld ms of %lld ms (%lld phases)\n",
            isolation, sum, total, n);
    CHECK(n >= 6);
    CHECK(llabs(total - sum) <= slack);
    CHECK(json_integer_value(json_object_get(tm, "sandbox")) >= 0);
    json_decref(j);
}

TEST(test_timings__the_phases_sum_to_the_total)
{
    lt t;
    lt_open(&t, "timings");
    const char *src = lt_shell_dir(&t, "t", "sleep 0.2; echo done\n");
    for (int i = 0; i < 3; i++) {
        check_sum(&t, src, DVAL_ISOLATION_SESSION);
        check_sum(&t, src, DVAL_ISOLATION_SANDBOX);
    }
    lt_close(&t);
}
