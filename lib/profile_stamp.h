/* What names a profile's snapshot and sandbox (profile.c): a stamp of
 * its image and every build step, so that a profile that builds
 * something else never reuses a snapshot or sandbox made by another
 * version of it. */
#ifndef DVAL_PROFILE_STAMP_H
#define DVAL_PROFILE_STAMP_H

#include "dval.h"

/* 8 hex digits and a NUL into out. */
void dval__profile_stamp(const dval_profile *p, char out[16]);

#endif
