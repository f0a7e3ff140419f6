/* Daytona JSON mapping. Every parser loads the body with jansson, checks
 * field types explicitly and copies what it needs into fixed buffers, so
 * no jansson type escapes this file. */
#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "json_map.h"
#include "json_scan.h"
#include "json_write.h"

static int perr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(err, errlen, fmt, ap);
    va_end(ap);
    return DVAL_EPROTOCOL;
}

/* Loads a JSON object, naming the usual ways a reply is not one. */
static int load(const char *body, size_t len, json_t **root, char *err,
                size_t errlen)
{
    *root = NULL;
    size_t i = 0;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    if (i == len)
        return perr(err, errlen, "empty response body where JSON was expected");
    if (body[i] == '<')
        return perr(err, errlen, "expected JSON, got HTML or XML: \"%.*s\"",
                    (int)(len - i < 60 ? len - i : 60), body + i);
    json_error_t je;
    json_t *j = json_loadb(body, len, 0, &je);
    if (!j)
        return perr(err, errlen, "malformed JSON reply (%s at byte %d)",
                    je.text, je.position);
    if (!json_is_object(j)) {
        json_decref(j);
        return perr(err, errlen, "expected a JSON object in the reply");
    }
    *root = j;
    return DVAL_OK;
}

/* load() for a reply of which one member is read: when the scan vouches
 * for the body, an object of that member alone (its value loaded by
 * jansson), not the tree of the whole reply. */
static int load_key(const char *body, size_t len, const char *key,
                    json_t **root, char *err, size_t errlen)
{
    dt_span v;
    if (!dt_json_scan(body, len, &key, &v, 1))
        return load(body, len, root, err, errlen);
    json_t *o = json_object();
    json_t *x = v.p ? json_loadb(v.p, v.n, JSON_DECODE_ANY, NULL) : NULL;
    if (!o || (v.p && (!x || json_object_set_new(o, key, x)))) {
        json_decref(o);
        return perr(err, errlen, "out of memory");
    }
    *root = o;
    return DVAL_OK;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* String field: missing/null → NULL (error if required); wrong type →
 * EPROTOCOL naming the field. */
static int get_str(json_t *o, const char *key, int required,
                   const char **out, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return required ? perr(err, errlen, "reply lacks field \"%s\"", key)
                        : DVAL_OK;
    if (!json_is_string(v))
        return perr(err, errlen, "field \"%s\" is %s, expected a string",
                    key, type_name(v));
    *out = json_string_value(v);
    return DVAL_OK;
}

void dt_json_error_message(const char *body, size_t len, char *msg,
                           size_t cap)
{
    json_t *j = json_loadb(body, len, 0, NULL);
    msg[0] = '\0';
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    json_t *m = json_object_get(j, "message");
    if (!json_is_string(m) && !json_is_array(m))
        m = json_object_get(j, "error");
    if (!json_is_string(m) && !json_is_array(m))
        m = json_object_get(j, "errors");
    if (json_is_string(m)) {
        dval__strlcpy(msg, json_string_value(m), cap);
    } else if (json_is_array(m)) {
        /* validation errors come as a list: join them */
        dval__buf b = {0};
        size_t i;
        json_t *e;
        json_array_foreach(m, i, e) {
            if (json_is_string(e))
                dval__buf_appendf(&b, "%s%s", b.len ? ", " : "",
                                  json_string_value(e));
        }
        dval__strlcpy(msg, b.data, cap);
        dval__buf_free(&b);
    }
    json_decref(j);
}

static int snapshot_obj(json_t *j, dval_snapshot_info *o, char *err,
                        size_t errlen)
{
    const char *id, *name, *state, *reason;
    int rc;
    if ((rc = get_str(j, "id", 1, &id, err, errlen)) ||
        (rc = get_str(j, "name", 0, &name, err, errlen)) ||
        (rc = get_str(j, "state", 0, &state, err, errlen)) ||
        (rc = get_str(j, "errorReason", 0, &reason, err, errlen)))
        return rc;
    dval__strlcpy(o->id, id, sizeof o->id);
    dval__strlcpy(o->name, name, sizeof o->name);
    o->state = dval_snapshot_state_parse(state);
    dval__strlcpy(o->error_reason, reason, sizeof o->error_reason);
    return DVAL_OK;
}

int dt_json_snapshot(const char *body, size_t len, void *out, char *err,
                     size_t errlen)
{
    dval_snapshot_info tmp;   /* callers may not want the DTO */
    json_t *j;
    int rc = load(body, len, &j, err, errlen);
    if (rc == DVAL_OK)
        rc = snapshot_obj(j, out ? out : &tmp, err, errlen);
    json_decref(j);
    return rc;
}

static int sandbox_obj(json_t *j, dt_sandbox_out *o, char *err,
                       size_t errlen)
{
    const char *id, *name, *state, *reason, *tb;
    int rc;
    if ((rc = get_str(j, "id", 1, &id, err, errlen)) ||
        (rc = get_str(j, "name", 0, &name, err, errlen)) ||
        (rc = get_str(j, "state", 0, &state, err, errlen)) ||
        (rc = get_str(j, "errorReason", 0, &reason, err, errlen)) ||
        (rc = get_str(j, "toolboxProxyUrl", 0, &tb, err, errlen)))
        return rc;
    json_t *rec = json_object_get(j, "recoverable");
    if (rec && !json_is_null(rec) && !json_is_boolean(rec))
        return perr(err, errlen, "field \"recoverable\" is %s, expected a "
                    "boolean", type_name(rec));
    dval_sandbox_info *i = o->info;
    dval__strlcpy(i->id, id, sizeof i->id);
    dval__strlcpy(i->name, name, sizeof i->name);
    i->state = dval_sandbox_state_parse(state);
    i->recoverable = json_is_true(rec);
    dval__strlcpy(i->error_reason, reason, sizeof i->error_reason);
    dval__strlcpy(o->toolbox, tb, sizeof o->toolbox);
    return DVAL_OK;
}

int dt_json_sandbox(const char *body, size_t len, void *out, char *err,
                    size_t errlen)
{
    json_t *j;
    int rc = load(body, len, &j, err, errlen);
    if (rc == DVAL_OK)
        rc = sandbox_obj(j, out, err, errlen);
    json_decref(j);
    return rc;
}

static int page_items(json_t *items, dt_sandbox_page *pg, char *err,
                      size_t errlen)
{
    size_t i;
    json_t *e;
    json_array_foreach(items, i, e) {
        if (!json_is_object(e))
            return perr(err, errlen, "items[%zu] is %s, expected an object",
                        i, type_name(e));
        dval_sandbox_info info = {.struct_size = sizeof info};
        dt_sandbox_out o = {.info = &info};
        int rc = sandbox_obj(e, &o, err, errlen);
        if (rc == DVAL_OK)
            rc = pg->item(&o, pg->ud);
        if (rc)
            return rc;
    }
    return DVAL_OK;
}

int dt_json_sandbox_page(const char *body, size_t len, void *out,
                         char *err, size_t errlen)
{
    dt_sandbox_page *pg = out;
    json_t *j;
    pg->next_cursor[0] = '\0';
    int rc = load(body, len, &j, err, errlen);
    if (rc)
        return rc;
    json_t *items = json_object_get(j, "items");
    const char *next = NULL;
    if (!json_is_array(items))
        rc = perr(err, errlen, "field \"items\" is %s, expected an array",
                  items ? type_name(items) : "missing");
    else if (!(rc = get_str(j, "nextCursor", 0, &next, err, errlen)))
        rc = page_items(items, pg, err, errlen);
    if (rc == DVAL_OK && next)
        dval__strlcpy(pg->next_cursor, next, sizeof pg->next_cursor);
    json_decref(j);
    return rc;
}

static int snapshot_items(json_t *items, dt_snapshot_page *pg, char *err,
                          size_t errlen)
{
    size_t i;
    json_t *e;
    json_array_foreach(items, i, e) {
        if (!json_is_object(e))
            return perr(err, errlen, "items[%zu] is %s, expected an object",
                        i, type_name(e));
        dval_snapshot_info info = {.struct_size = sizeof info};
        int rc = snapshot_obj(e, &info, err, errlen);
        if (rc == DVAL_OK)
            rc = pg->item(&info, pg->ud);
        if (rc)
            return rc;
    }
    return DVAL_OK;
}

/* totalPages: a non-negative integer (a missing one ends the listing). */
static int total_pages(json_t *j, int64_t *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(j, "totalPages");
    *out = 0;
    if (!v || json_is_null(v))
        return DVAL_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return perr(err, errlen, "field \"totalPages\" is %s, expected a "
                    "non-negative integer", type_name(v));
    *out = (int64_t)json_integer_value(v);
    return DVAL_OK;
}

int dt_json_snapshot_page(const char *body, size_t len, void *out,
                          char *err, size_t errlen)
{
    dt_snapshot_page *pg = out;
    json_t *j;
    int rc = load(body, len, &j, err, errlen);
    if (rc)
        return rc;
    json_t *items = json_object_get(j, "items");
    if (!json_is_array(items))
        rc = perr(err, errlen, "field \"items\" is %s, expected an array",
                  items ? type_name(items) : "missing");
    else if (!(rc = total_pages(j, &pg->total_pages, err, errlen)))
        rc = snapshot_items(items, pg, err, errlen);
    json_decref(j);
    return rc;
}

int dt_json_cmd_id(const char *body, size_t len, void *out, char *err,
                   size_t errlen)
{
    json_t *j;
    const char *id;
    int rc = load_key(body, len, "cmdId", &j, err, errlen);
    if (rc == DVAL_OK && !(rc = get_str(j, "cmdId", 1, &id, err, errlen))) {
        if (!id[0] || strlen(id) >= DVAL_ID_MAX)
            rc = perr(err, errlen, "field \"cmdId\" is empty or too long");
        else
            dval__strlcpy(out, id, DVAL_ID_MAX);
    }
    json_decref(j);
    return rc;
}

int dt_json_cmd_status(const char *body, size_t len, void *out, char *err,
                       size_t errlen)
{
    dt_cmd_status *st = out;
    json_t *j;
    int rc = load_key(body, len, "exitCode", &j, err, errlen);
    if (rc)
        return rc;
    /* exitCode is absent (or null) while the command runs */
    json_t *ec = json_object_get(j, "exitCode");
    st->finished = 0;
    if (ec && !json_is_null(ec)) {
        if (json_is_integer(ec)) {
            st->finished = 1;
            st->exit_code = (int)json_integer_value(ec);
        } else {
            rc = perr(err, errlen, "field \"exitCode\" is %s, expected an "
                      "integer", type_name(ec));
        }
    }
    json_decref(j);
    return rc;
}

static int str_field_to_buf(const char *body, size_t len, const char *key,
                            int required, dval__buf *b, char *err,
                            size_t errlen)
{
    json_t *j;
    const char *s;
    int rc = load(body, len, &j, err, errlen);
    if (rc == DVAL_OK && !(rc = get_str(j, key, required, &s, err, errlen))) {
        json_t *v = json_object_get(j, key);
        /* json_string_length: outputs may contain NUL bytes */
        if (s)
            rc = dval__buf_append(b, s, json_string_length(v));
        else
            rc = dval__buf_append(b, "", 0);
    }
    json_decref(j);
    return rc;
}

int dt_json_url(const char *body, size_t len, void *out, char *err,
                size_t errlen)
{
    return str_field_to_buf(body, len, "url", 1, out, err, errlen);
}

int dt_json_logs_output(const char *body, size_t len, void *out, char *err,
                        size_t errlen)
{
    return str_field_to_buf(body, len, "output", 0, out, err, errlen);
}

void dt_json_error_part(const char *body, size_t len, int *status,
                        char *msg, size_t cap)
{
    *status = 0;
    dt_json_error_message(body, len, msg, cap);
    json_t *j = json_loadb(body, len, 0, NULL);
    json_t *sc = json_object_get(j, "statusCode");
    if (json_is_integer(sc))
        *status = (int)json_integer_value(sc);
    json_decref(j);
}

/* ---- builders */

/* Serializes the object a builder made (compact) into *out and frees it;
 * when building it failed (rc) only frees it and returns rc. */
static int finish(json_t *j, int rc, char **out)
{
    *out = NULL;
    if (rc || !j) {
        json_decref(j);
        return rc ? rc : DVAL_EINVAL;
    }
    *out = dval__json_text_of(j, JSON_COMPACT);
    json_decref(j);
    return *out ? DVAL_OK : DVAL_ENOMEM;
}

/* Adds a string member; fails on invalid UTF-8 (json_string → NULL). */
static int put_str(json_t *o, const char *key, const char *v)
{
    return json_object_set_new(o, key, json_string(v)) ? DVAL_EINVAL : 0;
}

static int put_int(json_t *o, const char *key, json_int_t v)
{
    return json_object_set_new(o, key, json_integer(v)) ? DVAL_ENOMEM : 0;
}

/* The resources of a snapshot or an image sandbox; 0 leaves one out (the
 * server's default). */
static int put_resources(json_t *o, int32_t cpu, int32_t memory_gib,
                         int32_t disk_gib)
{
    int rc = cpu > 0 ? put_int(o, "cpu", cpu) : 0;
    if (!rc && memory_gib > 0)
        rc = put_int(o, "memory", memory_gib);
    if (!rc && disk_gib > 0)
        rc = put_int(o, "disk", disk_gib);
    return rc;
}

static int dockerfile(const dval_snapshot_spec *s, dval__buf *b)
{
    int rc = dval__buf_appendf(b, "FROM %s\n", s->image ? s->image : "");
    for (const char *const *c = s->build_commands; !rc && c && *c; c++)
        rc = dval__buf_appendf(b, "RUN %s\n", *c);
    return rc;
}

int dt_json_snapshot_create(char **out, const dval_snapshot_spec *s,
                            const char *target)
{
    json_t *o = json_object(), *bi = NULL;
    int rc = o ? put_str(o, "name", s->name ? s->name : "") : DVAL_ENOMEM;
    if (!rc && (s->dockerfile ||
                (s->build_commands && s->build_commands[0]))) {
        dval__buf df = {0};
        rc = s->dockerfile ? dval__buf_append(&df, s->dockerfile,
                                              strlen(s->dockerfile))
                           : dockerfile(s, &df);
        bi = json_object();
        rc = rc ? rc : !bi ? DVAL_ENOMEM
                 : put_str(bi, "dockerfileContent", df.data);
        if (!rc)
            rc = json_object_set_new(bi, "contextHashes", json_array())
                     ? DVAL_ENOMEM : 0;
        if (!rc)
            rc = json_object_set(o, "buildInfo", bi) ? DVAL_ENOMEM : 0;
        dval__buf_free(&df);
    } else if (!rc) {
        rc = put_str(o, "imageName", s->image ? s->image : "");
    }
    if (!rc)
        rc = put_resources(o, s->cpu, s->memory_gib, s->disk_gib);
    if (!rc && target && target[0])
        rc = put_str(o, "regionId", target);
    json_decref(bi);
    return finish(o, rc, out);
}

/* "k=v" array → object ("k" alone maps to ""). */
static int kv_object(const char *const *kv, json_t **out)
{
    json_t *o = json_object();
    if (!o)
        return DVAL_ENOMEM;
    for (const char *const *p = kv; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        size_t kl = eq ? (size_t)(eq - *p) : strlen(*p);
        char *k = dval__strndup(*p, kl);
        json_t *v = json_string(eq ? eq + 1 : "");
        int bad = !k || !v || json_object_set_new(o, k, v);
        if (!k || !v)
            json_decref(v);
        dval__free(k);
        if (bad) {
            json_decref(o);
            return DVAL_EINVAL;
        }
    }
    *out = o;
    return DVAL_OK;
}

static int sandbox_create_fields(json_t *o, const dval_sandbox_options *s)
{
    int rc = 0;
    /* resources only on the image path: with a snapshot the server
     * answers 400 "Cannot specify Sandbox resources" (PROTOCOL 3.2) */
    if (!s->snapshot)
        rc = put_resources(o, s->cpu, s->memory_gib, s->disk_gib);
    /* resolved by the core: 0 means never (its default, 60, is explicit) */
    int stop = s->auto_stop_minutes < 0 ? 0 : s->auto_stop_minutes;
    if (!rc)
        rc = put_int(o, "autoStopInterval", stop);
    if (!rc && s->auto_archive_minutes > 0)
        rc = put_int(o, "autoArchiveInterval", s->auto_archive_minutes);
    if (!rc && s->auto_delete_minutes > 0)
        rc = put_int(o, "autoDeleteInterval", s->auto_delete_minutes);
    if (!rc && s->struct_size >= offsetof(dval_sandbox_options, ttl_minutes) +
                                     sizeof s->ttl_minutes &&
        s->ttl_minutes > 0)
        rc = put_int(o, "ttlMinutes", s->ttl_minutes);
    if (!rc && s->network != DVAL_NETWORK_DEFAULT)
        rc = json_object_set_new(o, "networkBlockAll",
                                 json_boolean(s->network == DVAL_NETWORK_BLOCK))
                 ? DVAL_ENOMEM : 0;
    return rc;
}

int dt_json_sandbox_create(char **out, const dval_sandbox_options *s,
                           const char *target)
{
    json_t *o = json_object(), *labels = NULL, *env = NULL;
    int rc = o ? put_str(o, "name", s->name ? s->name : "") : DVAL_ENOMEM;
    if (!rc && s->snapshot) {
        rc = put_str(o, "snapshot", s->snapshot);
    } else if (!rc && s->image) {
        /* a string image is a one-line build (PROTOCOL 2.5) */
        dval__buf df = {0};
        json_t *bi = json_object();
        rc = dval__buf_appendf(&df, "FROM %s\n", s->image);
        rc = rc ? rc : !bi ? DVAL_ENOMEM
                 : put_str(bi, "dockerfileContent", df.data);
        if (!rc)
            rc = json_object_set_new(bi, "contextHashes", json_array())
                     ? DVAL_ENOMEM : 0;
        rc = rc ? rc : json_object_set(o, "buildInfo", bi) ? DVAL_ENOMEM : 0;
        json_decref(bi);
        dval__buf_free(&df);
    }
    if (!rc)
        rc = kv_object(s->labels, &labels);
    if (!rc)
        rc = json_object_set(o, "labels", labels) ? DVAL_ENOMEM : 0;
    if (!rc)
        rc = kv_object(s->env, &env);
    if (!rc)
        rc = json_object_set(o, "env", env) ? DVAL_ENOMEM : 0;
    if (!rc && target && target[0])
        rc = put_str(o, "target", target);
    if (!rc)
        rc = sandbox_create_fields(o, s);
    json_decref(labels);
    json_decref(env);
    return finish(o, rc, out);
}

int dt_json_session_create(char **out, const char *session_id)
{
    json_t *o = json_object();
    int rc = o ? put_str(o, "sessionId", session_id) : DVAL_ENOMEM;
    return finish(o, rc, out);
}

/* written directly: the command is the longest text a validation sends,
 * and a json_t of it would copy and check it once more */
int dt_json_exec(char **out, const char *command)
{
    dval__buf b = {0};
    int rc = dval__buf_reserve(&b, strlen(command) + 40);
    if (!rc)
        rc = dval__buf_append(&b, "{\"command\":", 11);
    if (!rc)
        rc = dval__json_write_str(&b, command, strlen(command), JSON_COMPACT);
    if (!rc)
        rc = dval__buf_append(&b, ",\"runAsync\":true}", 17);
    if (rc)
        dval__buf_free(&b);
    *out = b.data;
    return rc;
}

int dt_json_paths(char **out, const char *path)
{
    json_t *o = json_object(), *a = json_array(), *p = json_string(path);
    int rc = (!o || !a) ? DVAL_ENOMEM : !p ? DVAL_EINVAL : 0;
    if (!rc)
        rc = json_array_append(a, p) || json_object_set(o, "paths", a)
                 ? DVAL_ENOMEM : 0;
    json_decref(p);
    json_decref(a);
    return finish(o, rc, out);
}

int dt_json_labels(char **out, const char *const *labels)
{
    json_t *o;
    int rc = kv_object(labels, &o);
    return rc ? rc : finish(o, DVAL_OK, out);
}
