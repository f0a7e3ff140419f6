/* Compact JSON text of a jansson value, byte for byte what json_dumps
 * writes with JSON_COMPACT (and JSON_ENSURE_ASCII when asked), in one
 * pass into a growing buffer: jansson's dump goes through a callback per
 * token and decodes every character of every string, which made the
 * summary and the request bodies a visible share of a validation's CPU. */
#ifndef DVAL_JSON_WRITE_H
#define DVAL_JSON_WRITE_H

#include <jansson.h>

#include "internal.h"

/* Appends v (any JSON value) to b. flags: JSON_ENSURE_ASCII and a
 * JSON_REAL_PRECISION are honoured (reals are written by jansson itself);
 * the text is always compact, keys in insertion order. DVAL_EINVAL for a
 * string that is not valid UTF-8 (json_dumps fails there too),
 * DVAL_ENOMEM. */
int dval__json_write(dval__buf *b, const json_t *v, size_t flags);

/* Appends the n bytes at s as a JSON string (quoted, escaped as
 * jansson escapes). DVAL_EINVAL when they are not valid UTF-8. */
int dval__json_write_str(dval__buf *b, const char *s, size_t n, size_t flags);

/* Appends v in decimal, as jansson writes an integer. */
int dval__json_write_int(dval__buf *b, json_int_t v);

/* The text of v allocated with dval__malloc (dval__free it); NULL when
 * out of memory or v holds invalid UTF-8. */
char *dval__json_text_of(const json_t *v, size_t flags);

#endif
