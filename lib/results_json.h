#ifndef DVAL_RESULTS_JSON_H
#define DVAL_RESULTS_JSON_H
#include "internal.h"
/* DVAL_OK when data is UTF-8 JSON, else DVAL_ERESULTS with msg. */
int dval__json_check(const char *data, size_t len, char *msg, size_t cap);
#endif
