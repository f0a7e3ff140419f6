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
    struct dval__rfile *files; /* sorted by name (result_files.c) */
    size_t nfiles;
    size_t differences;     /* counted */
    size_t ndiffs;          /* listed */
    char **diff_text;       /* expected, actual of each listed one */
};

/* A results file: from "results" (a *.json file) or "files". */
typedef struct dval__rfile {
    const char *name;       /* borrowed from doc */
    char *json;             /* its document (or "files" entry), compact */
    const char *data;       /* its bytes: json, doc's text, or owned */
    size_t len;
    char *owned;            /* decoded base64, or NULL */
    int is_json;
} dval__rfile;

/* Fills r->files from r->doc; DVAL_ENOMEM. */
int dval__result_files(dval_result *r);
/* Frees r->files. */
void dval__result_files_free(dval_result *r);

/* A result of status and summary (taken over, freed on failure). */
int dval__result_new(dval_result **out, int status, char *summary);

#endif
