/* Small JSON helpers shared by the summary and the comparisons: program
 * bytes as JSON strings, a value's compact text. */
#ifndef DVAL_JSONUTIL_H
#define DVAL_JSONUTIL_H

#include <jansson.h>

#include "internal.h"
#include "json_write.h"

/* A JSON string of bytes a program produced: invalid UTF-8 sequences
 * become U+FFFD (jansson takes valid UTF-8 only). Never NULL unless out
 * of memory. */
json_t *dval__json_text(const char *data, size_t len);
/* Appends data's bytes to b with every invalid UTF-8 sequence replaced
 * by U+FFFD, as dval__json_text holds them. */
int dval__utf8_repair(dval__buf *b, const char *data, size_t len);
/* The compact text of v (any JSON value), allocated with dval__malloc;
 * NULL when out of memory. */
char *dval__json_dump(const json_t *v);

#endif
