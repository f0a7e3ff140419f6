/* Sandbox options: validation, deep copy, defaults. */
#include <string.h>

#include "sandbox_opts.h"

DVAL_API int dval_sandbox_options_init(dval_sandbox_options *o, size_t size)
{
    return dval__opts_init(o, size, sizeof *o);
}

/* Owned strings live in one NULL-terminated array freed together. */
static int own(dval_sandbox *sb, size_t *n, size_t *cap, const char *s,
               const char **dst)
{
    if (!s) {
        *dst = NULL;
        return DVAL_OK;
    }
    if (*n + 2 > *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **p = dval__realloc(sb->owned, nc * sizeof *p);
        if (!p)
            return DVAL_ENOMEM;
        sb->owned = p;
        sb->owned[*n] = NULL; /* keep the list terminated if strdup fails */
        *cap = nc;
    }
    char *d = dval__strdup(s);
    if (!d)
        return DVAL_ENOMEM;
    sb->owned[(*n)++] = d;
    sb->owned[*n] = NULL;
    *dst = d;
    return DVAL_OK;
}

static int check_kv(const char *what, const char *kv, char *msg, size_t cap)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        dval__fmt(msg, cap, "%s entry \"%s\" is not key=value", what, kv);
        return DVAL_EINVAL;
    }
    for (const unsigned char *p = (const unsigned char *)kv; *p; p++)
        if (*p < 0x20 && *p != '\t') {
            dval__fmt(msg, cap, "%s entry contains control characters", what);
            return DVAL_EINVAL;
        }
    if (!dval__utf8_valid(kv, strlen(kv))) {
        dval__fmt(msg, cap, "%s entry is not valid UTF-8", what);
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

/* Copies a NULL-terminated "k=v" array into owned storage. The array of
 * pointers itself is also owned (stored as one more allocation). */
static int own_array(dval_sandbox *sb, size_t *n, size_t *cap,
                     const char *what, const char *const *in,
                     const char *const **out, char *msg, size_t mcap)
{
    *out = NULL;
    if (!in)
        return DVAL_OK;
    size_t count = 0;
    while (in[count]) {
        if (count >= 1024) { /* this is entry 1025 */
            dval__fmt(msg, mcap, "%s has more than 1024 entries", what);
            return DVAL_EINVAL;
        }
        int rc = check_kv(what, in[count], msg, mcap);
        if (rc)
            return rc;
        count++;
    }
    const char **arr = dval__calloc(count + 1, sizeof *arr);
    if (!arr)
        return DVAL_ENOMEM;
    /* register the array first so it is freed on any later failure */
    const char *slot;
    if (own(sb, n, cap, "", &slot)) {
        dval__free(arr);
        return DVAL_ENOMEM;
    }
    dval__free(sb->owned[*n - 1]);
    sb->owned[*n - 1] = (char *)arr;
    for (size_t i = 0; i < count; i++)
        if (own(sb, n, cap, in[i], &arr[i]))
            return DVAL_ENOMEM;
    *out = arr;
    return DVAL_OK;
}

int dval__sandbox_opts_take(dval_sandbox *sb, dval_client *c,
                            const dval_sandbox_options *in, char *msg,
                            size_t cap)
{
    dval_sandbox_options *o = &sb->opts;
    int rc = dval__opts_copy(o, sizeof *o, in, sizeof(size_t));
    if (rc) {
        dval__fmt(msg, cap, "sandbox options: struct_size %zu not supported "
                  "(or unknown fields set)", in->struct_size);
        return rc;
    }
    rc = dval__check_name("sandbox name", o->name, 0, msg, cap);
    if (!rc && o->snapshot)
        rc = dval__check_name("snapshot name", o->snapshot, 1, msg, cap);
    if (rc)
        return rc;
    if (o->auto_stop_minutes < -1 || o->auto_archive_minutes < 0 ||
        o->network < 0 || o->network > DVAL_NETWORK_ALLOW ||
        o->release < 0 || o->release > DVAL_RELEASE_DELETE || o->cpu < 0 ||
        o->memory_gib < 0 || o->disk_gib < 0 || o->max_pids < 0 ||
        o->max_memory_bytes < 0 || o->max_cpu_ms < 0) {
        dval__fmt(msg, cap, "sandbox options: a numeric field is out of range");
        return DVAL_EINVAL;
    }
    size_t n = 0, ocap = 0;
    if (own(sb, &n, &ocap, o->name, &o->name) ||
        own(sb, &n, &ocap, o->snapshot, &o->snapshot) ||
        own(sb, &n, &ocap, o->image, &o->image) ||
        own(sb, &n, &ocap, o->target, &o->target))
        return DVAL_ENOMEM;
    rc = own_array(sb, &n, &ocap, "labels", in->labels, &o->labels, msg, cap);
    if (!rc)
        rc = own_array(sb, &n, &ocap, "env", in->env, &o->env, msg, cap);
    if (rc)
        return rc;
    o->auto_stop_minutes = o->auto_stop_minutes == 0    ? 60
                           : o->auto_stop_minutes == -1 ? 0
                                                        : o->auto_stop_minutes;
    if (o->create_timeout_ms <= 0)
        o->create_timeout_ms = 180000;
    if (o->start_timeout_ms <= 0)
        o->start_timeout_ms = 180000;
    o->zombie_pause_ms = o->zombie_pause_ms == 0   ? 5000
                         : o->zombie_pause_ms < 0 ? 0
                                                  : o->zombie_pause_ms;
    /* the client's dval_local_options defaults; 0 still means the
     * executor's own */
    if (!o->max_pids)
        o->max_pids = c->cfg.local_max_pids;
    if (!o->max_memory_bytes && !o->memory_gib) /* the sandbox's own unit */
        o->max_memory_bytes = c->cfg.local_max_memory_bytes;
    if (!o->max_cpu_ms)
        o->max_cpu_ms = c->cfg.local_max_cpu_ms;
    return DVAL_OK;
}

int dval__sandbox_opts_rename(dval_sandbox *sb, const char *name)
{
    size_t n = 0, cap = 0;
    while (sb->owned && sb->owned[n])
        n++;
    cap = n + 1; /* forces own() to grow the list */
    return own(sb, &n, &cap, name, &sb->opts.name);
}

void dval__sandbox_opts_free(dval_sandbox *sb)
{
    for (size_t i = 0; sb->owned && sb->owned[i]; i++)
        dval__free(sb->owned[i]);
    dval__free(sb->owned);
    sb->owned = NULL;
}
