/* What a pool slot hands the validation it leases (pool_run.c →
 * validate*.c), and the slot's own sandbox under isolation=sandbox
 * (pool_recycle.c): kept across validations, handed to one validation at
 * a time, and reset by the executor's guaranteed reset (or deleted) right
 * after each. */
#ifndef DVAL_RECYCLE_H
#define DVAL_RECYCLE_H

#include "core.h"

typedef struct dval__lease {
    /* isolation=sandbox, the slot's sandbox kept for the pool's reset
     * (dval__recycle_after): the validation keeps it at close */
    int recycle;
    /* recycle: in: the slot's sandbox, reset since its last use ("":
     * none, the validation makes one of its own name); out: the one it
     * used */
    char name[DVAL_ID_MAX];
    /* recycle: out: the acquired sandbox's id ("": never had one) */
    char id[DVAL_ID_MAX];
    /* session isolation: in: the slot's shared sandbox as a validation
     * last left it started (id "": not known), used without a lookup;
     * out: as this validation left it (id "": lost or never acquired) */
    dval_sandbox_info shared;
    /* in: the pool has ensured the request's snapshot: no ensure unless
     * a sandbox create fails (the snapshot may have vanished since) */
    int snapshot_ready;
    /* session isolation: called once the shared sandbox is acquired,
     * before the program runs (from then on the pool lets others share
     * it); owner and slot are the caller's */
    void (*acquired)(struct dval__lease *ls);
    void *owner;
    int slot;
    /* in: the pool's services and seeds, loaded once (services.h), or
     * NULL: the validation loads the request's */
    const struct dval__svcset *svc;
} dval__lease;

/* dval_validate with what the pool knows (ls NULL: dval_validate). */
int dval__validate_in(dval_client *client, const dval_validation *req,
                      dval_event_fn on_event, void *userdata,
                      char **result_json, dval__lease *ls);
/* 1 when the executor has a guaranteed reset (else a pool's
 * isolation=sandbox validations are dval_validate's own: created and
 * deleted by the validation, with no extra lookup). */
int dval__recycle_supported(const dval_client *client);
/* Right after the validation of ls returned: resets its sandbox through
 * the executor's guaranteed reset; 1 when it may serve the next
 * validation, 0 when it was deleted instead (the reset failed, or the
 * validation never acquired it). Only when dval__recycle_supported. */
int dval__recycle_after(dval_client *client, dval__lease *ls);
/* Applies release policy (DVAL_RELEASE_*) to the sandbox named name;
 * gone already counts as done, a failure is logged. shared: a slot's
 * shared sandbox, kept while other clients' sessions are open in it. */
int dval__recycle_release(dval_client *client, const char *name,
                          int release, int shared);

#endif
