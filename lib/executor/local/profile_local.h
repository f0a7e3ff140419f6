/* profile_local.c: the local executor's answer to profile_prepare (can it
 * run a profile, and with which snapshot build steps). */
#ifndef DVAL_LOCAL_PROFILE_LOCAL_H
#define DVAL_LOCAL_PROFILE_LOCAL_H

#include "local.h"

int lx_profile_prepare(void *ud, dval_call *c, const dval_profile *p,
                       const char *const **build_commands);
/* Sets profile_prepare in a local executor's vtable. */
void lx_profile_install(struct dval_executor *ex);

#endif
