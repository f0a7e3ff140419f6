/* Private to http_ws*.c: one WebSocket connection. */
#ifndef DVAL_DT_HTTP_WS_INT_H
#define DVAL_DT_HTTP_WS_INT_H

#include "http_int.h"
#include "ws_frame.h"

#define WS_HEAD_MAX 16384

struct dt_ws {
    CURL *e;
    curl_socket_t fd;
    dt_wsp parser;
    size_t pending;            /* bytes after the 101 head, not parsed */
    size_t pending_off;
    int64_t last_send_ms;
    int got_close, sent_close, failed;
    int close_code;
    long status;               /* of the upgrade reply (0: none yet) */
    char close_reason[124];
    /* set for the duration of one dt_ws_read */
    dval_call *c;
    dt_sink_fn sink;           /* raw payload bytes */
    void *sink_ud;
    int delivered;
    /* last, not zeroed: only what was received is read */
    uint8_t buf[WS_HEAD_MAX];  /* handshake reply; then the read buffer */
};

/* poll fd for events and c->cancel_fd: 1 ready, 0 timeout (or EINTR),
 * DVAL_ECANCELED. ms < 0 = no limit. */
int dt_ws_wait(dval_call *c, curl_socket_t fd, short events, int64_t ms);
/* Sends everything before deadline (ms, -1 none). */
int dt_ws_send_all(dt_ws *ws, dval_call *c, const void *data, size_t len,
                   int64_t deadline);
void dt_ws_free(dt_ws *ws);

#endif
