/* Starting a profile's long-lived service in an acquired sandbox
 * (service_start.c). */
#ifndef DVAL_SERVICE_START_H
#define DVAL_SERVICE_START_H

#include "dval.h"

struct dval__svcset;

/* The command that starts the services of a sandbox of prof's snapshot
 * with the validation's services svc (NULL: none), or NULL when neither
 * the profile's build steps nor svc install one. */
const char *dval__service_start_command(const dval_profile *prof,
                                        const struct dval__svcset *svc);

/* Sends prof's service start command to sandbox sb, once per sandbox (in
 * this process, again after DVAL__SERVICE_RESEND_MS), as a command of a
 * session of its own that is neither waited for nor closed. Best effort:
 * a failure is logged and leaves the validation on its fallback. */
void dval__service_start(dval_client *c, const dval_profile *prof,
                         const struct dval__svcset *svc,
                         const dval_sandbox *sb);

/* A service of sandbox sb failed (a validation's service wrapper exited
 * DVAL__SERVICE_FAILED): where no init restarts it, the next validation
 * sends the start command again instead of waiting for the resend. */
void dval__service_failed(const dval_sandbox *sb);

#define DVAL__SERVICE_RESEND_MS (10 * 60 * 1000)
/* the exit status of a service wrapper whose service failed
 * (lib/service_spec.h) */
#define DVAL__SERVICE_FAILED 70

#endif
