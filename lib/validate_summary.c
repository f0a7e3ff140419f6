/* The summary dval_validate ends with, written straight into its text:
 * its own fields never lived in a jansson tree that was only serialized
 * and freed (the trees the validation keeps, the results, files, errors
 * and timings, are written from theirs). The bytes are json_dumps's with
 * JSON_COMPACT | JSON_ENSURE_ASCII, keys in the order the tree had them;
 * a string jansson would have refused leaves its key out, as
 * json_object_set_new did. */
#include <string.h>

#include "diagnostics.h"
#include "jsonutil.h"
#include "validate.h"

#define FLAGS (JSON_COMPACT | JSON_ENSURE_ASCII)

typedef struct w {
    dval__buf b;
    int rc;          /* the first failure; nothing is written after it */
} w;

static void raw(w *o, const char *s, size_t n)
{
    if (!o->rc)
        o->rc = dval__buf_append(&o->b, s, n);
}

/* a literal: ",\"key\":" and the like */
#define LIT(o, s) raw(o, s, sizeof s - 1)

static void integer(w *o, int64_t v)
{
    if (!o->rc)
        o->rc = dval__json_write_int(&o->b, v);
}

static void int_or_null(w *o, int known, int64_t v)
{
    if (known)
        integer(o, v);
    else
        LIT(o, "null");
}

static void tree(w *o, const json_t *j)
{
    if (!o->rc)
        o->rc = dval__json_write(&o->b, j, FLAGS);
}

/* key (a literal with its comma and colon) and a tree, no key for NULL */
static void tree_field(w *o, const char *key, size_t klen, const json_t *j)
{
    if (!j)
        return;
    raw(o, key, klen);
    tree(o, j);
}
#define TREE(o, k, j) tree_field(o, k, sizeof k - 1, j)

/* key and the string s; neither when s is NULL or not UTF-8 */
static void str_field(w *o, const char *key, size_t klen, const char *s,
                      size_t n)
{
    size_t mark = o->b.len;
    if (!s || o->rc)
        return;
    raw(o, key, klen);
    if (!o->rc)
        o->rc = dval__json_write_str(&o->b, s, n, FLAGS);
    if (o->rc == DVAL_EINVAL) {
        o->rc = DVAL_OK;
        o->b.len = mark;
        o->b.data[mark] = '\0';
    }
}
#define STR(o, k, s) str_field(o, k, sizeof k - 1, s, (s) ? strlen(s) : 0)

/* key and a program's bytes, invalid UTF-8 as U+FFFD (dval__json_text) */
static void text_field(w *o, const char *key, size_t klen, const char *data,
                       size_t len)
{
    if (!data)
        data = "", len = 0;
    if (dval__utf8_valid(data, len)) {
        str_field(o, key, klen, data, len);
        return;
    }
    dval__buf fixed = { 0 };
    if (dval__utf8_repair(&fixed, data, len))
        str_field(o, key, klen, "", 0);
    else
        str_field(o, key, klen, fixed.data ? fixed.data : "", fixed.len);
    dval__buf_free(&fixed);
}
#define TEXT(o, k, d, n) text_field(o, k, sizeof k - 1, d, n)

/* What the phase's command used, as its executor measured it (null:
 * not known, e.g. on Daytona) */
static void usage(w *o, const dval__phase *p)
{
    const dval_usage *u = &p->usage;
    if (!p->has_usage) {
        LIT(o, "null");
        return;
    }
    LIT(o, "{\"cpu_ms\":");
    int_or_null(o, u->cpu_ms >= 0, u->cpu_ms);
    LIT(o, ",\"user_ms\":");
    int_or_null(o, u->user_ms >= 0, u->user_ms);
    LIT(o, ",\"sys_ms\":");
    int_or_null(o, u->sys_ms >= 0, u->sys_ms);
    LIT(o, ",\"peak_memory_bytes\":");
    int_or_null(o, u->peak_memory_bytes >= 0, u->peak_memory_bytes);
    LIT(o, ",\"wall_ms\":");
    int_or_null(o, u->wall_ms >= 0, u->wall_ms);
    LIT(o, ",\"oom_kills\":");
    int_or_null(o, u->oom_kills >= 0, u->oom_kills);
    LIT(o, "}");
}

/* A phase as the summary shows it: its exit code (null: it did not run
 * to one), wall time, output and usage. */
static void phase(w *o, const dval__phase *p)
{
    LIT(o, "{\"usage\":");
    usage(o, p);
    LIT(o, ",\"exit_code\":");
    int_or_null(o, p->done, p->exit_code);
    LIT(o, ",\"wall_ms\":");
    integer(o, p->ms);
    TEXT(o, ",\"stdout\":", p->out.data, p->out.len);
    TEXT(o, ",\"stderr\":", p->err.data, p->err.len);
    if (p->truncated)
        LIT(o, ",\"output_truncated\":true}");
    else
        LIT(o, ",\"output_truncated\":false}");
}

/* A compile error is best said by the compiler's first error. */
static void first_error(const json_t *diags, char *detail, size_t cap)
{
    size_t i, errors = 0;
    json_t *d, *first = NULL;
    json_array_foreach(diags, i, d) {
        if (strcmp(json_string_value(json_object_get(d, "severity")),
                   "error"))
            continue;
        errors++;
        first = first ? first : d;
    }
    if (!first)
        return;
    const char *code = json_string_value(json_object_get(first, "code"));
    json_int_t line = json_integer_value(json_object_get(first, "line"));
    char at[64] = "";
    if (line)
        dval__fmt(at, sizeof at, ":%lld", (long long)line);
    dval__fmt(detail, cap, "%s%s: %s%s%s%s", json_string_value(
              json_object_get(first, "file")), at, code ? code : "",
              code ? ": " : "", json_string_value(json_object_get(first,
              "message")), errors > 1 ? " (and more errors)" : "");
}

/* The verdict, the phases and the build's diagnostics (diags: empty,
 * filled here). */
static void outcome(dval__vctx *v, int status, w *o, json_t *diags)
{
    char detail[DVAL_ERRMSG_MAX];
    int verdict = dval__verdict(v, status, detail, sizeof detail);
    if (v->build.started) {
        dval__diagnostics_parse(v->build.out.data, v->build.out.len,
                                v->workdir, diags);
        dval__diagnostics_parse(v->build.err.data, v->build.err.len,
                                v->workdir, diags);
    }
    if (verdict == DVAL_VERDICT_COMPILE_ERROR)
        first_error(diags, detail, sizeof detail);
    LIT(o, "{");
    STR(o, "\"verdict\":", dval_verdict_name(verdict));
    TEXT(o, ",\"verdict_detail\":", detail, strlen(detail));
    LIT(o, ",\"phases\":{");
    if (v->build.started) {
        LIT(o, "\"build\":");
        phase(o, &v->build);
    }
    if (v->run.started) {
        if (v->build.started)
            LIT(o, ",");
        LIT(o, "\"run\":");
        phase(o, &v->run);
    }
    LIT(o, "}");
    TREE(o, ",\"diagnostics\":", diags);
    const dval__phase *last = v->run.started ? &v->run : &v->build;
    LIT(o, ",\"exit_code\":");
    int_or_null(o, last->done, last->exit_code);
}

/* Who ran it, where, and how it ended. */
static void context(dval__vctx *v, int status, w *o)
{
    STR(o, ",\"thread_id\":", v->thread_id);
    STR(o, ",\"sandbox\":", *v->sb_name ? v->sb_name
                            : v->req.sandbox_name ? v->req.sandbox_name
                                                  : v->prof->sandbox_name);
    if (*v->sess_id)
        STR(o, ",\"session\":", v->sess_id);
    else
        LIT(o, ",\"session\":null");
    STR(o, ",\"profile\":", v->prof->name);
    STR(o, ",\"executor\":", dval_client_executor_name(v->client));
    STR(o, ",\"status\":", dval_status_name(status));
}

char *dval__validate_summary(dval__vctx *v, int status, int64_t t_start)
{
    json_object_set_new(v->timings, "total",
                        json_integer(dval__now_ms() - t_start));
    w o = { { 0 }, DVAL_OK };
    json_t *diags = json_array();
    o.rc = diags ? dval__buf_reserve(&o.b, 1024) : DVAL_ENOMEM;
    outcome(v, status, &o, diags);
    json_decref(diags);
    TREE(&o, ",\"results\":", v->results);
    TREE(&o, ",\"files\":", v->other);
    if (v->expect) {
        json_t *cmp = dval__expect_json(v);
        TREE(&o, ",\"comparison\":", cmp);
        json_decref(cmp);
    }
    context(v, status, &o);
    TREE(&o, ",\"errors\":", v->errors);
    TREE(&o, ",\"timings_ms\":", v->timings);
    LIT(&o, "}");
    if (o.rc) {
        dval__buf_free(&o.b);
        return NULL;
    }
    return o.b.data;
}
