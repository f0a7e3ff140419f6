/* exec_env.c: dval_exec_options.env, checked. */
#ifndef DVAL_EXEC_ENV_H
#define DVAL_EXEC_ENV_H

#include "internal.h"

#define DVAL__ENV_MAX 256
#define DVAL__ENV_BYTES 32768

/* DVAL_OK, or DVAL_EINVAL with err worded: an entry that is not
 * NAME=value or not UTF-8, too many of them, too many bytes. */
int dval__exec_env_check(const char *const *env, char *err, size_t cap);

#endif
