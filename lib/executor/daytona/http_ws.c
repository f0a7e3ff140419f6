/* placeholder until the WebSocket client lands */
#include "http_int.h"

int dt_ws_open(dt_exec *ex, dval_call *c, const char *url, dt_ws **out)
{
    (void)ex, (void)url;
    *out = NULL;
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "not yet");
}

int dt_ws_read(dt_exec *ex, dval_call *c, dt_ws *ws, dval_chunk_fn sink,
               void *sink_ud, int *closed)
{
    (void)ex, (void)ws, (void)sink, (void)sink_ud, (void)closed;
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "not yet");
}

void dt_ws_close(dt_ws *ws)
{
    (void)ws;
}
