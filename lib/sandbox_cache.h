/* The client's cache of known sandboxes (sandbox_cache.c): what this
 * client last learnt of a sandbox by name. Validations write it (after an
 * acquire, when a sandbox is lost, stopped or deleted), a pool warms it
 * (the sandboxes it makes before any validation) and reads it (the id of
 * a slot's sandbox to reset); a pool's validation on a shared sandbox
 * takes its entry as the acquire's hint, so that it needs no lookup. Only
 * a hint: a sandbox gone or stopped since is found out by the validation
 * (recover.h), which then forgets it. Thread-safe. */
#ifndef DVAL_SANDBOX_CACHE_H
#define DVAL_SANDBOX_CACHE_H

#include "core.h"

/* Records info under info->name (replacing what was known of it): a
 * started sandbox with its id, or (id "") one that an acquire was tried
 * for and that may exist. DVAL_ENOMEM leaves nothing known of it. */
int dval__sbcache_put(dval_client *c, const dval_sandbox_info *info);
/* 1 and *out when something is known of name, else 0. */
int dval__sbcache_get(dval_client *c, const char *name,
                      dval_sandbox_info *out);
/* Nothing is known of name any more (deleted, stopped, lost, or its
 * owner's knowledge ends). */
void dval__sbcache_forget(dval_client *c, const char *name);
/* dval_client_new and the client's end. */
void dval__sbcache_init(dval_client *c);
void dval__sbcache_free(dval_client *c);

#endif
