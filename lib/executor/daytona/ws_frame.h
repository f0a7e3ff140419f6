/* RFC 6455 framing, client side, without I/O: an incremental parser of
 * server frames and an encoder of masked client frames. */
#ifndef DVAL_DT_WS_FRAME_H
#define DVAL_DT_WS_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum {
    DT_WS_CONT = 0x0,
    DT_WS_TEXT = 0x1,
    DT_WS_BINARY = 0x2,
    DT_WS_CLOSE = 0x8,
    DT_WS_PING = 0x9,
    DT_WS_PONG = 0xa
};

/* Parser events: DATA pieces of a text/binary message as they arrive
 * (fin = 1 on the last piece of the message; pieces may be empty), and
 * whole control frames (CLOSE, PING, PONG; payload <= 125 bytes).
 * A non-zero return stops dt_wsp_feed, which returns that value. */
enum { DT_WSE_DATA = 1, DT_WSE_CLOSE, DT_WSE_PING, DT_WSE_PONG };
typedef int (*dt_ws_event_fn)(int kind, const uint8_t *p, size_t n, int fin,
                              void *ud);

typedef struct dt_wsp {
    uint64_t max_frame;    /* 0 → 16 MiB */
    uint64_t max_message;  /* 0 → 64 MiB */
    /* private */
    uint8_t hdr[14];
    size_t hdr_len;
    int in_frame;          /* header complete, payload pending */
    int opcode, fin;
    uint64_t left;         /* payload bytes still to come */
    int in_message;        /* a fragmented data message is open */
    uint64_t msg_len;
    uint8_t ctrl[125];
    size_t ctrl_len;
    int failed;
} dt_wsp;

#define DT_WSP_EPROTO (-1000)

/* Feeds bytes; returns 0, DT_WSP_EPROTO (err filled, parser unusable) or
 * the non-zero value an event callback returned. */
int dt_wsp_feed(dt_wsp *p, const uint8_t *data, size_t len,
                dt_ws_event_fn ev, void *ud, char *err, size_t errlen);

/* Encodes one masked client frame; returns its length, or 0 when it does
 * not fit in cap (header <= 14 bytes + n). */
size_t dt_ws_encode(uint8_t *out, size_t cap, int opcode, int fin,
                    const uint8_t *payload, size_t n, const uint8_t mask[4]);

/* Close payload → code (0 = none) and reason text; -1 when malformed. */
int dt_ws_close_parse(const uint8_t *p, size_t n, int *code, char *reason,
                      size_t cap);

#endif
