/* Profile files (dval_profile_load(3)): a JSON description of a profile
 * that a user writes, turned into a dval_profile and registered; the
 * built-in profiles are such files, embedded (profile_builtin.h). Its
 * "files" travel into the snapshot in its build steps (carry.h); its
 * snapshot and sandbox are named for what the snapshot holds, as the
 * built-in profiles' are (profile.c), so an edited file builds a new
 * snapshot instead of reusing a stale one. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <string.h>
#include <unistd.h>

#include "carry.h"
#include "internal.h"
#include "profile_builtin.h"
#include "profile_stamp.h"

#define FILES_MAX_BYTES (1024 * 1024)

static const char *const fields[] = {
    "name", "image", "run_command", "build_command", "build_steps",
    "local_build_steps", "files", "channel_prefix", "runtime", "description",
    "services", "seeds", "extends", "sandbox_name", "local_requires",
    "memory_mib", "max_processes", "cpu_time_ms", "output_bytes",
    "timeout_ms", NULL};

typedef struct pfile {
    const char *path;
    const dval_profile *base;     /* "extends" (NULL: none) */
    int builtin;                  /* embedded: no "extends", no files */
    json_t *doc;
    char *err;
    size_t errcap;
    dval_profile p;
    const char **build, **local;  /* owned arrays of borrowed/owned text */
    char **carried;               /* the files' steps (owned) */
    const char **services;        /* borrowed from doc */
    char **seeds;                 /* absolute paths (owned) */
    char *runtime_step;
    char channel[160], snapshot[DVAL_ID_MAX], sandbox[DVAL_ID_MAX];
} pfile;

static int fail(pfile *f, int rc, const char *fmt, const char *a,
                const char *b)
{
    if (f->err && f->errcap) {
        char m[900];
        dval__fmt(m, sizeof m, fmt, a ? a : "", b ? b : "");
        dval__fmt(f->err, f->errcap, "%s: %s", f->path, m);
    }
    return rc;
}

static int known_fields(pfile *f)
{
    const char *key;
    json_t *v;
    json_object_foreach(f->doc, key, v) {
        size_t i = 0;
        while (fields[i] && strcmp(fields[i], key))
            i++;
        if (!fields[i])
            return fail(f, DVAL_EINVAL, "unknown field \"%s\" (the fields "
                        "are name, image, run_command, build_command, "
                        "build_steps, local_build_steps, files, "
                        "channel_prefix, runtime, description, services, "
                        "seeds, extends, sandbox_name, local_requires, "
                        "memory_mib, max_processes, cpu_time_ms, "
                        "output_bytes, timeout_ms)%s", key, "");
    }
    return DVAL_OK;
}

/* A string member; required: absent is an error. */
static int text(pfile *f, const char *key, int required, const char **out)
{
    json_t *v = json_object_get(f->doc, key);
    *out = NULL;
    if (!v && !required)
        return DVAL_OK;
    if (!json_is_string(v) || !json_string_length(v))
        return fail(f, DVAL_EINVAL, "\"%s\" must be a non-empty string%s",
                    key, v ? "" : " (it is required)");
    *out = json_string_value(v);
    return DVAL_OK;
}

/* A limit: absent (the base's, else 0) or an integer in 0..max. */
static int limit(pfile *f, const char *key, int64_t max, int64_t dflt,
                 int64_t *out)
{
    json_t *v = json_object_get(f->doc, key);
    *out = v ? json_integer_value(v) : dflt;
    if (v && (!json_is_integer(v) || *out < 0 || *out > max)) {
        char m[64];
        dval__fmt(m, sizeof m, "%lld", (long long)max);
        return fail(f, DVAL_EINVAL, "\"%s\" must be an integer from 0 "
                    "(no limit) to %s", key, m);
    }
    return DVAL_OK;
}

/* The defaults of the profile's validations (dval_validation's fields of
 * the same names). */
static int limits(pfile *f)
{
    const dval_profile *b = f->base;
    int64_t mem = 0, procs = 0;
    int rc = limit(f, "memory_mib", INT32_MAX, b ? b->memory_mib : 0, &mem);
    rc = rc ? rc : limit(f, "max_processes", INT32_MAX,
                         b ? b->max_processes : 0, &procs);
    rc = rc ? rc : limit(f, "cpu_time_ms", INT64_MAX,
                         b ? b->cpu_time_ms : 0, &f->p.cpu_time_ms);
    rc = rc ? rc : limit(f, "output_bytes", INT64_MAX,
                         b ? b->output_bytes : 0, &f->p.output_bytes);
    rc = rc ? rc : limit(f, "timeout_ms", INT64_MAX, b ? b->timeout_ms : 0,
                         &f->p.timeout_ms);
    f->p.memory_mib = (int32_t)mem;
    f->p.max_processes = (int32_t)procs;
    return rc;
}

/* The steps of an array member, after `before` (NULL-terminated, may be
 * NULL) and followed by `after` (may be NULL). */
static int steps(pfile *f, const char *key, const char *const *before,
                 const char *after, const char ***out)
{
    json_t *a = json_object_get(f->doc, key);
    if (a && !json_is_array(a))
        return fail(f, DVAL_EINVAL, "\"%s\" must be an array of shell "
                    "commands%s", key, "");
    size_t nb = 0, na = json_array_size(a);
    while (before && before[nb])
        nb++;
    const char **v = dval__calloc(nb + na + 2, sizeof *v);
    if (!v)
        return fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
    memcpy(v, before, nb * sizeof *v);
    for (size_t i = 0; i < na; i++) {
        json_t *s = json_array_get(a, i);
        if (!json_is_string(s) || !json_string_length(s)) {
            dval__free(v);
            return fail(f, DVAL_EINVAL, "\"%s\": every step must be a "
                        "non-empty string%s", key, "");
        }
        v[nb + i] = json_string_value(s);
    }
    v[nb + na] = after;
    *out = v;
    return DVAL_OK;
}

/* "0755" or 493 → 0755; -1 when neither. */
static long file_mode(json_t *m)
{
    if (!m)
        return 0644;
    if (json_is_integer(m))
        return json_integer_value(m);
    const char *s = json_string_value(m);
    char *end;
    long v = s && *s ? strtol(s, &end, 8) : -1;
    return s && *s && !*end ? v : -1;
}

static int one_file(pfile *f, json_t *e, const char *dir, dval__carried *c,
                    char *from, size_t cap)
{
    const char *src = json_string_value(json_object_get(e, "from"));
    const char *to = json_string_value(json_object_get(e, "to"));
    long mode = file_mode(json_object_get(e, "mode"));
    if (!json_is_object(e) || !src || !*src || !to || json_object_size(e) >
        (size_t)(2 + !!json_object_get(e, "mode")))
        return fail(f, DVAL_EINVAL, "each of \"files\" is {\"from\": host "
                    "path, \"to\": snapshot path, \"mode\": \"0644\"}%s%s",
                    NULL, NULL);
    if (mode < 0 || mode > 07777)
        return fail(f, DVAL_EINVAL, "\"files\": %s: the mode must be octal "
                    "text such as \"0755\"%s", src, "");
    dval__fmt(from, cap, src[0] == '/' ? "%s" : "%s/%s",
              src[0] == '/' ? src : dir, src);
    *c = (dval__carried){ from, to, (unsigned)mode };
    return DVAL_OK;
}

/* The "files" member as build steps; paths relative to the file's
 * directory. */
static int files(pfile *f)
{
    json_t *a = json_object_get(f->doc, "files");
    if (!a)
        return DVAL_OK;
    if (f->builtin)
        return fail(f, DVAL_EINVAL, "a built-in profile carries no host "
                    "files (the build embeds them in its steps)%s%s", NULL,
                    NULL);
    if (!json_is_array(a))
        return fail(f, DVAL_EINVAL, "\"files\" must be an array%s%s", NULL,
                    NULL);
    size_t n = json_array_size(a);
    char *copy = dval__strdup(f->path);
    dval__carried *c = dval__calloc(n + 1, sizeof *c);
    char (*from)[4096] = dval__calloc(n + 1, sizeof *from);
    int rc = copy && c && from ? DVAL_OK
             : fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
    const char *dir = copy ? dirname(copy) : ".";
    for (size_t i = 0; !rc && i < n; i++)
        rc = one_file(f, json_array_get(a, i), dir, &c[i], from[i],
                      sizeof from[i]);
    char msg[600];
    if (!rc && n &&
        (rc = dval__carry_steps(c, n, FILES_MAX_BYTES, "profile file",
                                &f->carried, msg, sizeof msg)))
        fail(f, rc, "%s%s", msg, NULL);
    dval__free(copy);
    dval__free(c);
    dval__free(from);
    return rc;
}

/* "NAME_SANDBOX_" in capitals unless the file names a prefix. */
static int channel(pfile *f)
{
    const char *given;
    int rc = text(f, "channel_prefix", 0, &given);
    if (rc)
        return rc;
    if (given) {
        if (strlen(given) >= sizeof f->channel ||
            given[strspn(given, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")])
            return fail(f, DVAL_EINVAL, "\"channel_prefix\" must be capital "
                        "letters, digits and _ (e.g. \"MY_SANDBOX_\")%s%s",
                        NULL, NULL);
        dval__strlcpy(f->channel, given, sizeof f->channel);
    } else {
        dval__fmt(f->channel, sizeof f->channel, "%.100s_SANDBOX_",
                  f->p.name);
        for (char *c = f->channel; *c; c++)
            *c = *c >= 'a' && *c <= 'z' ? *c - 32 : strchr(".-", *c) ? '_'
                                                                      : *c;
    }
    f->p.channel_prefix = f->channel;
    return DVAL_OK;
}

/* The snapshot records the runtime inside, in its own words, as the
 * built-in profiles' do (dval_snapshot_runtime(3)). */
static int runtime(pfile *f)
{
    const char *cmd;
    int rc = text(f, "runtime", 0, &cmd);
    if (rc || !cmd)
        return rc;
    dval__buf b = {0};
    if (dval__buf_appendf(&b, "mkdir -p /etc/dval && { %s; } 2>&1 | "
                          "head -n 1 > /etc/dval/runtime", cmd) ||
        dval__buf_append(&b, "", 1))
        return fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
    f->runtime_step = b.data;
    return DVAL_OK;
}

/* The strings of an array member (NULL when absent): *n of them. */
static int strings(pfile *f, const char *key, json_t **arr, size_t *n)
{
    *arr = json_object_get(f->doc, key);
    *n = json_array_size(*arr);
    if (*arr && !json_is_array(*arr))
        return fail(f, DVAL_EINVAL, "\"%s\" must be an array of names%s",
                    key, "");
    for (size_t i = 0; i < *n; i++) {
        json_t *s = json_array_get(*arr, i);
        if (!json_is_string(s) || !json_string_length(s))
            return fail(f, DVAL_EINVAL, "\"%s\": every entry must be a "
                        "non-empty string%s", key, "");
    }
    return DVAL_OK;
}

/* "services": names dval_service_names() knows. */
static int services(pfile *f)
{
    json_t *a;
    size_t n;
    int rc = strings(f, "services", &a, &n);
    if (rc || !a)
        return rc;
    const char *const *known = NULL;
    dval_service_names(&known);
    if (!(f->services = dval__calloc(n + 1, sizeof *f->services)))
        return fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        const char *name = json_string_value(json_array_get(a, i));
        size_t k = 0;
        while (known && known[k] && strcmp(known[k], name))
            k++;
        if (!known || !known[k])
            return fail(f, DVAL_EINVAL, "unknown service \"%s\" (see "
                        "dval_service_names(3))%s", name, "");
        f->services[i] = name;
    }
    return DVAL_OK;
}

/* "seeds": SQL files, relative to the profile file's directory. */
static int seeds(pfile *f)
{
    json_t *a;
    size_t n;
    int rc = strings(f, "seeds", &a, &n);
    if (rc || !a)
        return rc;
    if (!f->services)
        return fail(f, DVAL_EINVAL, "\"seeds\" without \"services\" (a "
                    "seed is loaded into the services' databases)%s%s",
                    NULL, NULL);
    char *copy = dval__strdup(f->path);
    f->seeds = dval__calloc(n + 1, sizeof *f->seeds);
    const char *dir = copy ? dirname(copy) : ".";
    for (size_t i = 0; !rc && i < n; i++) {
        const char *s = json_string_value(json_array_get(a, i));
        char path[4096];
        dval__fmt(path, sizeof path, s[0] == '/' ? "%s" : "%s/%s",
                  s[0] == '/' ? s : dir, s);
        if (!copy || !f->seeds || !(f->seeds[i] = dval__strdup(path)))
            rc = fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
        else if (access(path, R_OK))
            rc = fail(f, DVAL_EIO, "seed %s: %s", path, strerror(errno));
    }
    dval__free(copy);
    return rc;
}

/* "extends": the profile this one starts from; its image, commands,
 * channels and services stand unless the file gives its own, and its
 * build steps come before the file's. */
static int base(pfile *f)
{
    const char *name;
    int rc = text(f, "extends", 0, &name);
    if (rc || !name)
        return rc;
    if (f->builtin)
        return fail(f, DVAL_EINVAL, "a built-in profile extends none%s%s",
                    NULL, NULL);
    if (!(f->base = dval_profile_find(name)))
        return fail(f, DVAL_EINVAL, "\"extends\": unknown profile \"%s\" "
                    "(see dval_profile_names(3))%s", name, "");
    return DVAL_OK;
}

/* a (may be NULL) followed by b (may be NULL): a new array of borrowed
 * strings, NULL-terminated */
static const char **concat(const char *const *a, char *const *b)
{
    size_t na = 0, nb = 0;
    while (a && a[na])
        na++;
    while (b && b[nb])
        nb++;
    const char **v = dval__calloc(na + nb + 1, sizeof *v);
    for (size_t i = 0; v && i < na + nb; i++)
        v[i] = i < na ? a[i] : b[i - na];
    return v;
}

/* The build steps (the base's, the files', the file's own, the runtime
 * record), and the local executor's when the file or its base has them. */
static int all_steps(pfile *f)
{
    const dval_profile *b = f->base;
    int own_local = json_object_get(f->doc, "local_build_steps") != NULL;
    const char **before = concat(b ? b->build_commands : NULL, f->carried);
    const char **lbefore = concat(b && b->local_build_commands
                                      ? b->local_build_commands
                                      : b ? b->build_commands : NULL,
                                  f->carried);
    int rc = before && lbefore ? DVAL_OK
             : fail(f, DVAL_ENOMEM, "out of memory%s%s", NULL, NULL);
    rc = rc ? rc : steps(f, "build_steps", before, f->runtime_step, &f->build);
    if (!rc && (own_local || (b && b->local_build_commands)))
        rc = steps(f, own_local ? "local_build_steps" : "build_steps",
                   lbefore, f->runtime_step, &f->local);
    dval__free(before);
    dval__free(lbefore);
    return rc;
}

/* What the file leaves out, its base gives. */
static void inherit(pfile *f)
{
    const dval_profile *b = f->base;
    if (!b)
        return;
    if (!f->p.image)
        f->p.image = b->image;
    if (!f->p.run_command)
        f->p.run_command = b->run_command;
    if (!json_object_get(f->doc, "build_command"))
        f->p.build_command = b->build_command;
    if (!json_object_get(f->doc, "channel_prefix"))
        f->p.channel_prefix = b->channel_prefix;
    if (!f->services && !f->seeds) {
        f->p.services = b->services;
        f->p.seeds = b->seeds;
    }
}

static int parse(pfile *f)
{
    char msg[256];
    int rc = known_fields(f);
    rc = rc ? rc : base(f);
    rc = rc ? rc : text(f, "name", 1, &f->p.name);
    if (!rc && dval__check_component("profile name", f->p.name, msg,
                                     sizeof msg))
        rc = fail(f, DVAL_EINVAL, "\"name\": %s%s", msg, NULL);
    rc = rc ? rc : text(f, "image", !f->base, &f->p.image);
    rc = rc ? rc : text(f, "run_command", !f->base, &f->p.run_command);
    rc = rc ? rc : text(f, "build_command", 0, &f->p.build_command);
    const char *ignored;
    rc = rc ? rc : text(f, "description", 0, &ignored);
    rc = rc ? rc : text(f, "local_requires", 0, &f->p.local_requires);
    rc = rc ? rc : text(f, "sandbox_name", 0, &ignored);
    if (!rc && ignored && dval__check_name("sandbox_name", ignored, 0, msg,
                                           sizeof msg))
        rc = fail(f, DVAL_EINVAL, "%s%s", msg, NULL);
    rc = rc ? rc : limits(f);
    rc = rc ? rc : channel(f);
    rc = rc ? rc : files(f);
    rc = rc ? rc : runtime(f);
    rc = rc ? rc : all_steps(f);
    rc = rc ? rc : services(f);
    rc = rc ? rc : seeds(f);
    f->p.build_commands = f->build;
    f->p.local_build_commands = f->local;
    f->p.services = f->services;
    f->p.seeds = (const char *const *)f->seeds;
    inherit(f);
    return rc;
}

/* Named for the image and every step (profile_stamp.h); the sandboxes
 * "<sandbox_name>-<stamp>" when the file names them. */
static void names(pfile *f)
{
    char stamp[16];
    const char *sb = json_string_value(json_object_get(f->doc,
                                                       "sandbox_name"));
    dval__profile_stamp(&f->p, stamp);
    dval__fmt(f->snapshot, sizeof f->snapshot, "validation-snapshot-%.150s-%s",
              f->p.name, stamp);
    if (sb)
        dval__fmt(f->sandbox, sizeof f->sandbox, "%.150s-%s", sb, stamp);
    else
        dval__fmt(f->sandbox, sizeof f->sandbox, "%.150s-sandbox-%s",
                  f->p.name, stamp);
    f->p.snapshot_name = f->snapshot;
    f->p.sandbox_name = f->sandbox;
}

static int keep_registered(const dval_profile *p, void *arg)
{
    (void)arg;
    return dval_profile_register(p);
}

static void pfile_free(pfile *f)
{
    for (size_t i = 0; f->carried && f->carried[i]; i++)
        dval__free(f->carried[i]);
    dval__free(f->carried);
    for (size_t i = 0; f->seeds && f->seeds[i]; i++)
        dval__free(f->seeds[i]);
    dval__free(f->seeds);
    dval__free(f->services);
    dval__free(f->build);
    dval__free(f->local);
    dval__free(f->runtime_step);
    json_decref(f->doc);
}

/* The parsed document as a named profile, handed to keep. */
static int parse_doc(pfile *f, int (*keep)(const dval_profile *, void *),
                     void *arg)
{
    if (!json_is_object(f->doc))
        return fail(f, DVAL_EINVAL, "a profile file is one JSON object%s%s",
                    NULL, NULL);
    f->p.struct_size = sizeof f->p;
    int rc = parse(f);
    if (rc)
        return rc;
    names(f);
    rc = keep(&f->p, arg);
    return rc ? fail(f, rc, "cannot register the profile: %s%s",
                     dval_strerror(rc), NULL)
              : DVAL_OK;
}

static int load(pfile *f)
{
    json_error_t je;
    f->doc = json_load_file(f->path, JSON_REJECT_DUPLICATES, &je);
    if (!f->doc) {
        char where[64];
        dval__fmt(where, sizeof where, "line %d", je.line);
        return fail(f, je.line > 0 ? DVAL_EINVAL : DVAL_EIO, "%s: %s",
                    je.line > 0 ? where : "cannot read it", je.text);
    }
    return parse_doc(f, keep_registered, NULL);
}

DVAL_API int dval_profile_load(const char *path, const char **name,
                               char *errbuf, size_t errcap)
{
    if (name)
        *name = NULL;
    if (errbuf && errcap)
        errbuf[0] = '\0';
    if (!path || !*path)
        return DVAL_EINVAL;
    pfile f;
    memset(&f, 0, sizeof f);
    f.path = path;
    f.err = errbuf;
    f.errcap = errcap;
    int rc = load(&f);
    if (!rc && name) {
        const dval_profile *p = dval_profile_find(f.p.name);
        *name = p ? p->name : NULL;
    }
    pfile_free(&f);
    return rc;
}

/* A built-in profile: the text of profiles/builtin/<label> as the
 * library embedded it (profile.c), parsed as a file is, and handed to
 * keep. It cannot extend another (profile.c parses it under its lock). */
int dval__profile_parse_builtin(const char *label, const char *text,
                                int (*keep)(const dval_profile *, void *),
                                void *arg, char *errbuf, size_t errcap)
{
    pfile f;
    memset(&f, 0, sizeof f);
    f.path = label;
    f.err = errbuf;
    f.errcap = errcap;
    f.builtin = 1;
    json_error_t je;
    f.doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    int rc = f.doc ? parse_doc(&f, keep, arg)
                   : fail(&f, DVAL_EINVAL, "%s%s", je.text, NULL);
    pfile_free(&f);
    return rc;
}
