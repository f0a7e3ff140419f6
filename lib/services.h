/* A validation's services and seeds (dval_validation.services, .seeds)
 * resolved into what the core does with them (services.c): the snapshot
 * build steps they add after the profile's, the suffix that names the
 * snapshot and the sandboxes of that set (so two sets never share one),
 * and the run command's wrapping (service_spec.h). The core knows no
 * service by name: everything comes from the specs. */
#ifndef DVAL_SERVICES_H
#define DVAL_SERVICES_H

#include "internal.h"
#include "service_spec.h"

#define DVAL__SERVICES_MAX 8
/* Seeds travel in the build steps (base64), which a local build passes
 * as arguments and a Daytona build as Dockerfile lines: bounded. */
#define DVAL__SEEDS_MAX_BYTES (1024 * 1024)

typedef struct dval__svcset {
    /* as the request names them: the first database service's
     * connection is DVAL_DB_* */
    const dval__service *svc[DVAL__SERVICES_MAX];
    size_t n;
    char **owned;        /* the seed steps, NULL-terminated */
    const char **added;  /* every step the set adds, in build order */
    char tag[24];        /* "-db" and 16 hex digits of every added step */
} dval__svcset;

/* What a snapshot spec with services borrows (dval__svcset_apply): a
 * set may be shared (a pool's), so the spec's memory is the caller's. */
typedef struct dval__spec_hold {
    const char **steps;
    char name[DVAL_ID_MAX];
} dval__spec_hold;

/* Resolves names and reads the seed files (host paths, applied in
 * order). DVAL_EINVAL (unknown service, seeds that no service takes),
 * DVAL_EIO (a seed unreadable), DVAL_ETOOBIG (seeds over
 * DVAL__SEEDS_MAX_BYTES), DVAL_ENOMEM; msg says which. No services and
 * no seeds: an empty set (n 0), which changes nothing. */
int dval__svcset_load(dval__svcset *s, const char *const *services,
                      const char *const *seeds, char *msg, size_t cap);
void dval__svcset_free(dval__svcset *s);
/* spec: the profile's snapshot spec; its steps become the profile's and
 * the set's, its name the name with the set's tag (memory in hold:
 * dval__free(hold->steps) after). s may be NULL (nothing changes). */
int dval__svcset_apply(const dval__svcset *s, dval_snapshot_spec *spec,
                       dval__spec_hold *hold);
/* base with the set's tag (base itself for an empty set). */
void dval__svcset_name(const dval__svcset *s, const char *base, char *out,
                       size_t cap);
/* 1 when the set installs a profile service (a process that the core
 * starts where no init does: DVAL_SERVICE_START_ROOT). */
int dval__svcset_starts(const dval__svcset *s);
/* The run command wrapped: argv (one allocation, dval__free) of every
 * service's wrap words, then sh -c run. */
int dval__svcset_wrap_argv(const dval__svcset *s, const char *run,
                           char ***argv);

/* The snapshot spec of profile p with the set svc (NULL: none) on the
 * client's executor (profile.c): the one place that asks the executor
 * about a profile; dval_validate, the pool and the profile's snapshot
 * ensure all build from it. name NULL: the profile's snapshot name.
 * DVAL_EUNSUPPORTED (the client's message says why) when the executor
 * cannot run the profile. */
int dval__profile_snapshot_spec(dval_client *c, const dval_profile *p,
                                const char *name, const dval__svcset *svc,
                                dval_snapshot_spec *spec,
                                dval__spec_hold *hold);

/* services_seeds.c: the steps that write the seed files into
 * DVAL__SEED_DIR during the build (*steps NULL-terminated, owned). */
int dval__seed_steps(const char *const *seeds, char ***steps, char *msg,
                     size_t cap);

#endif
