/* The results-JSON check: any bytes → OK or DVAL_ERESULTS, never a crash;
 * accepted input is valid UTF-8. */
#include "fuzz.h"
#include "json.h"

FUZZ_TARGET(results)
{
    char msg[512];
    int rc = dval__json_check((const char *)data, size, msg, sizeof msg);
    FUZZ_ASSERT(rc == DVAL_OK || rc == DVAL_ERESULTS);
    if (rc == DVAL_OK)
        FUZZ_ASSERT(dval__utf8_valid((const char *)data, size));
    return 0;
}
