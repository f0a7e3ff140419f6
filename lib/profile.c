/* Validation profiles: the built-ins (profiles/builtin/NAME.json, embedded
 * at build time and parsed once by the profile-file parser), plus
 * host-registered copies.
 *
 * Lifetime rule: dval_profile_find() hands out borrowed pointers, so a
 * registered profile is never freed while the process runs, even when a
 * later registration of the same name shadows it. Replacing a profile
 * therefore costs its few hundred bytes once, and a borrowed pointer stays
 * valid on any thread. Everything stays reachable from `registered`,
 * `builtins` and `retired_names`, so leak checkers do not report it. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "builtin_profiles.h"
#include "executor_profile.h"
#include "internal.h"
#include "profile_builtin.h"
#include "profile_stamp.h"
#include "services.h"

/* A profile's snapshot and sandbox are named for what the snapshot
 * holds: "<name>-<hash of the image and every build step>" (the
 * profile-file parser names them). A library whose profile builds
 * something else (a new JDK, another package set, a fixed script) then
 * builds a new snapshot and starts new sandboxes from it, instead of
 * reusing the old ones by name, on every executor. FNV-1a: a version
 * stamp, not a security boundary. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (h ^ 0xff) * 1099511628211ULL; /* a separator after each */
}

static uint64_t steps_hash(uint64_t h, const char *const *steps)
{
    for (size_t i = 0; steps && steps[i]; i++)
        h = fnv(h, steps[i]);
    return fnv(h, "");
}

void dval__profile_stamp(const dval_profile *p, char out[16])
{
    uint64_t h = fnv(14695981039346656037ULL, p->image);
    h = steps_hash(steps_hash(h, p->build_commands), p->local_build_commands);
    dval__fmt(out, 16, "%08x", (unsigned)(h ^ (h >> 32)));
}

/* ---- registry */

typedef struct reg {
    struct reg *next;
    dval_profile p;        /* strings and arrays below are owned */
} reg;

typedef struct names_block {
    struct names_block *next;
    const char **names;
} names_block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static reg *registered;              /* newest first */
static const char **names;           /* current list (NULL → builtins only) */
static names_block *retired_names;   /* earlier lists, kept for borrowers */
/* Each built-in is parsed the first time its name is looked up, under
 * the lock (a process that runs one profile never parses the others);
 * one that could not be (no memory) is tried again next time. */
static reg *builtins[DVAL__N_BUILTINS];
static const char *builtin_names[DVAL__N_BUILTINS + 1];

static void free_strv(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        dval__free(*p);
    dval__free(v);
}

static void reg_free(reg *r)
{
    dval_profile *p = &r->p;
    dval__free((char *)p->name);
    dval__free((char *)p->sandbox_name);
    dval__free((char *)p->snapshot_name);
    dval__free((char *)p->image);
    free_strv((char **)p->build_commands);
    dval__free((char *)p->channel_prefix);
    dval__free((char *)p->run_command);
    free_strv((char **)p->local_build_commands);
    dval__free((char *)p->local_requires);
    dval__free((char *)p->local_unavailable_msg);
    dval__free((char *)p->build_command);
    free_strv((char **)p->services);
    free_strv((char **)p->seeds);
    dval__free(r);
}

/* NULL stays NULL; otherwise *dst is a copy. Returns 0 or -1 (no memory). */
static int dup_str(const char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = dval__strdup(src);
    return *dst ? 0 : -1;
}

static int dup_strv(const char *const **dst, const char *const *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    size_t n = 0;
    while (src[n])
        n++;
    char **v = dval__calloc(n + 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] = dval__strdup(src[i]))) {
            free_strv(v);
            return -1;
        }
    }
    *dst = (const char *const *)v;
    return 0;
}

static reg *reg_copy(const dval_profile *src)
{
    reg *r = dval__calloc(1, sizeof *r);
    if (!r)
        return NULL;
    dval_profile *p = &r->p;
    p->struct_size = sizeof *p;
    if (dup_str(&p->name, src->name) ||
        dup_str(&p->sandbox_name, src->sandbox_name) ||
        dup_str(&p->snapshot_name, src->snapshot_name) ||
        dup_str(&p->image, src->image) ||
        dup_strv(&p->build_commands, src->build_commands) ||
        dup_str(&p->channel_prefix, src->channel_prefix) ||
        dup_str(&p->run_command, src->run_command) ||
        dup_strv(&p->local_build_commands, src->local_build_commands) ||
        dup_str(&p->local_requires, src->local_requires) ||
        dup_str(&p->local_unavailable_msg, src->local_unavailable_msg) ||
        dup_str(&p->build_command, src->build_command) ||
        dup_strv(&p->services, src->services) ||
        dup_strv(&p->seeds, src->seeds)) {
        reg_free(r);
        return NULL;
    }
    p->memory_mib = src->memory_mib;
    p->max_processes = src->max_processes;
    p->cpu_time_ms = src->cpu_time_ms;
    p->output_bytes = src->output_bytes;
    p->timeout_ms = src->timeout_ms;
    return r;
}

static int keep_builtin(const dval_profile *p, void *slot)
{
    return (*(reg **)slot = reg_copy(p)) ? DVAL_OK : DVAL_ENOMEM;
}

static void name_builtins(void)
{
    for (size_t i = 0; i < DVAL__N_BUILTINS; i++)
        builtin_names[i] = dval__builtin_src[i][0];
}

/* (locked) The reason a parse failed goes nowhere (there is no client to
 * log to): no memory is tried again, and text that does not parse, or
 * names another profile than its file, is a build that
 * test_profile_builtin fails. */
static const dval_profile *builtin(size_t i)
{
    if (!builtins[i]) {
        char label[160], err[DVAL_ERRMSG_MAX];
        dval__fmt(label, sizeof label, "profiles/builtin/%s.json",
                  dval__builtin_src[i][0]);
        if (dval__profile_parse_builtin(label, dval__builtin_src[i][1],
                                        keep_builtin, &builtins[i], err,
                                        sizeof err))
            return NULL;
    }
    return strcmp(builtins[i]->p.name, dval__builtin_src[i][0])
               ? NULL : &builtins[i]->p;
}

static int check_profile(const dval_profile *p)
{
    char msg[256];
    if (dval__check_component("profile name", p->name, msg, sizeof msg))
        return DVAL_EINVAL;
    if (!p->run_command || !*p->run_command)
        return DVAL_EINVAL;
    if (p->memory_mib < 0 || p->max_processes < 0 || p->cpu_time_ms < 0 ||
        p->output_bytes < 0 || p->timeout_ms < 0)
        return DVAL_EINVAL;
    if (!p->sandbox_name ||
        dval__check_name("sandbox name", p->sandbox_name, 0, msg, sizeof msg))
        return DVAL_EINVAL;
    if (!p->snapshot_name ||
        dval__check_name("snapshot name", p->snapshot_name, 1, msg,
                         sizeof msg))
        return DVAL_EINVAL;
    return DVAL_OK;
}

static const dval_profile *find_locked(const char *name)
{
    name_builtins();
    for (reg *r = registered; r; r = r->next)
        if (!strcmp(r->p.name, name))
            return &r->p;
    for (size_t i = 0; i < DVAL__N_BUILTINS; i++)
        if (!strcmp(dval__builtin_src[i][0], name))
            return builtin(i);
    return NULL;
}

DVAL_API const dval_profile *dval_profile_find(const char *name)
{
    if (!name)
        return NULL;
    pthread_mutex_lock(&lock);
    const dval_profile *p = find_locked(name);
    pthread_mutex_unlock(&lock);
    return p;
}

/* Rebuilds the name list after a new name appeared (called locked). The
 * previous list is retired, not freed: a caller may still hold it. */
static int rebuild_names(void)
{
    size_t n = DVAL__N_BUILTINS;
    for (reg *r = registered; r; r = r->next)
        n++;
    names_block *blk = dval__calloc(1, sizeof *blk);
    const char **v = dval__calloc(n + 1, sizeof *v);
    if (!blk || !v) {
        dval__free(blk);
        dval__free(v);
        return DVAL_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < DVAL__N_BUILTINS; i++)
        v[k++] = builtin_names[i];
    /* oldest registration first, so the list order is stable */
    size_t nreg = n - DVAL__N_BUILTINS;
    for (size_t i = nreg; i > 0; i--) {
        reg *r = registered;
        for (size_t j = 1; j < i; j++)
            r = r->next;
        int seen = 0;
        for (size_t j = 0; j < k; j++)
            if (!strcmp(v[j], r->p.name))
                seen = 1;
        if (!seen)
            v[k++] = r->p.name;
    }
    if (names) {
        blk->names = names;
        blk->next = retired_names;
        retired_names = blk;
    } else {
        dval__free(blk);
    }
    names = v;
    return DVAL_OK;
}

DVAL_API int dval_profile_register(const dval_profile *profile)
{
    if (!profile)
        return DVAL_EINVAL;
    dval_profile p;
    int rc = dval__opts_copy(&p, sizeof p, profile,
                             offsetof(dval_profile, run_command) +
                                 sizeof(const char *));
    if (rc)
        return rc;
    if ((rc = check_profile(&p)))
        return rc;
    reg *r = reg_copy(&p);
    if (!r)
        return DVAL_ENOMEM;
    pthread_mutex_lock(&lock);
    int is_new = find_locked(p.name) == NULL;
    r->next = registered;
    registered = r;
    if (is_new && (rc = rebuild_names())) {
        registered = r->next;
        pthread_mutex_unlock(&lock);
        reg_free(r);
        return rc;
    }
    pthread_mutex_unlock(&lock);
    return DVAL_OK;
}

DVAL_API int dval_profile_names(const char *const **out)
{
    if (!out)
        return DVAL_EINVAL;
    pthread_mutex_lock(&lock);
    name_builtins();
    *out = names ? names : builtin_names;
    pthread_mutex_unlock(&lock);
    return DVAL_OK;
}

/* The snapshot spec of a profile on the client's executor, with the
 * validation's services (services.h): its profile_prepare may refuse the
 * profile (the refusal is the client's message) or name its own build
 * steps, after which the services' steps come. */
int dval__profile_snapshot_spec(dval_client *c, const dval_profile *p,
                                const char *name, const dval__svcset *svc,
                                dval_snapshot_spec *spec,
                                dval__spec_hold *hold)
{
    dval_snapshot_spec_init(spec, sizeof *spec);
    hold->steps = NULL;
    spec->name = name ? name : p->snapshot_name;
    spec->image = p->image;
    spec->build_commands = p->build_commands;
    char msg[DVAL_ERRMSG_MAX];
    dval__ex_op op;
    dval__ex_op_init(&op, NULL, 0, msg, sizeof msg);
    const char *const *steps = NULL;
    int rc = dval__ex_profile_prepare(c, &op, p, &steps);
    if (rc) {
        dval__client_seterr(c, "%s", msg);
        return rc;
    }
    if (steps)
        spec->build_commands = steps;
    if ((rc = dval__svcset_apply(svc, spec, hold)))
        dval__client_seterr(c, "out of memory");
    return rc;
}
