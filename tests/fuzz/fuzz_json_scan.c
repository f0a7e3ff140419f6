/* The hand-written JSON scan (json_scan.c) against jansson, differential:
 * it promises that whatever it accepts jansson loads alike (json_loadb,
 * flags 0), so every input it accepts must load there, and each member
 * (object) or element (array) it hands back must be the value jansson
 * holds for it. What it refuses goes to jansson anyway: no promise. */
#include <jansson.h>

#include "fuzz.h"
#include "executor/daytona/json_scan.h"

static const char *const scan_keys[] = { "id", "state", "a", "", "b" };
#define SCAN_NKEYS (sizeof scan_keys / sizeof *scan_keys)

/* The span's text is the value v, as jansson reads them both */
static void scan_same(dt_span sp, json_t *v)
{
    json_t *w = json_loadb(sp.p, sp.n, JSON_DECODE_ANY, NULL);
    FUZZ_ASSERT(w != NULL && json_equal(v, w));
    json_decref(w);
}

typedef struct scan_walk {
    json_t *arr;
    size_t i;
} scan_walk;

static int scan_elem(dt_span el, void *ud)
{
    scan_walk *w = ud;
    FUZZ_ASSERT(w->i < json_array_size(w->arr));
    scan_same(el, json_array_get(w->arr, w->i++));
    return 0;
}

FUZZ_TARGET(json_scan)
{
    const char *b = (const char *)data;
    dt_span vals[SCAN_NKEYS];
    int rc;
    if (dt_json_scan(b, size, scan_keys, vals, SCAN_NKEYS)) {
        json_t *j = json_loadb(b, size, 0, NULL);
        FUZZ_ASSERT(json_is_object(j));
        for (size_t i = 0; i < SCAN_NKEYS; i++) {
            json_t *v = json_object_get(j, scan_keys[i]);
            FUZZ_ASSERT((vals[i].p == NULL) == (v == NULL));
            if (v)
                scan_same(vals[i], v);
        }
        json_decref(j);
    }
    json_t *arr = json_loadb(b, size, 0, NULL);
    scan_walk w = { arr, 0 };
    if (dt_json_scan_array(b, size, scan_elem, &w, &rc)) {
        FUZZ_ASSERT(json_is_array(arr));
        FUZZ_ASSERT(w.i == json_array_size(arr));
    }
    json_decref(arr);
    return 0;
}
