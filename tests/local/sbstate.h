/* The local executor's sandbox state files as the tests read them:
 * <state dir>/sandboxes/<name>/state, one "key=value" per line (the last
 * line of a key wins, as in the executor). */
#ifndef DVAL_TEST_SBSTATE_H
#define DVAL_TEST_SBSTATE_H

#include <stddef.h>

/* Value of key in sandbox name's state file into out ("" when absent). */
void sbstate_key(const char *state_dir, const char *name, const char *key,
                 char *out, size_t cap);
/* Pid of the sandbox's init (its pid= line), 0 when there is none. */
int sbstate_init_pid(const char *state_dir, const char *name);
/* Name of the one sandbox of the state dir into out; fails the test
 * unless there is exactly one. */
void sbstate_only_name(const char *state_dir, char *out, size_t cap);

#endif
