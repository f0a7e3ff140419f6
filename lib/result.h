/* The typed result (result.c, result_parts.c). */
#ifndef DVAL_RESULT_H
#define DVAL_RESULT_H

#include <jansson.h>

#include "internal.h"

struct dval_result {
    int status;             /* what the validating call returned */
    int verdict;
    int exit_code;          /* the last phase's, -1: none */
    char *summary;          /* dval_validate's JSON text */
    json_t *doc;            /* that text parsed; never changed */
    const char **file_names; /* sorted; borrowed from doc */
    char **file_json;       /* each file's document, compact */
    size_t nfiles;
    size_t differences;     /* counted */
    size_t ndiffs;          /* listed */
    char **diff_text;       /* expected, actual of each listed one */
};

/* A result of status and summary (taken over, freed on failure). */
int dval__result_new(dval_result **out, int status, char *summary);

#endif
