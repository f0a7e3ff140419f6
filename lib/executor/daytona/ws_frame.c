/* RFC 6455 section 5 framing for a client: server frames are unmasked,
 * client frames always masked. Pure code so every split point can be
 * unit-tested; the I/O lives in http_ws.c. */
#include <stdio.h>
#include <string.h>

#include "ws_frame.h"

static int fail(dt_wsp *p, char *err, size_t errlen, const char *msg)
{
    p->failed = 1;
    if (err && errlen)
        snprintf(err, errlen, "websocket protocol error: %s", msg);
    return DT_WSP_EPROTO;
}

static size_t header_need(const uint8_t *h, size_t have)
{
    if (have < 2)
        return 2;
    uint8_t l = h[1] & 0x7f;
    size_t need = 2 + (l == 126 ? 2 : l == 127 ? 8 : 0);
    return need + ((h[1] & 0x80) ? 4 : 0);
}

/* Validates a complete header and opens the frame. */
static int start_frame(dt_wsp *p, char *err, size_t errlen)
{
    const uint8_t *h = p->hdr;
    uint64_t max_frame = p->max_frame ? p->max_frame : (uint64_t)16 << 20;
    uint64_t max_msg = p->max_message ? p->max_message : (uint64_t)64 << 20;
    if (h[0] & 0x70)
        return fail(p, err, errlen, "reserved bits set (no extension)");
    if (h[1] & 0x80)
        return fail(p, err, errlen, "masked frame from the server");
    p->fin = h[0] >> 7;
    p->opcode = h[0] & 0x0f;
    uint64_t len = h[1] & 0x7f;
    if (len == 126) {
        len = (uint64_t)h[2] << 8 | h[3];
    } else if (len == 127) {
        len = 0;
        for (int i = 0; i < 8; i++)
            len = len << 8 | h[2 + i];
        if (len >> 63)
            return fail(p, err, errlen, "64-bit length with the top bit set");
    }
    int ctrl = p->opcode >= 0x8;
    if (ctrl) {
        if (p->opcode > DT_WS_PONG)
            return fail(p, err, errlen, "unknown control opcode");
        if (!p->fin || len > 125)
            return fail(p, err, errlen, "fragmented or long control frame");
    } else if (p->opcode == DT_WS_CONT) {
        if (!p->in_message)
            return fail(p, err, errlen, "continuation without a message");
    } else if (p->opcode == DT_WS_TEXT || p->opcode == DT_WS_BINARY) {
        if (p->in_message)
            return fail(p, err, errlen, "new message inside a fragmented one");
        p->msg_len = 0;
    } else {
        return fail(p, err, errlen, "unknown data opcode");
    }
    if (len > max_frame)
        return fail(p, err, errlen, "frame larger than the limit");
    if (!ctrl) {
        if (p->msg_len + len > max_msg)
            return fail(p, err, errlen, "message larger than the limit");
        p->msg_len += len;
        p->in_message = !p->fin;
    }
    p->left = len;
    p->ctrl_len = 0;
    p->in_frame = 1;
    return 0;
}

/* Reports a complete control frame. */
static int end_control(dt_wsp *p, dt_ws_event_fn ev, void *ud)
{
    int kind = p->opcode == DT_WS_CLOSE  ? DT_WSE_CLOSE
               : p->opcode == DT_WS_PING ? DT_WSE_PING
                                         : DT_WSE_PONG;
    return ev(kind, p->ctrl, p->ctrl_len, 1, ud);
}

/* Consumes payload bytes of the open frame; returns bytes used. Data is
 * passed on as it arrives (no reassembly: bounded memory). */
static size_t payload(dt_wsp *p, const uint8_t *d, size_t n,
                      dt_ws_event_fn ev, void *ud, int *rc)
{
    size_t take = p->left < n ? (size_t)p->left : n;
    p->left -= take;
    int last = p->left == 0;
    if (last) {
        p->in_frame = 0;
        p->hdr_len = 0;
    }
    if (p->opcode >= 0x8) {
        memcpy(p->ctrl + p->ctrl_len, d, take);
        p->ctrl_len += take;
        if (last)
            *rc = end_control(p, ev, ud);
    } else if (take || (last && p->fin)) {
        /* an empty final frame still has to report the message end */
        *rc = ev(DT_WSE_DATA, d, take, last && p->fin, ud);
    }
    return take;
}

int dt_wsp_feed(dt_wsp *p, const uint8_t *data, size_t len,
                dt_ws_event_fn ev, void *ud, char *err, size_t errlen)
{
    if (p->failed)
        return fail(p, err, errlen, "stream already failed");
    size_t i = 0;
    while (i < len) {
        int rc = 0;
        if (!p->in_frame) {
            size_t need = header_need(p->hdr, p->hdr_len);
            while (p->hdr_len < need && i < len) {
                p->hdr[p->hdr_len++] = data[i++];
                need = header_need(p->hdr, p->hdr_len);
            }
            if (p->hdr_len < need)
                return 0;
            if ((rc = start_frame(p, err, errlen)) != 0)
                return rc;
        }
        i += payload(p, data + i, len - i, ev, ud, &rc);
        if (rc)
            return rc;
    }
    return 0;
}

size_t dt_ws_encode(uint8_t *out, size_t cap, int opcode, int fin,
                    const uint8_t *payload_, size_t n, const uint8_t mask[4])
{
    size_t h = 2 + (n < 126 ? 0 : n <= 0xffff ? 2 : 8) + 4;
    if (cap < h || cap - h < n)
        return 0;
    out[0] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 0x0f));
    size_t o = 2;
    if (n < 126) {
        out[1] = (uint8_t)(0x80 | n);
    } else if (n <= 0xffff) {
        out[1] = 0x80 | 126;
        out[o++] = (uint8_t)(n >> 8);
        out[o++] = (uint8_t)n;
    } else {
        out[1] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            out[o++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    memcpy(out + o, mask, 4);
    o += 4;
    for (size_t i = 0; i < n; i++)
        out[o + i] = payload_[i] ^ mask[i & 3];
    return o + n;
}

int dt_ws_close_parse(const uint8_t *p, size_t n, int *code, char *reason,
                      size_t cap)
{
    if (cap)
        reason[0] = '\0';
    *code = 0;
    if (n == 0)
        return 0;
    if (n == 1)
        return -1;
    *code = p[0] << 8 | p[1];
    if (cap) {
        size_t r = n - 2 < cap - 1 ? n - 2 : cap - 1;
        memcpy(reason, p + 2, r);
        reason[r] = '\0';
    }
    return 0;
}
