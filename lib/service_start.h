/* Starting a profile's long-lived service in an acquired sandbox
 * (service_start.c). */
#ifndef DVAL_SERVICE_START_H
#define DVAL_SERVICE_START_H

#include "dval.h"

/* The command that starts prof's service in a sandbox of its snapshot, or
 * NULL when the profile's build steps install none. */
const char *dval__service_start_command(const dval_profile *prof);

/* Sends prof's service start command to sandbox sb, once per sandbox (in
 * this process, again after DVAL__SERVICE_RESEND_MS), as a command of a
 * session of its own that is neither waited for nor closed. Best effort:
 * a failure is logged and leaves the validation on its fallback. */
void dval__service_start(dval_client *c, const dval_profile *prof,
                         const dval_sandbox *sb);

#define DVAL__SERVICE_RESEND_MS (10 * 60 * 1000)

#endif
