/* The comparison of a result with an expected one (a policy of the core,
 * written once): exact bytes, text but for trailing whitespace, or JSON
 * values with an ignore list and numeric tolerances. Used by validations
 * with an expected result (validate_expect.c) and by dval_compare
 * (compare_api.c). Differences are JSON objects
 * {"path","kind","expected","actual"} in an array. */
#ifndef DVAL_COMPARE_H
#define DVAL_COMPARE_H

#include <jansson.h>

#include "internal.h"

/* One step of a JSON path: a member, an element, or (in an ignore
 * pattern) any member or element, or a member of that name at any depth
 * below. */
enum { DVAL__SEG_KEY, DVAL__SEG_INDEX, DVAL__SEG_ANY, DVAL__SEG_DEEP };
typedef struct dval__seg {
    int kind;
    const char *key;     /* KEY, DEEP: NUL-terminated */
    size_t index;        /* INDEX */
} dval__seg;

typedef struct dval__pattern {
    dval__seg *seg;      /* one allocation with the keys' bytes */
    size_t n;
} dval__pattern;

typedef struct dval__cmp {
    int mode;            /* DVAL_COMPARE_EXACT, _TEXT or _JSON */
    double abs_tol, rel_tol;
    size_t max;          /* entries kept in diff */
    size_t count;        /* differences found, kept or not */
    json_t *diff;        /* the entries */
    dval__pattern *ignore;
    size_t nignore;
    dval__seg *path;     /* where the comparison is */
    size_t depth, cap;
    int oom;
} dval__cmp;

/* Resolves opts (NULL: defaults; mode AUTO becomes dflt_mode): DVAL_OK,
 * DVAL_EINVAL with why in msg (a bad ignore path, a negative tolerance),
 * DVAL_EABI, DVAL_ENOMEM. dval__cmp_free in every case. */
int dval__cmp_init(dval__cmp *c, const dval_compare_options *opts,
                   int dflt_mode, char *msg, size_t cap);
void dval__cmp_free(dval__cmp *c);
/* Adds the differences of two JSON values to c->diff. */
int dval__cmp_json(dval__cmp *c, const json_t *expected,
                   const json_t *actual);
/* Compares bytes as c->mode says (JSON: both parsed; an expected text
 * that is not JSON is DVAL_EINVAL with msg, an actual one a difference of
 * kind "invalid"). */
int dval__cmp_bytes(dval__cmp *c, const char *expected, size_t elen,
                    const char *actual, size_t alen, char *msg, size_t cap);
/* ---- compare_text.c: the EXACT and TEXT modes, line by line ("line
 * N" paths) */
int dval__cmp_text(dval__cmp *c, const char *expected, size_t elen,
                   const char *actual, size_t alen);
/* Records one difference at the current path (expected/actual borrowed,
 * NULL: absent). */
void dval__cmp_add(dval__cmp *c, const char *kind, const json_t *expected,
                   const json_t *actual);
/* The same at the given path. */
void dval__cmp_add_at(dval__cmp *c, const char *path, const char *kind,
                      const json_t *expected, const json_t *actual);
/* One difference in words, "PATH: expected X, got Y", into buf. */
void dval__cmp_describe(const json_t *entry, char *buf, size_t cap);

/* ---- compare_path.c */
/* Parses an ignore path ("$.a[0]", "$[\"k\"]", "$.*", "$[*]",
 * "$..name"); DVAL_EINVAL with msg when it is not one. */
int dval__pattern_parse(dval__pattern *p, const char *text, char *msg,
                        size_t cap);
void dval__pattern_free(dval__pattern *p);
/* 1 when the path (n steps) is the pattern's. */
int dval__pattern_match(const dval__pattern *p, const dval__seg *path,
                        size_t n);
/* The path as text ("$.a[2][\"a b\"]") into out. */
int dval__path_text(dval__buf *out, const dval__seg *path, size_t n);

#endif
