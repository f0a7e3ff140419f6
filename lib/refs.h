/* The atomic reference count of the shared core handles (a client, held
 * by its sandboxes, snapshots' waits and pools; a sandbox, held by its
 * sessions): so _free calls may come in any order. */
#ifndef DVAL_REFS_H
#define DVAL_REFS_H

#include <stdatomic.h>

static inline void dval__refs_take(atomic_int *refs)
{
    atomic_fetch_add(refs, 1);
}

/* Drops a reference; the last one destroys the handle. */
static inline void dval__refs_drop(atomic_int *refs, void (*destroy)(void *),
                                   void *handle)
{
    if (atomic_fetch_sub(refs, 1) == 1)
        destroy(handle);
}

#endif
