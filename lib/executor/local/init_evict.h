/* init_evict.c: no second init, no leftovers (crash safety). */
#ifndef DVAL_LOCAL_INIT_EVICT_H
#define DVAL_LOCAL_INIT_EVICT_H

#include "local.h"

/* Kills the init holding <sbdir>/init.lock, if any, and waits (up to 3 s)
 * until the lock is free: 0 none was running, > 0 one was killed, -1 the
 * lock is still held. */
int lx_init_evict(lx *x, const char *sbdir);
/* Kills every process in the sandbox's cgroups (l->procs), until empty. */
void lx_cgroup_sweep(lx *x, const lx_limits *l);

#endif
