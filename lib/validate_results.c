/* dval_validate's download phase (every plain file under the results
 * directory, each *.json one checked as JSON, the others kept as they are:
 * validate_files.c) and the summary it ends with. */
#include <stdlib.h>
#include <string.h>

#include "diagnostics.h"
#include "jsonutil.h"
#include "results_json.h"
#include "validate.h"
#include "workdir.h"

/* Bounds on what one validation's results may hold in all: they are
 * parsed into a tree (tens of bytes per value) for the summary, and a
 * program could otherwise make its caller allocate gigabytes with a few
 * files of "[0,0,0,...]" (each file alone is bounded by the download's
 * size limit). */
#define RESULTS_MAX_VALUES (1u << 20)

static int bad(dval__vctx *v, int rc, const char *msg)
{
    return dval__validate_fail(v, rc, "download", msg);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits the listing into sorted names relative to the results dir. */
static char **parse_listing(char *text, size_t *count)
{
    size_t n = 0, cap = 8;
    char **names = dval__calloc(cap + 1, sizeof *names);
    if (!names)
        return NULL;
    /* split in place (strtok is not thread-safe) */
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "./", 2))
            line += 2;
        if (!*line)
            continue;
        if (n == cap) {
            char **nn = dval__realloc(names, (cap * 2 + 1) * sizeof *nn);
            if (!nn)
                break;
            names = nn;
            cap *= 2;
        }
        names[n++] = line;
        names[n] = NULL;
    }
    qsort(names, n, sizeof *names, cmp_str);
    *count = n;
    return names;
}

/* 0 when a file of len bytes holding values JSON values still fits the
 * validation's results bounds (and counts it in), else why not in msg. */
static int over_budget(dval__vctx *v, size_t len, size_t values, char *msg,
                       size_t cap)
{
    size_t max = v->req.results_bytes > 0 ? (size_t)v->req.results_bytes
                                          : DVAL__RESULTS_MAX_BYTES;
    if (values > RESULTS_MAX_VALUES - v->results_values ||
        len > max - v->results_bytes) {
        dval__fmt(msg, cap, "over the bounds on all of a validation's "
                  "results (%u JSON values, %zu bytes): refused",
                  RESULTS_MAX_VALUES, max);
        return -1;
    }
    v->results_values += values;
    v->results_bytes += len;
    return 0;
}

/* A *.json file's text (freed here) parsed into v->results. */
static void keep_json(dval__vctx *v, const char *name, char *text,
                      size_t len)
{
    char m[DVAL_ERRMSG_MAX];
    size_t values = 0;
    if (dval__json_check_values(text, len, m, sizeof m, &values) ||
        over_budget(v, len, values, m, sizeof m)) {
        dval__validate_note(v, "results/%s: %s", name, m);
        dval_free(text);
        return;
    }
    json_error_t jerr;
    json_t *doc = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    dval_free(text);
    if (!doc) {
        dval__validate_note(v, "results/%s: %s", name, jerr.text);
        return;
    }
    json_object_set_new(v->results, name, doc);
}

/* Another file's bytes (freed here) into v->other, as they are; the
 * bound counts them as the summary will hold them (escaped or base64). */
static void keep_other(dval__vctx *v, const char *name, char *data,
                       size_t len)
{
    char m[DVAL_ERRMSG_MAX];
    int text;
    const char *d = data ? data : "";
    if (over_budget(v, dval__results_file_cost(d, len, &text), 1, m,
                    sizeof m))
        dval__validate_note(v, "results/%s: %s", name, m);
    else
        dval__validate_keep_file(v, name, d, len, text);
    dval_free(data);
}

static void fetch_one(dval__vctx *v, const char *name)
{
    char remote[512], m[DVAL_ERRMSG_MAX];
    dval__fmt(remote, sizeof remote, "%s/%s", v->resdir, name);
    if (dval__check_remote_path(remote, m, sizeof m)) {
        dval__validate_note(v, "results/%s: %s", name, m);
        return;
    }
    char *data = NULL;
    size_t len = 0;
    if (dval_sandbox_download(v->sb, remote, &data, &len)) {
        dval__validate_note(v, "results/%s: %s", name,
                            dval_sandbox_errmsg(v->sb));
        return;
    }
    if (dval__results_is_json(name))
        keep_json(v, name, data, len);
    else
        keep_other(v, name, data, len);
}

/* The listing the run command left; when it is missing (the program
 * removed it, or the executor cannot download), list with an exec. */
static int fetch_listing(dval__vctx *v, dval__buf *list)
{
    char path[400];
    dval__fmt(path, sizeof path, "%s/" DVAL__LISTING, v->workdir);
    char *data = NULL;
    size_t len = 0;
    if (dval_sandbox_download(v->sb, path, &data, &len) != DVAL_OK)
        return -1;
    int rc = dval__buf_append(list, data, len);
    dval_free(data);
    return rc ? -1 : 0;
}

/* file_list callback: file names one per line into the listing; a
 * refused entry (symlink, hard link, FIFO, device) is an error. */
static int host_entry(const char *rel, int64_t size, void *ud)
{
    dval__vctx *v = ((void **)ud)[0];
    dval__buf *list = ((void **)ud)[1];
    if (size < 0) {
        dval__validate_note(v, "results/%s: %s", rel, "not a plain file (a "
                            "symbolic link, hard link, FIFO or device): "
                            "refused");
        return 0;
    }
    if (strchr(rel, '\n'))
        return 0;
    return dval__buf_appendf(list, "%s\n", rel) ? 1 : 0;
}

/* The listing made by the executor from the host side: 1 when the
 * executor cannot list, else a status (DVAL_OK with no results dir). */
static int host_listing(dval__vctx *v, dval__buf *list)
{
    if (!dval__sandbox_can_list(v->sb))
        return 1;
    void *pair[2] = { v, list };
    int rc = dval__sandbox_file_list(v->sb, v->resdir, host_entry, pair);
    if (rc == DVAL_ENOTFOUND)
        return DVAL_OK;
    if (rc == DVAL_ERESULTS)
        dval__validate_note(v, "%s%s", dval_sandbox_errmsg(v->sb), "");
    return rc ? bad(v, rc, dval_sandbox_errmsg(v->sb)) : rc;
}

/* The result names, one per line, into list: from the host side when the
 * executor can list, else the run command's listing, else an exec. */
static int listing(dval__vctx *v, dval__buf *list)
{
    int rc = host_listing(v, list);
    if (rc <= 0) {
        if (rc == DVAL_OK && dval__buf_append(list, "", 0))
            rc = bad(v, DVAL_ENOMEM, NULL);
        return rc;
    }
    if (fetch_listing(v, list) == 0)
        return DVAL_OK;
    dval__buf_free(list);
    dval__buf cmd = {0};
    int code = -1;
    rc = dval__buf_appendf(&cmd, "cd ");
    rc = rc ? rc : dval__shell_quote(&cmd, v->resdir);
    rc = rc ? rc : dval__buf_appendf(&cmd, " 2>/dev/null && find . -type f");
    rc = rc ? rc : dval__validate_quiet_exec(v, cmd.data, NULL, list, &code);
    dval__buf_free(&cmd);
    return rc ? bad(v, rc, dval_session_errmsg(v->sess)) : DVAL_OK;
}

/* What the fetched results amount to. */
static int results_status(dval__vctx *v)
{
    if (dval_cancel_fired(v->req.cancel))
        return bad(v, DVAL_ECANCELED, "canceled");
    if (v->aborted)
        return bad(v, DVAL_EABORTED, NULL);
    if (json_array_size(v->errors) > 0)
        return bad(v, DVAL_ERESULTS,
                   json_string_value(json_array_get(v->errors, 0)));
    if (json_object_size(v->results) == 0 && !v->req.allow_missing_results) {
        char m[400];
        dval__fmt(m, sizeof m, "the program wrote no *.json file under %s",
                  v->resdir);
        dval__validate_other_names(v, m, sizeof m);
        dval__validate_note(v, "%s%s", m, "");
        v->results_missing = 1;
        return bad(v, DVAL_ERESULTS, m);
    }
    return DVAL_OK;
}

/* Fetches every listed name (the listing is split in place). */
static int fetch_all(dval__vctx *v, char *text)
{
    size_t n = 0;
    char **names = parse_listing(text, &n);
    if (!names)
        return bad(v, DVAL_ENOMEM, NULL);
    /* the token is checked between fetches, and ends a long one through
     * the handle's calls */
    v->sb->cancel_fd = dval__cancel_fd(v->req.cancel);
    for (size_t i = 0; i < n && !v->aborted &&
                       !dval_cancel_fired(v->req.cancel); i++)
        fetch_one(v, names[i]);
    v->sb->cancel_fd = -1;
    dval__free(names);
    return DVAL_OK;
}

int dval__validate_download(dval__vctx *v)
{
    dval__buf list = {0};
    int rc = listing(v, &list);
    if (rc == DVAL_OK)
        rc = fetch_all(v, list.data);
    dval__buf_free(&list);
    return rc ? rc : results_status(v);
}

static json_t *usage_field(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

/* What the phase's command used, as its executor measured it (null:
 * not known, e.g. on Daytona) */
static json_t *usage_json(const dval__phase *p)
{
    if (!p->has_usage)
        return json_null();
    const dval_usage *u = &p->usage;
    json_t *o = json_object();
    json_object_set_new(o, "cpu_ms", usage_field(u->cpu_ms));
    json_object_set_new(o, "user_ms", usage_field(u->user_ms));
    json_object_set_new(o, "sys_ms", usage_field(u->sys_ms));
    json_object_set_new(o, "peak_memory_bytes",
                        usage_field(u->peak_memory_bytes));
    json_object_set_new(o, "wall_ms", usage_field(u->wall_ms));
    json_object_set_new(o, "oom_kills", usage_field(u->oom_kills));
    return o;
}

/* A phase as the summary shows it: its exit code (null: it did not run
 * to one), wall time, output and usage. */
static json_t *phase_json(const dval__phase *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "usage", usage_json(p));
    json_object_set_new(o, "exit_code", p->done ? json_integer(p->exit_code)
                                                : json_null());
    json_object_set_new(o, "wall_ms", json_integer(p->ms));
    json_object_set_new(o, "stdout", dval__json_text(p->out.data,
                                                     p->out.len));
    json_object_set_new(o, "stderr", dval__json_text(p->err.data,
                                                     p->err.len));
    json_object_set_new(o, "output_truncated", json_boolean(p->truncated));
    return o;
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

/* The verdict, the phases and the build's diagnostics. */
static void outcome(dval__vctx *v, int status, json_t *o)
{
    char detail[DVAL_ERRMSG_MAX];
    int verdict = dval__verdict(v, status, detail, sizeof detail);
    json_t *phases = json_object(), *diags = json_array();
    if (v->build.started) {
        json_object_set_new(phases, "build", phase_json(&v->build));
        dval__diagnostics_parse(v->build.out.data, v->build.out.len,
                                v->workdir, diags);
        dval__diagnostics_parse(v->build.err.data, v->build.err.len,
                                v->workdir, diags);
    }
    if (v->run.started)
        json_object_set_new(phases, "run", phase_json(&v->run));
    if (verdict == DVAL_VERDICT_COMPILE_ERROR)
        first_error(diags, detail, sizeof detail);
    json_object_set_new(o, "verdict", json_string(dval_verdict_name(verdict)));
    json_object_set_new(o, "verdict_detail",
                        dval__json_text(detail, strlen(detail)));
    json_object_set_new(o, "phases", phases);
    json_object_set_new(o, "diagnostics", diags);
    const dval__phase *last = v->run.started ? &v->run : &v->build;
    json_object_set_new(o, "exit_code", last->done
                        ? json_integer(last->exit_code) : json_null());
}

char *dval__validate_summary(dval__vctx *v, int status, int64_t t_start)
{
    json_object_set_new(v->timings, "total",
                        json_integer(dval__now_ms() - t_start));
    json_t *o = json_object();
    if (!o)
        return NULL;
    outcome(v, status, o);
    json_object_set(o, "results", v->results);
    json_object_set(o, "files", v->other);
    if (v->expect)
        json_object_set_new(o, "comparison", dval__expect_json(v));
    json_object_set_new(o, "thread_id", json_string(v->thread_id));
    json_object_set_new(o, "sandbox", json_string(
        *v->sb_name ? v->sb_name : v->req.sandbox_name ? v->req.sandbox_name
                                                        : v->prof->sandbox_name));
    json_object_set_new(o, "session",
                        *v->sess_id ? json_string(v->sess_id) : json_null());
    json_object_set_new(o, "profile", json_string(v->prof->name));
    json_object_set_new(o, "executor",
                        json_string(dval_client_executor_name(v->client)));
    json_object_set_new(o, "status", json_string(dval_status_name(status)));
    json_object_set(o, "errors", v->errors);
    json_object_set(o, "timings_ms", v->timings);
    char *text = dval__json_text_of(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    return text;
}
