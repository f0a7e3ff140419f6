/* The built-in services (service_spec.h), as data. Their scripts
 * (profiles/postgres/, profiles/sqlite/) go into the snapshot as one
 * tar.gz each, base64 in the first install step, made at build time
 * (Makefile), so the same steps build a local image's snapshot and a
 * Daytona one. */
#include <string.h>

#include "internal.h"
#include "profile_service.h"
#include "service_files.h"
#include "service_spec.h"

#define SVC_DIR "/opt/dval-svc"
#define UNPACK(b64)                                                         \
    "mkdir -p " SVC_DIR " && echo " b64 " | base64 -d | "                   \
    "tar -xzf - --no-same-owner -C " SVC_DIR

/* postgres: the distribution's server under a uid of the services'
 * range (lib/profile_service.h; the compile services hold the first
 * two), its broker (profiles/postgres/broker) supervised as a profile
 * service. */
#define PG_UID_S "1879113730" /* DVAL_SERVICE_UID_FIRST + 2 */
static const char *const postgres_install[] = {
    UNPACK(POSTGRES_TGZ_B64),
    "sh " SVC_DIR "/postgres/install.sh " PG_UID_S,
    DVAL_SERVICE_INSTALL("postgres", PG_UID_S, "/run/dval-postgres",
                         "exec perl " SVC_DIR "/postgres/broker"),
    NULL};

/* sqlite: no process of its own; a copy of the seeded file per
 * validation. */
static const char *const sqlite_install[] = {
    UNPACK(SQLITE_TGZ_B64), "sh " SVC_DIR "/sqlite/install.sh", NULL};

static const dval__service builtins[] = {
    {"postgres", postgres_install,
     "sh " SVC_DIR "/postgres/init.sh " PG_UID_S " " DVAL__SEED_DIR,
     "perl " SVC_DIR "/postgres/provision"},
    {"sqlite", sqlite_install, "sh " SVC_DIR "/sqlite/init.sh " DVAL__SEED_DIR,
     "sh " SVC_DIR "/sqlite/provision"},
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static const char *const names[N_BUILTINS + 1] = {"postgres", "sqlite", NULL};

const dval__service *dval__service_find(const char *name)
{
    for (size_t i = 0; name && i < N_BUILTINS; i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

int dval__service_rank(const dval__service *s)
{
    return (int)(s - builtins);
}

DVAL_API int dval_service_names(const char *const **out)
{
    if (!out)
        return DVAL_EINVAL;
    *out = names;
    return DVAL_OK;
}
