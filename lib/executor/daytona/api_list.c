/* The file_list member against the toolbox (PROTOCOL 7.5): GET /files
 * per directory, depth first. The daemon answers, not a command in the
 * session (an exec per validation, and a find the program could have
 * replaced). Its lstat view tells regular files from directories;
 * anything else (a symlink, a FIFO, a device) is reported with size -1,
 * neither followed nor opened. FileInfo has no link count: hard links
 * cannot be told apart here. */
#include <string.h>

#include "dt.h"
#include "json_map.h"

/* Bounds on what a program can make the listing walk. */
#define LIST_MAX_DEPTH 32
#define LIST_MAX_ENTRIES 10000

typedef struct walk {
    dt_exec *ex;
    dval_call *c;
    const char *sb;
    dval_file_list_fn each;
    void *each_ud;
    long entries;
} walk;

typedef struct level {
    walk *w;
    const char *rel;         /* "" at the top, else "a/b/" */
    dval__buf subdirs;       /* names, each ending in '\0' */
} level;

static int on_entry(const char *name, int kind, int64_t size, void *ud)
{
    level *l = ud;
    if (++l->w->entries > LIST_MAX_ENTRIES)
        return dval__call_fail(l->w->c, DVAL_ERESULTS, "more than %d "
                               "entries under the results directory",
                               LIST_MAX_ENTRIES);
    if (kind == DT_ENT_DIR)
        return dval__buf_append(&l->subdirs, name, strlen(name) + 1)
               ? dval__call_fail(l->w->c, DVAL_ENOMEM, "out of memory") : 0;
    dval__buf rel = {0};
    int rc = dval__buf_appendf(&rel, "%s%s", l->rel, name);
    if (rc)
        rc = dval__call_fail(l->w->c, DVAL_ENOMEM, "out of memory");
    else if (l->w->each(rel.data, size, l->w->each_ud))
        rc = dval__call_fail(l->w->c, DVAL_EABORTED, "listing stopped");
    dval__buf_free(&rel);
    return rc;
}

static int list_dir(walk *w, const char *dir, const char *rel, int depth);

static int list_subdirs(walk *w, const char *dir, level *l, int depth)
{
    int rc = DVAL_OK;
    dval__buf path = {0}, rel = {0};
    for (size_t at = 0; !rc && at < l->subdirs.len;) {
        const char *name = l->subdirs.data + at;
        at += strlen(name) + 1;
        path.len = rel.len = 0;
        rc = dval__buf_appendf(&path, "%s/%s", dir, name);
        rc = rc ? rc : dval__buf_appendf(&rel, "%s%s/", l->rel, name);
        if (rc)
            rc = dval__call_fail(w->c, DVAL_ENOMEM, "out of memory");
        else if ((rc = list_dir(w, path.data, rel.data, depth + 1)) ==
                 DVAL_ENOTFOUND)
            rc = DVAL_OK; /* removed since its parent was listed */
    }
    dval__buf_free(&path);
    dval__buf_free(&rel);
    return rc;
}

static int list_dir(walk *w, const char *dir, const char *rel, int depth)
{
    if (depth > LIST_MAX_DEPTH)
        return dval__call_fail(w->c, DVAL_ERESULTS, "results nested deeper "
                               "than %d directories", LIST_MAX_DEPTH);
    char msg[256];
    if (dval__check_remote_path(dir, msg, sizeof msg) != DVAL_OK)
        return dval__call_fail(w->c, DVAL_EINVAL, "%s", msg);
    dval__buf url = {0};
    int rc = dt_tb_base(w->ex, w->c, w->sb, &url);
    if (!rc && (rc = dt_url(&url, "", "/files?path=%s", dir)) != 0)
        rc = dval__call_fail(w->c, rc, "out of memory");
    level l = { .w = w, .rel = rel };
    dt_dir_page pg = { .each = on_entry, .ud = &l };
    if (!rc) {
        dt_req rq = { .method = "GET", .url = url.data };
        rc = dt_json_call(w->ex, w->c, &rq, dt_json_dir, &pg);
    }
    if (!rc)
        rc = list_subdirs(w, dir, &l, depth);
    dval__buf_free(&l.subdirs);
    dval__buf_free(&url);
    return rc;
}

int dt_file_list(void *ud, dval_call *c, const char *sb, const char *dir,
                 dval_file_list_fn each, void *each_ud)
{
    walk w = { .ex = ud, .c = c, .sb = sb, .each = each,
               .each_ud = each_ud };
    return list_dir(&w, dir, "", 0);
}
