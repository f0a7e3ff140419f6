/* The core's only jansson user: results checking. */
#include <jansson.h>

#include "json.h"

int dval__json_check(const char *data, size_t len, char *msg, size_t cap)
{
    if (!dval__utf8_valid(data, len)) {
        dval__fmt(msg, cap, "not valid UTF-8");
        return DVAL_ERESULTS;
    }
    json_error_t e;
    json_t *j = json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (!j) {
        dval__fmt(msg, cap, "not JSON: %s at line %d, column %d", e.text,
                  e.line, e.column);
        return DVAL_ERESULTS;
    }
    json_decref(j);
    return DVAL_OK;
}
