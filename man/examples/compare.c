/* Compare a program's JSON result with the expected one, leaving out a
 * timestamp and accepting rounding, and print the differences. */
#include <stdio.h>
#include <string.h>
#include <dval.h>

int main(void)
{
    const char *expected = "{\"total\":10.0,\"rows\":[1,2],\"at\":\"x\"}";
    const char *actual = "{\"rows\":[1,3],\"total\":10.0000001,\"at\":\"y\"}";
    const char *ignore[] = { "$.at", NULL };
    dval_compare_options opts;
    dval_compare_options_init(&opts, sizeof opts);
    opts.mode = DVAL_COMPARE_JSON;
    opts.ignore = ignore;
    opts.abs_tolerance = 1e-6;
    char *diff = NULL;
    size_t n = 0;
    int rc = dval_compare(&diff, &n, expected, strlen(expected), actual,
                          strlen(actual), &opts);
    if (rc != DVAL_OK) {
        fprintf(stderr, "compare: %s\n", dval_strerror(rc));
        return 2;
    }
    /* 1 difference: [{"path":"$.rows[1]","kind":"changed",...}] */
    printf("%zu difference(s): %s\n", n, diff);
    dval_free(diff);
    return n == 0 ? 0 : 1;
}
