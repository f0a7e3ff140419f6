/* init_lock.c: one init per sandbox, whatever kills and retries happen. */
#ifndef DVAL_HELPER_INIT_LOCK_H
#define DVAL_HELPER_INIT_LOCK_H

#include <sys/types.h>

#include "executor/local/protocol.h"

/* The init keeps this fd (and so the lock) for its whole life. */
#define INIT_LOCK_FD LX_FD_INIT_LOCK

/* Takes <sbdir>/init.lock (flock, non-blocking) onto INIT_LOCK_FD; -1 with
 * errno EWOULDBLOCK when another init of the sandbox holds it. */
int init_lock(const char *sbdir);
/* Writes the init's pid into the lock file (for the library's eviction
 * when its state file lost the pid). */
void init_lock_pid(pid_t pid);

#endif
