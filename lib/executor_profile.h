/* The dispatch wrapper of the optional profile_prepare member (beside
 * executor.h, whose wrappers it follows). */
#ifndef DVAL_EXECUTOR_PROFILE_H
#define DVAL_EXECUTOR_PROFILE_H

#include "executor.h"

/* Asks the executor whether it can run profile p and with which snapshot
 * build steps: *build_commands is NULL for the profile's own. No member
 * (or DVAL_EPASSTHROUGH from it): DVAL_OK, NULL. A refusal is worded into
 * op->msg. Never retried: the answer is the executor's own, not the
 * network's. */
int dval__ex_profile_prepare(dval_client *c, dval__ex_op *op,
                             const dval_profile *p,
                             const char *const **build_commands);

#endif
