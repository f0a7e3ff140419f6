/* What a pool tells the validation it runs on a slot (pool_run.c →
 * validate*.c), and the slot's own sandbox under isolation=sandbox
 * (pool_recycle.c): kept across validations, handed to one validation at
 * a time, and reset by the executor's guaranteed reset (or deleted) right
 * after each. The pool's context goes one way: the validation reads it
 * and never writes it; what it learns of its sandbox goes to the
 * client's cache of known sandboxes (sandbox_cache.h), where the pool
 * reads it. */
#ifndef DVAL_RECYCLE_H
#define DVAL_RECYCLE_H

#include "core.h"

struct dval__svcset;

typedef struct dval__pool_ctx {
    /* the pool's services and seeds, loaded once (services.h) */
    const struct dval__svcset *svc;
    /* the pool has ensured the request's snapshot: no ensure unless a
     * sandbox create fails (the snapshot may have vanished since) */
    int snapshot_ready;
    /* isolation=sandbox: the slot's sandbox (NULL: the validation makes
     * and deletes one of its own), kept at close for the pool's reset
     * (dval__recycle_after); fresh: its name was made for this
     * validation (dval__own_sandbox_name), created without a lookup */
    const char *recycle;
    int fresh;
    /* session isolation: called once the shared sandbox is acquired and
     * in the client's cache, before the program runs (from then on the
     * pool lets others share it) */
    void (*acquired)(void *ud);
    void *ud;
} dval__pool_ctx;

/* dval_validate in a pool's context (pc NULL: dval_validate). */
int dval__validate_in(dval_client *client, const dval_validation *req,
                      dval_event_fn on_event, void *userdata,
                      char **result_json, const dval__pool_ctx *pc);
/* "<base>-<12 random hex>": a sandbox name no other validation uses. */
void dval__own_sandbox_name(const char *base, char *out, size_t cap);
/* 1 when the executor has a guaranteed reset (else a pool's
 * isolation=sandbox validations are dval_validate's own: created and
 * deleted by the validation, with no extra lookup). */
int dval__recycle_supported(const dval_client *client);
/* Right after the validation on the recycled sandbox name returned:
 * resets it through the executor's guaranteed reset (its id from the
 * client's cache); 1 when it may serve the next validation, 0 when it
 * was deleted instead (the reset failed, or the validation never
 * acquired it) or never made. Only when dval__recycle_supported. */
int dval__recycle_after(dval_client *client, const char *name);
/* Applies release policy (DVAL_RELEASE_*) to the sandbox named name, and
 * forgets what the client's cache knew of it; gone already counts as
 * done, a failure is logged. shared: a slot's shared sandbox, kept while
 * other clients' sessions are open in it. */
int dval__recycle_release(dval_client *client, const char *name,
                          int release, int shared);

#endif
