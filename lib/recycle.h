/* A pool slot's own sandbox under isolation=sandbox (pool_recycle.c):
 * kept across validations, handed to one validation at a time, and reset
 * by the executor's guaranteed reset (or deleted) right after each. */
#ifndef DVAL_RECYCLE_H
#define DVAL_RECYCLE_H

#include "core.h"

typedef struct dval__recycle {
    /* in: the slot's sandbox, reset since its last use ("": none, the
     * validation makes one of its own name); out: the one it used */
    char name[DVAL_ID_MAX];
    /* out: the acquired sandbox's id ("": the validation never had one) */
    char id[DVAL_ID_MAX];
} dval__recycle;

/* dval_validate on the sandbox of rs (NULL: dval_validate itself). With
 * rs, an isolation=sandbox validation keeps the sandbox at close (no
 * delete) and the caller must reset or delete it (dval__recycle_after). */
int dval__validate_in(dval_client *client, const dval_validation *req,
                      dval_event_fn on_event, void *userdata,
                      char **result_json, dval__recycle *rs);
/* 1 when the executor has a guaranteed reset (else a pool's
 * isolation=sandbox validations are dval_validate's own: created and
 * deleted by the validation, with no extra lookup). */
int dval__recycle_supported(const dval_client *client);
/* Right after the validation of rs returned: resets its sandbox through
 * the executor's guaranteed reset; 1 when it may serve the next
 * validation, 0 when it was deleted instead (no reset member, the reset
 * failed, or the validation never acquired it). */
int dval__recycle_after(dval_client *client, dval__recycle *rs);
/* Deletes the sandbox named name (gone already counts as done). */
int dval__recycle_delete(dval_client *client, const char *name);

#endif
