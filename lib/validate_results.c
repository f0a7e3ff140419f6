/* dval_validate's download phase: every plain file under the results
 * directory, each *.json one checked as JSON, the others kept as they are
 * (validate_files.c). The summary it ends with: validate_summary.c. */
#include <stdlib.h>
#include <string.h>

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

/* The listing: the result names relative to the results dir, each ended
 * by a NUL (any other byte, a newline too, can be in a name: a name the
 * download cannot ask for is refused there, by name). */

static void refuse(dval__vctx *v, const char *rel)
{
    dval__validate_note(v, "results/%s: %s", rel, "not a plain file (a "
                        "symbolic link, hard link, FIFO, device or socket): "
                        "refused");
}

/* file_list callback: a plain file into the listing, any other noted */
static int host_entry(const char *rel, int64_t size, void *ud)
{
    dval__vctx *v = ((void **)ud)[0];
    dval__buf *list = ((void **)ud)[1];
    if (size < 0) {
        refuse(v, rel);
        return 0;
    }
    return dval__buf_append(list, rel, strlen(rel) + 1) ? 1 : 0;
}

/* The executor lists from the host side (file_list: both built-in ones):
 * nothing in the sandbox, which the program may have changed, takes part.
 * No results dir: no results. */
static int host_listing(dval__vctx *v, dval__buf *list)
{
    void *pair[2] = { v, list };
    int rc = dval__sandbox_file_list(v->sb, v->resdir, host_entry, pair);
    if (rc == DVAL_ENOTFOUND)
        return DVAL_OK;
    if (rc == DVAL_ERESULTS)
        dval__validate_note(v, "%s%s", dval_sandbox_errmsg(v->sb), "");
    return rc ? bad(v, rc, dval_sandbox_errmsg(v->sb)) : rc;
}

/* Without file_list (only an executor of a host's own), one command in
 * the session lists what file_list would: the plain files, an empty name,
 * then the entries file_list reports with size -1, NUL-ended (-print0) so
 * that every name comes back whole. It runs find in the sandbox after the
 * program, which may have replaced find: a forged name is still fetched
 * from below the results dir (fetch_one refuses ".."). Exit 3: the
 * results dir is a symlink or not a directory; missing, it lists
 * nothing. */
#define LIST_SCRIPT                                                       \
    "[ -e \"$d\" ] || [ -L \"$d\" ] || exit 0; "                          \
    "[ -d \"$d\" ] && [ ! -L \"$d\" ] || exit 3; "                        \
    "cd \"$d\" && find . -type f -links 1 -print0 && printf '\\0' && "    \
    "find . ! -type d \\( ! -type f -o ! -links 1 \\) -print0"

static int exec_listing(dval__vctx *v, dval__buf *list)
{
    dval__buf cmd = { 0 };
    int code = -1;
    int rc = dval__buf_appendf(&cmd, "d=");
    rc = rc ? rc : dval__shell_quote(&cmd, v->resdir);
    rc = rc ? rc : dval__buf_appendf(&cmd, "; " LIST_SCRIPT);
    rc = rc ? rc : dval__validate_quiet_exec(v, cmd.data, NULL, list, &code);
    dval__buf_free(&cmd);
    if (rc)
        return bad(v, rc, dval_session_errmsg(v->sess));
    if (code == 0)
        return DVAL_OK;
    char m[400];
    if (code == 3)
        dval__fmt(m, sizeof m, "%s is a symbolic link or not a directory: "
                  "refused", v->resdir);
    else
        dval__fmt(m, sizeof m, "listing %s in the sandbox failed (exit %d)",
                  v->resdir, code);
    dval__validate_note(v, "%s%s", m, "");
    return bad(v, DVAL_ERESULTS, m);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits the listing (NUL-ended names, "./" dropped) into sorted names;
 * those after an empty name are refused. NULL: out of memory. */
static char **parse_listing(dval__vctx *v, const dval__buf *list,
                            size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < list->len; i++)
        n += list->data[i] == '\0';
    char **names = dval__calloc(n + 2, sizeof *names);
    if (!names)
        return NULL;
    n = 0;
    int refused = 0;
    for (size_t at = 0; at < list->len; at += strlen(list->data + at) + 1) {
        char *p = list->data + at;
        char *name = strncmp(p, "./", 2) ? p : p + 2;
        if (refused && *p)
            refuse(v, name);
        else if (*p)
            names[n++] = name;
        refused |= !*p;
    }
    qsort(names, n, sizeof *names, cmp_str);
    *count = n;
    return names;
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

/* Fetches every listed name. */
static int fetch_all(dval__vctx *v, const dval__buf *list)
{
    size_t n = 0;
    char **names = parse_listing(v, list, &n);
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
    int rc = dval__sandbox_can_list(v->sb) ? host_listing(v, &list)
                                           : exec_listing(v, &list);
    if (rc == DVAL_OK)
        rc = fetch_all(v, &list);
    dval__buf_free(&list);
    return rc ? rc : results_status(v);
}
