/* The results-JSON check against jansson, differentially: whatever jansson
 * accepts, the check accepts; whatever the check accepts and jansson does
 * not is only what jansson cannot represent (huge numbers, depth).
 * Raw NUL bytes end jansson's input early, so the check is stricter there. */
#include <jansson.h>

#include "fuzz.h"
#include "results_json.h"

FUZZ_TARGET(results)
{
    char msg[512];
    int rc = dval__json_check((const char *)data, size, msg, sizeof msg);
    FUZZ_ASSERT(rc == DVAL_OK || rc == DVAL_ERESULTS);
    if (rc == DVAL_OK)
        FUZZ_ASSERT(dval__utf8_valid((const char *)data, size));
    json_error_t e;
    json_t *j = json_loadb((const char *)data, size,
                           JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (j) {
        /* jansson stops at a raw NUL byte ("7\0" loads); JSON does not */
        FUZZ_ASSERT(rc == DVAL_OK || memchr(data, 0, size));
        json_decref(j);
    } else if (rc == DVAL_OK) {
        FUZZ_ASSERT(strstr(e.text, "too big") || strstr(e.text, "overflow") ||
                    strstr(e.text, "depth") || strstr(e.text, "nest"));
    }
    return 0;
}
