#ifndef DVAL_RESULTS_JSON_H
#define DVAL_RESULTS_JSON_H
#include "internal.h"
/* DVAL_OK when data is UTF-8 JSON, else DVAL_ERESULTS with msg. */
int dval__json_check(const char *data, size_t len, char *msg, size_t cap);
/* The same, with the number of JSON values the text holds in *values
 * (strings, numbers, literals, arrays and objects; keys not counted). */
int dval__json_check_values(const char *data, size_t len, char *msg,
                            size_t cap, size_t *values);
#endif
