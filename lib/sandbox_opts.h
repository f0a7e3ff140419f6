#ifndef DVAL_SANDBOX_OPTS_H
#define DVAL_SANDBOX_OPTS_H
#include "core.h"
/* Validates and deep-copies caller options into sb->opts, resolving
 * defaults (auto-stop 60 min → executors see 0 = never, >0 minutes; start
 * and create timeouts 180 s; zombie pause 5 s; target and local limits
 * from the client). */
int dval__sandbox_opts_take(dval_sandbox *sb, dval_client *c,
                            const dval_sandbox_options *opts, char *msg,
                            size_t cap);
void dval__sandbox_opts_free(dval_sandbox *sb);
/* Replaces the handle's name with an owned copy of name. */
int dval__sandbox_opts_rename(dval_sandbox *sb, const char *name);
#endif
