/* Private to http_ws*.c: one WebSocket connection. */
#ifndef DVAL_DT_HTTP_WS_INT_H
#define DVAL_DT_HTTP_WS_INT_H

#include "http_int.h"
#include "ws_frame.h"

#define WS_HEAD_MAX 16384

/* Kept by the client for the next stream (http_ws_pool.c): the part
 * before buf is the stream's, zeroed when the next one takes it. */
struct dt_ws {
    curl_socket_t fd;
    int added;                 /* e is in m: the stream's connection open */
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
    /* the handle's, set once: constant options are not set again */
    dt_http *http;
    CURL *e;
    /* drives the connect; removing e from it closes the connection (an
     * easy_perform's connect-only connection stayed in the handle's own
     * cache, never reused and not closed until the handle was) */
    CURLM *m;
    long timeout_ms;           /* CURLOPT_TIMEOUT_MS as last set */
    dt_urlh url;               /* what curl reads the URL from */
    unsigned char proxy_set;   /* DT_PROXY_* as last set */
    unsigned spoiled : 1;      /* a setopt failed: not kept */
    char ebuf[CURL_ERROR_SIZE];
};

/* poll fd for events and c->cancel_fd: 1 ready, 0 timeout (or EINTR),
 * DVAL_ECANCELED. ms < 0 = no limit. */
int dt_ws_wait(dval_call *c, curl_socket_t fd, short events, int64_t ms);
/* Sends everything before deadline (ms, -1 none). */
int dt_ws_send_all(dt_ws *ws, dval_call *c, const void *data, size_t len,
                   int64_t deadline);
/* A kept handle (or a new one), its stream part zeroed; NULL: no memory */
dt_ws *dt_ws_get(dt_http *h);
/* Ends the stream (closes its connection) and keeps the handle. */
void dt_ws_put(dt_ws *ws);

#endif
