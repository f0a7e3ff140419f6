/* Services a validation may ask for (dval_validation.services): a
 * database of its own, made fresh from seeded data. Each is data, like a
 * built-in profile; the core composes a snapshot and a run command from
 * it (services.c) and knows none of them by name.
 *
 * A service is:
 *   install  snapshot build steps that put it into the image (packages,
 *            its scripts, and, for one with a long-lived process, its
 *            profile service description: lib/profile_service.h, which
 *            the sandbox's init supervises, or the core starts where no
 *            init does)
 *   init     a build step run after the host's seed files are written,
 *            in order, into DVAL__SEED_DIR (given as its last word): it
 *            initialises the service and loads the seeds, so the seeded
 *            data is part of the snapshot, built once
 *   wrap     the words put before a validation's run command (then
 *            `sh -c RUN`): the program that provisions the validation's
 *            own database, exports its DVAL_DB_* connection variables,
 *            runs the command and gives the database back; its failures
 *            are the service's ("dval: infrastructure: ..." on stderr,
 *            exit 70), never the program's; after one the core sends the
 *            services' start command again where no init restarts them
 *            (lib/service_start.c)
 * A service from an OCI image (the image issue) is the same data: steps
 * that unpack its image into the snapshot, a profile service that runs
 * its entry point, and a wrap that provisions through it. */
#ifndef DVAL_SERVICE_SPEC_H
#define DVAL_SERVICE_SPEC_H

/* where the core writes the seed files during the snapshot build */
#define DVAL__SEED_DIR "/var/lib/dval/seeds"

typedef struct dval__service {
    const char *name;
    const char *const *install;
    const char *init;
    const char *wrap;
} dval__service;

/* The built-in service of that name, or NULL. */
const dval__service *dval__service_find(const char *name);
/* Its place in the built-in table: snapshots install services in this
 * order whatever order a request names them in. */
int dval__service_rank(const dval__service *s);

#endif
