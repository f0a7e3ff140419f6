/* Backpressure shared by every thread of a client (PROTOCOL 10.3 items 3
 * and 4): the rate limit and the quota are the organization's, so a 429
 * or a quota error seen by one call holds back the calls of all threads. */
#ifndef DVAL_BACKPRESSURE_H
#define DVAL_BACKPRESSURE_H

#include "core.h"

/* A call of c was refused (429 or quota): no call of c starts before the
 * server's hint (retry_after_ms >= 0) or the backoff of attempt has
 * passed. The hold only ever grows. */
void dval__hold_note(dval_client *c, int attempt, int64_t retry_after_ms);
/* Waits (cancellable through cancel_fd) until the client's hold ends,
 * plus a jitter of up to a fifth of the hold so the held threads do not
 * return at the same instant. */
void dval__hold_wait(dval_client *c, int cancel_fd);

#endif
