/* JSON paths of the comparisons: the ignore list's patterns parsed and
 * matched, and the path of a difference written out the same way, so a
 * path read in a diff can be put in an ignore list as it is. */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json_write.h"

static int ident_start(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '_';
}

static int ident(const char *s)
{
    if (!ident_start(*s))
        return 0;
    for (s++; *s; s++)
        if (!ident_start(*s) && !(*s >= '0' && *s <= '9'))
            return 0;
    return 1;
}

int dval__path_text(dval__buf *out, const dval__seg *path, size_t n)
{
    int rc = dval__buf_append(out, "$", 1);
    for (size_t i = 0; i < n && !rc; i++) {
        if (path[i].kind == DVAL__SEG_INDEX) {
            rc = dval__buf_appendf(out, "[%zu]", path[i].index);
        } else if (ident(path[i].key)) {
            rc = dval__buf_appendf(out, ".%s", path[i].key);
        } else {
            rc = dval__buf_append(out, "[", 1);
            if (!rc)
                rc = dval__json_write_str(out, path[i].key,
                                          strlen(path[i].key), 0);
            if (!rc)
                rc = dval__buf_append(out, "]", 1);
        }
    }
    return rc;
}

/* ---- parsing: one step at *p, its key's bytes appended to keys; each
 * returns 0, BAD (not a path) or DVAL_ENOMEM */

#define BAD 1

/* The quoted name at s ('"' ... '"', JSON escapes): its length in *used,
 * the decoded name appended to keys (NUL-terminated). */
static int quoted(const char *s, size_t *used, dval__buf *keys)
{
    size_t i = 1;
    while (s[i] && s[i] != '"')
        i += s[i] == '\\' && s[i + 1] ? 2 : 1;
    if (s[i] != '"')
        return BAD;
    json_t *k = json_loadb(s, i + 1, JSON_DECODE_ANY, NULL);
    int rc = !json_is_string(k) || memchr(json_string_value(k), 0,
                                          json_string_length(k)) ? BAD
             : dval__buf_append(keys, json_string_value(k),
                                json_string_length(k) + 1) ? DVAL_ENOMEM
                                                           : 0;
    json_decref(k);
    *used = i + 1;
    return rc;
}

/* "[N]", "[*]" or "[\"name\"]" at s: the step, the bytes used. */
static int bracket(const char *s, dval__seg *g, size_t *used,
                   dval__buf *keys)
{
    size_t q = 0;
    if (s[1] == '*' && s[2] == ']') {
        g->kind = DVAL__SEG_ANY;
        *used = 3;
        return 0;
    }
    if (s[1] == '"') {
        g->kind = DVAL__SEG_KEY;
        g->index = keys->len; /* an offset until the keys are all in */
        int rc = quoted(s + 1, &q, keys);
        if (rc)
            return rc;
        if (s[1 + q] != ']')
            return BAD;
        *used = q + 2;
        return 0;
    }
    size_t i = 1, n = 0;
    for (; s[i] >= '0' && s[i] <= '9' && i < 19; i++)
        n = n * 10 + (size_t)(s[i] - '0');
    if (i == 1 || s[i] != ']')
        return BAD;
    g->kind = DVAL__SEG_INDEX;
    g->index = n;
    *used = i + 1;
    return 0;
}

/* ".name", ".*" or "..name" at s. */
static int dotted(const char *s, dval__seg *g, size_t *used,
                  dval__buf *keys)
{
    size_t at = s[1] == '.' ? 2 : 1;
    g->kind = at == 2 ? DVAL__SEG_DEEP : DVAL__SEG_KEY;
    if (s[at] == '*' && at == 1) {
        g->kind = DVAL__SEG_ANY;
        *used = 2;
        return 0;
    }
    size_t n = strcspn(s + at, ".[");
    if (n == 0 || (s[at] == '*' && n == 1))
        return BAD;
    g->index = keys->len;
    *used = at + n;
    if (dval__buf_append(keys, s + at, n) || dval__buf_append(keys, "", 1))
        return DVAL_ENOMEM;
    return 0;
}

static int bad_path(const char *text, char *msg, size_t cap)
{
    dval__fmt(msg, cap, "ignore path \"%s\" is not a JSON path (\"$\", then "
              ".name, [\"name\"], [N], .*, [*] or ..name steps)", text);
    return DVAL_EINVAL;
}

/* Moves the steps and their keys into one allocation. */
static int settle(dval__pattern *p, const dval__seg *seg, size_t n,
                  const dval__buf *keys)
{
    p->seg = dval__malloc(n * sizeof *seg + keys->len + 1);
    if (!p->seg)
        return DVAL_ENOMEM;
    char *store = (char *)(p->seg + n);
    if (keys->len)
        memcpy(store, keys->data, keys->len);
    for (size_t i = 0; i < n; i++) {
        p->seg[i] = seg[i];
        if (seg[i].kind == DVAL__SEG_KEY || seg[i].kind == DVAL__SEG_DEEP)
            p->seg[i].key = store + seg[i].index;
    }
    p->n = n;
    return DVAL_OK;
}

int dval__pattern_parse(dval__pattern *p, const char *text, char *msg,
                        size_t cap)
{
    memset(p, 0, sizeof *p);
    if (!text || text[0] != '$' || strlen(text) > 4096)
        return bad_path(text ? text : "(null)", msg, cap);
    dval__seg seg[256];
    dval__buf keys = { 0 };
    size_t n = 0, used = 0;
    int rc = 0;
    for (const char *s = text + 1; *s && !rc; s += used) {
        if (n == sizeof seg / sizeof *seg)
            rc = BAD;
        else if (*s == '[')
            rc = bracket(s, &seg[n++], &used, &keys);
        else if (*s == '.')
            rc = dotted(s, &seg[n++], &used, &keys);
        else
            rc = BAD;
    }
    if (rc == 0)
        rc = settle(p, seg, n, &keys);
    else if (rc == BAD)
        rc = bad_path(text, msg, cap);
    dval__buf_free(&keys);
    return rc;
}

void dval__pattern_free(dval__pattern *p)
{
    dval__free(p->seg);
    p->seg = NULL;
    p->n = 0;
}

static int step_matches(const dval__seg *g, const dval__seg *s)
{
    if (g->kind == DVAL__SEG_ANY)
        return 1;
    if (g->kind != s->kind)
        return 0;
    return g->kind == DVAL__SEG_INDEX ? g->index == s->index
                                      : !strcmp(g->key, s->key);
}

static int match(const dval__seg *g, size_t gn, const dval__seg *s,
                 size_t sn)
{
    if (gn == 0)
        return sn == 0;
    if (g->kind != DVAL__SEG_DEEP)
        return sn && step_matches(g, s) && match(g + 1, gn - 1, s + 1,
                                                 sn - 1);
    /* ..name: that member after any number of steps */
    for (size_t skip = 0; skip < sn; skip++)
        if (s[skip].kind == DVAL__SEG_KEY && !strcmp(s[skip].key, g->key) &&
            match(g + 1, gn - 1, s + skip + 1, sn - skip - 1))
            return 1;
    return 0;
}

int dval__pattern_match(const dval__pattern *p, const dval__seg *path,
                        size_t n)
{
    return match(p->seg, p->n, path, n);
}
