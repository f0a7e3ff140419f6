/* The toolbox's lists: the reply of GET /files (PROTOCOL 7.5), an array
 * of FileInfo, each passed on as a name, a kind and a size; and of GET
 * /process/session (5.5), the sessions whose id starts with a prefix
 * counted. No jansson type leaves here. */
#include <jansson.h>
#include <string.h>

#include "json_map.h"
#include "json_scan.h"

static int list_err(char *err, size_t errlen, const char *what, size_t i)
{
    dval__fmt(err, errlen, "GET /files: entry %zu: %s", i, what);
    return DVAL_EPROTOCOL;
}

/* The daemon's mode string is Go's FileMode.String() of an lstat: '-'
 * leads a regular file, 'd' a directory; anything else (L symlink, p
 * FIFO, D device, S socket ...) is neither followed nor opened. */
static int entry_kind(json_t *e)
{
    const char *mode = json_string_value(json_object_get(e, "mode"));
    int is_dir = json_is_true(json_object_get(e, "isDir"));
    if (!mode || !mode[0])
        return DT_ENT_OTHER;
    if (mode[0] == 'd' && is_dir)
        return DT_ENT_DIR;
    return mode[0] == '-' && !is_dir ? DT_ENT_FILE : DT_ENT_OTHER;
}

static int one_entry(json_t *e, size_t i, dt_dir_page *pg, char *err,
                     size_t errlen)
{
    if (!json_is_object(e))
        return list_err(err, errlen, "not an object", i);
    const char *name = json_string_value(json_object_get(e, "name"));
    json_t *size = json_object_get(e, "size");
    if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") ||
        !strcmp(name, ".."))
        return list_err(err, errlen, "no plain \"name\"", i);
    int kind = entry_kind(e);
    if (kind == DT_ENT_FILE && !json_is_integer(size))
        return list_err(err, errlen, "a file without an integer \"size\"",
                        i);
    int64_t n = kind == DT_ENT_FILE ? (int64_t)json_integer_value(size) : -1;
    return pg->each(name, kind, n < 0 ? -1 : n, pg->ud);
}

typedef struct dir_walk {
    dt_dir_page *pg;
    char *err;
    size_t errlen;
    size_t i;
} dir_walk;

/* An entry of a listing the scan vouched for: an object of the four
 * members read (the others never become json_t), or the element itself
 * when it is not a plain object. */
static int dir_elem(dt_span el, void *ud)
{
    static const char *const keys[] = {"name", "mode", "isDir", "size"};
    dir_walk *w = ud;
    dt_span v[4];
    json_t *e;
    int ok = 1;
    if (dt_json_scan(el.p, el.n, keys, v, 4)) {
        e = json_object();
        for (size_t k = 0; k < 4 && e && ok; k++)
            ok = !v[k].p || !json_object_set_new(e, keys[k], json_loadb(
                     v[k].p, v[k].n, JSON_DECODE_ANY, NULL));
    } else {
        e = json_loadb(el.p, el.n, JSON_DECODE_ANY, NULL);
    }
    int rc = e && ok ? one_entry(e, w->i++, w->pg, w->err, w->errlen)
                     : list_err(w->err, w->errlen, "out of memory", w->i);
    json_decref(e);
    return rc;
}

int dt_json_dir(const char *body, size_t len, void *out, char *err,
                size_t errlen)
{
    dt_dir_page *pg = out;
    dir_walk w = {pg, err, errlen, 0};
    int rc;
    if (dt_json_scan_array(body, len, dir_elem, &w, &rc))
        return rc;
    json_error_t je;
    json_t *j = json_loadb(body, len, 0, &je);
    if (!json_is_array(j)) {
        if (j)
            dval__fmt(err, errlen, "GET /files: expected a JSON array");
        else
            dval__fmt(err, errlen, "GET /files: malformed JSON reply (%s "
                      "at byte %d)", je.text, je.position);
        json_decref(j);
        return DVAL_EPROTOCOL;
    }
    rc = DVAL_OK;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) {
        if ((rc = one_entry(e, i, pg, err, errlen)) != DVAL_OK)
            break;
    }
    json_decref(j);
    return rc;
}

int dt_json_session_count(const char *body, size_t len, void *out,
                          char *err, size_t errlen)
{
    dt_session_count *sc = out;
    json_t *j = json_loadb(body, len, 0, NULL);
    int rc = json_is_array(j) ? DVAL_OK : DVAL_EPROTOCOL;
    if (rc)
        dval__fmt(err, errlen, "GET /process/session: expected a JSON "
                  "array");
    size_t i, plen = strlen(sc->prefix);
    json_t *e;
    sc->count = 0;
    json_array_foreach(j, i, e) {
        const char *id = json_string_value(json_object_get(e, "sessionId"));
        sc->count += id && !strncmp(id, sc->prefix, plen);
    }
    json_decref(j);
    return rc;
}
