/* What the members share: a request without a body to one path of the
 * API or of a sandbox's toolbox, a creation, and the failure of a request
 * that could not be built. */
#ifndef DVAL_DT_API_REQUEST_H
#define DVAL_DT_API_REQUEST_H

#include "dt.h"

/* Fails c for a request the builders could not make: DVAL_EINVAL is an
 * argument that is not valid UTF-8, anything else is out of memory.
 * Returns rc. */
int dt_build_fail(dval_call *c, int rc);

/* Runs rq (its method and url set) and reads the reply into out. */
typedef int (*dt_send_fn)(dt_exec *ex, dval_call *c, dt_req *rq, void *out);

/* method on the API URL + fmt, whose one %s is id (escaped); send runs
 * it (NULL: the reply's body is not read). */
int dt_api_request(dt_exec *ex, dval_call *c, const char *method,
                   const char *fmt, const char *id, dt_send_fn send,
                   void *out);

/* POSTs body (JSON, freed here) to the API URL + path as a creation
 * (dt_req.create: 409 is DVAL_EEXISTS); build_rc is the status of building
 * body: when not DVAL_OK the call fails without a request. */
int dt_api_create(dt_exec *ex, dval_call *c, const char *path, char *body,
                  int build_rc, dt_send_fn send, void *out);

/* method on the toolbox of sandbox sb + fmt (its %s arguments a and b
 * escaped), without a body; the reply's body is not read. */
int dt_toolbox_request(dt_exec *ex, dval_call *c, const char *method,
                       const char *sb, const char *fmt, const char *a,
                       const char *b);

#endif
