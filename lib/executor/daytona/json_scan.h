/* A reply's top-level members without building its tree: the command
 * status carries the whole command text and the exec reply five keys,
 * of which the library reads one. The scan checks the whole body as
 * JSON; whatever it is not sure jansson reads the same way (a real
 * number, a \u0000 or a surrogate escape, deep nesting, an escaped key,
 * anything malformed) it leaves to jansson, whose verdict and message
 * stay the ones the caller gives. */
#ifndef DVAL_DT_JSON_SCAN_H
#define DVAL_DT_JSON_SCAN_H

#include <stddef.h>

typedef struct dt_span {
    const char *p;   /* the value's text; NULL when the key is absent */
    size_t n;
} dt_span;

/* 1 when body is one JSON object jansson would load alike: then vals[i]
 * is the text of the last member named keys[i] (jansson keeps the last
 * of duplicates) or {NULL, 0}. 0: load it with jansson. */
int dt_json_scan(const char *body, size_t len, const char *const *keys,
                 dt_span *vals, size_t nkeys);

/* 1 when body is one JSON array jansson would load alike: then each(ud)
 * ran on its elements' texts in order until one returned non-zero (that
 * value in *rc, else 0). 0: load it with jansson (each never ran). */
int dt_json_scan_array(const char *body, size_t len,
                       int (*each)(dt_span elem, void *ud), void *ud,
                       int *rc);

#endif
