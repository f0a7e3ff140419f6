/* Validation profiles: built-ins as static data, plus host-registered
 * copies.
 *
 * Lifetime rule: dval_profile_find() hands out borrowed pointers, so a
 * registered profile is never freed while the process runs, even when a
 * later registration of the same name shadows it. Replacing a profile
 * therefore costs its few hundred bytes once, and a borrowed pointer stays
 * valid on any thread. Everything stays reachable from `registered` and
 * `retired_names`, so leak checkers do not report it. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "executor_profile.h"
#include "internal.h"
#include "dotnet_profile_files.h"
#include "javac_service.h"
#include "javac_service_files.h"
#include "profile_service.h"
#include "profile_stamp.h"
#include "services.h"

/* ---- built-in profiles */

/* Profiles with a compiler have a build phase of its own: its output is
 * kept apart from the program's, whose stdout then carries only what
 * the program itself printed. */

/* The compile service and the run command's scripts (lib/javac_service.h)
 * are written into the snapshot by the build steps themselves (base64 of
 * libexec/dval-javac-service/, generated at build time), so the same
 * steps work for a local image and a Daytona image build. As root:
 * /opt/dval-javac is root's, the socket directory the service's uid's (no
 * validation can make or replace it). The javac CDS archive speeds up
 * the plain javac fallback; the programs' JVMs get none of their own
 * (the JDK's default archive, as plain `java`: another one shifts
 * identity hash codes). */
#define JAVA_SERVICE_FILE(b64, name)                                        \
    " && echo " b64 " | base64 -d > " DVAL_JAVAC_DIR "/" name
#define JAVA_SERVICE_FILES                                                  \
    "mkdir -p " DVAL_JAVAC_DIR                                              \
    JAVA_SERVICE_FILE(JAVAC_SERVICE_JAVA_B64, "JavacService.java")          \
    JAVA_SERVICE_FILE(JAVAC_SERVICE_CLIENT_B64, "dval-javac-client")        \
    JAVA_SERVICE_FILE(JAVAC_SERVICE_BUILD_B64, "build.sh")                  \
    JAVA_SERVICE_FILE(JAVAC_SERVICE_RUN_B64, "run.sh")                      \
    JAVA_SERVICE_FILE(JAVAC_SERVICE_RELAY_B64, "dval-java-run")             \
    " && chmod 0755 " DVAL_JAVAC_DIR " " DVAL_JAVAC_CLIENT " "              \
    DVAL_JAVAC_DIR "/dval-java-run"
#define JAVA_SERVICE_BUILD                                                  \
    "javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC "                   \
    "-J-XX:ArchiveClassesAtExit=" DVAL_JAVAC_JSA " -d " DVAL_JAVAC_DIR " "  \
    DVAL_JAVAC_DIR "/JavacService.java && chmod -R a+rX " DVAL_JAVAC_DIR    \
    " && " DVAL_SERVICE_INSTALL_SHARED("javac", DVAL_JAVAC_UID_S,           \
                                       DVAL_JAVAC_RUN_DIR,                  \
                                       DVAL_JAVAC_SERVICE_CMD)

/* What the snapshot really holds, in the runtime's own words. */
#define JAVA_RUNTIME                                                        \
    "mkdir -p /etc/dval && java -version 2>&1 | head -n 1 > /etc/dval/runtime"
static const char *const java_build[] = {
    "apt-get update && apt-get install -y maven", JAVA_SERVICE_FILES,
    JAVA_SERVICE_BUILD, JAVA_RUNTIME, NULL};
/* The local java snapshot's image is Debian 13 + openjdk-25-jdk-headless +
 * maven (image.c maps the profile's image to it): the first step only
 * shows which compiler the snapshot has, and fails the build clearly
 * where there is none (DVAL_LOCAL_HOST_ROOT=1 on a host without a JDK). */
static const char *const java_local_build[] = {
    "javac -version", JAVA_SERVICE_FILES, JAVA_SERVICE_BUILD, JAVA_RUNTIME,
    NULL};
static const char *const empty_steps[] = {NULL};

/* dotnet: the profile's scripts and the compile service
 * (profiles/dotnet/, libexec/dval-csc-service/: a tar.gz made at build
 * time) go to DOTNET_DIR; the package set is restored into its package
 * folder, the only source validations restore from; the service is
 * compiled with the image's own SDK and described as a shared profile
 * service: it takes sources as data and loads nothing of a validation,
 * so one warm copy serves every sandbox of the snapshot and a sandbox's
 * first validation does not wait for a compiler to start.
 * The same steps build the local image's snapshot and a Daytona one (the
 * SDK image). The run command is the build phase (the service, else a
 * full offline `dotnet build`: profiles/dotnet/build.sh) then the run
 * phase (`dotnet exec` of what it built: run.sh). */
#define DOTNET_DIR "/opt/dval-dotnet"
#define DVAL_CSC_UID_S "1879113729" /* DVAL_SERVICE_UID_FIRST + 1 */
#define DOTNET_PACKAGES                                                     \
    "Microsoft.EntityFrameworkCore@10.0.15 "                                \
    "Microsoft.EntityFrameworkCore.Relational@10.0.15 "                     \
    "Microsoft.EntityFrameworkCore.Sqlite@10.0.15 "                         \
    "Microsoft.EntityFrameworkCore.InMemory@10.0.15 "                       \
    "Microsoft.EntityFrameworkCore.SqlServer@10.0.15 "                      \
    "Microsoft.Data.Sqlite@10.0.15 Npgsql@10.0.3 "                          \
    "Npgsql.EntityFrameworkCore.PostgreSQL@10.0.3 Dapper@2.1.86"
static const char *const dotnet_build[] = {
    "dotnet --version",
    "mkdir -p " DOTNET_DIR " && echo " DOTNET_PROFILE_TGZ_B64 " | base64 -d | "
    "tar -xzf - --no-same-owner -C " DOTNET_DIR,
    "sh " DOTNET_DIR "/packages.sh " DOTNET_PACKAGES,
    "sh " DOTNET_DIR "/setup.sh",
    DVAL_SERVICE_INSTALL_SHARED("csc", DVAL_CSC_UID_S, "/run/dval-csc",
                                "exec sh " DOTNET_DIR "/service.sh"),
    NULL};
#define DOTNET_BUILD                                                        \
    DVAL_PROFILE_NEEDS(DOTNET_DIR, "build.sh") "exec sh " DOTNET_DIR "/build.sh"
#define DOTNET_RUN "exec sh " DOTNET_DIR "/run.sh"

/* The local_* fields are the local executor's (profile_local.c):
 * local_requires is tested on the host only where sandboxes see the
 * host's tools (the host-root opt-in). Each run command ends in `exec` of the program: dash forks for a last
 * command otherwise, a process per validation (test_run_inplace.c). */
static dval_profile builtins[] = {
    {
        sizeof(dval_profile), "dotnet", "dotnet-10-sandbox",
        "validation-snapshot-dotnet", "mcr.microsoft.com/dotnet/sdk:10.0",
        dotnet_build, "DOTNET_SANDBOX_", DOTNET_RUN, dotnet_build,
        "command -v dotnet >/dev/null 2>&1", NULL, DOTNET_BUILD, NULL, NULL,
        0, 0, 0, 0, 0,
    },
    {
        sizeof(dval_profile), "java", "java-25-sandbox",
        "validation-snapshot-java", "bellsoft/liberica-openjdk-debian:25-cds",
        java_build, "JAVA_SANDBOX_", JAVA_RUN, java_local_build, NULL, NULL,
        JAVA_BUILD, NULL, NULL, 0, 0, 0, 0, 0,
    },
    {
        sizeof(dval_profile), "shell", "shell-sandbox",
        "validation-snapshot-shell", "debian:12-slim", NULL,
        "SHELL_SANDBOX_", "exec sh run.sh", empty_steps, NULL, NULL, NULL,
        NULL, NULL, 0, 0, 0, 0, 0,
    },
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

/* A built-in profile's snapshot and sandbox are named for what the
 * snapshot holds: "<name>-<hash of the image and every build step>".
 * A library whose profile builds something else (a new JDK, another
 * package set, a fixed script) then builds a new snapshot and starts new
 * sandboxes from it, instead of reusing the old ones by name, on every
 * executor. FNV-1a: a version stamp, not a security boundary. */
static char builtin_snapshot[N_BUILTINS][DVAL_ID_MAX];
static char builtin_sandbox[N_BUILTINS][DVAL_ID_MAX];
static pthread_once_t builtins_named = PTHREAD_ONCE_INIT;

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

static void name_builtins(void)
{
    for (size_t i = 0; i < N_BUILTINS; i++) {
        dval_profile *p = &builtins[i];
        char stamp[16];
        dval__profile_stamp(p, stamp);
        dval__fmt(builtin_snapshot[i], DVAL_ID_MAX, "%s-%s",
                  p->snapshot_name, stamp);
        dval__fmt(builtin_sandbox[i], DVAL_ID_MAX, "%s-%s", p->sandbox_name,
                  stamp);
        p->snapshot_name = builtin_snapshot[i];
        p->sandbox_name = builtin_sandbox[i];
    }
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
static const char *builtin_names[N_BUILTINS + 1] = {"dotnet", "java", "shell",
                                                    NULL};

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
    pthread_once(&builtins_named, name_builtins);
    for (reg *r = registered; r; r = r->next)
        if (!strcmp(r->p.name, name))
            return &r->p;
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
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
    size_t n = N_BUILTINS;
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
    for (size_t i = 0; i < N_BUILTINS; i++)
        v[k++] = builtins[i].name;
    /* oldest registration first, so the list order is stable */
    size_t nreg = n - N_BUILTINS;
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
