/* The acquire of dval_validate and the pool (sandbox.c): what the caller
 * knows about the sandbox and the ladder would otherwise ask the server. */
#ifndef DVAL_SANDBOX_ACQUIRE_H
#define DVAL_SANDBOX_ACQUIRE_H

#include "core.h"

typedef struct dval__acquire_hint {
    /* The caller made the name for this acquire alone (a random suffix):
     * create without looking it up first. */
    int fresh;
    /* The sandbox of this name as the caller last saw it, started (NULL,
     * an empty id or another state: ignored): the handle is made from it
     * with no request; the caller recovers when it turns out stopped or
     * gone (dval__sandbox_lost, then an acquire without it). */
    const dval_sandbox_info *known;
    /* Ends the acquire's waits and calls when fired (NULL: nothing). */
    const dval_cancel *cancel;
} dval__acquire_hint;

/* dval_sandbox_acquire with a hint (NULL: none). */
int dval__sandbox_acquire(dval_sandbox **out, dval_client *c,
                          const dval_sandbox_options *opts,
                          const dval__acquire_hint *hint);

#endif
