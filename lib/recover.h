/* Whether a failed call came from its sandbox having stopped or vanished
 * (PROTOCOL 10.3: auto-stop, spot eviction, a reaper, a TTL). */
#ifndef DVAL_RECOVER_H
#define DVAL_RECOVER_H

#include "core.h"

/* Asks the server for the sandbox after a call on it failed with rc: 1
 * when it is gone or no longer running (stopped, archived, error,
 * destroyed), so acquiring it again is the recovery; 0 otherwise (the
 * failure was the call's own). */
int dval__sandbox_lost(dval_sandbox *sb, int rc);

#endif
