/* WebSocket frame parser/encoder: every split point, fragmentation,
 * control frames between fragments, 64-bit lengths, rejections. */
#include "harness.h"
#include "executor/daytona/ws_frame.h"

typedef struct rec {
    char data[300000];
    size_t len;
    int messages;          /* fin seen */
    int pings, pongs, closes;
    char ctrl[256];
    size_t ctrl_len;
} rec;

static int on_ev(int kind, const uint8_t *p, size_t n, int fin, void *ud)
{
    rec *r = ud;
    if (kind == DT_WSE_DATA) {
        memcpy(r->data + r->len, p, n);
        r->len += n;
        r->messages += fin;
    } else {
        r->pings += kind == DT_WSE_PING;
        r->pongs += kind == DT_WSE_PONG;
        r->closes += kind == DT_WSE_CLOSE;
        memcpy(r->ctrl, p, n);
        r->ctrl_len = n;
    }
    return 0;
}

/* server frame (unmasked) */
static size_t frame(uint8_t *o, int op, int fin, const void *p, uint64_t n,
                    int len_form)
{
    size_t h = 0;
    o[h++] = (uint8_t)((fin ? 0x80 : 0) | op);
    if (len_form == 0 && n < 126) {
        o[h++] = (uint8_t)n;
    } else if (len_form <= 1 && n <= 0xffff) {
        o[h++] = 126;
        o[h++] = (uint8_t)(n >> 8);
        o[h++] = (uint8_t)n;
    } else {
        o[h++] = 127;
        for (int i = 7; i >= 0; i--)
            o[h++] = (uint8_t)(n >> (8 * i));
    }
    if (p)
        memcpy(o + h, p, (size_t)n);
    return h + (size_t)n;
}

static int feed_split(const uint8_t *s, size_t n, size_t cut, rec *r)
{
    dt_wsp p = {0};
    char err[128];
    memset(r, 0, sizeof *r);
    int rc = dt_wsp_feed(&p, s, cut, on_ev, r, err, sizeof err);
    if (!rc)
        rc = dt_wsp_feed(&p, s + cut, n - cut, on_ev, r, err, sizeof err);
    return rc;
}

TEST(fragmented_with_control_frames_every_split)
{
    uint8_t s[512];
    size_t n = 0;
    n += frame(s + n, DT_WS_BINARY, 0, "\x01\x01\x01he", 5, 0);
    n += frame(s + n, DT_WS_PING, 1, "pi", 2, 0);
    n += frame(s + n, DT_WS_CONT, 0, "llo\n", 4, 1);   /* 16-bit form */
    n += frame(s + n, DT_WS_PONG, 1, "", 0, 0);
    n += frame(s + n, DT_WS_CONT, 1, "", 0, 0);        /* empty FIN */
    n += frame(s + n, DT_WS_BINARY, 1, "x", 1, 2);     /* 64-bit form */
    n += frame(s + n, DT_WS_CLOSE, 1, "\x03\xe8" "bye", 5, 0);
    for (size_t cut = 0; cut <= n; cut++) {
        rec r;
        CHECK_INT(feed_split(s, n, cut, &r), 0);
        CHECK_INT(r.len, 10);
        CHECK(memcmp(r.data, "\x01\x01\x01hello\nx", 10) == 0);
        CHECK_INT(r.messages, 2);
        CHECK_INT(r.pings, 1);
        CHECK_INT(r.pongs, 1);
        CHECK_INT(r.closes, 1);
        int code;
        char reason[32];
        CHECK_INT(dt_ws_close_parse((uint8_t *)r.ctrl, r.ctrl_len, &code,
                                    reason, sizeof reason), 0);
        CHECK_INT(code, 1000);
        CHECK_STR(reason, "bye");
    }
}

TEST(byte_by_byte_large_64bit_frame)
{
    static uint8_t s[70000 + 14];
    static uint8_t pay[70000];
    for (size_t i = 0; i < sizeof pay; i++)
        pay[i] = (uint8_t)(i * 7);
    size_t n = frame(s, DT_WS_BINARY, 1, pay, sizeof pay, 2);
    static rec r;
    memset(&r, 0, sizeof r);
    dt_wsp p = {0};
    for (size_t i = 0; i < n; i++)
        CHECK_INT(dt_wsp_feed(&p, s + i, 1, on_ev, &r, NULL, 0), 0);
    CHECK_INT(r.len, sizeof pay);
    CHECK(memcmp(r.data, pay, sizeof pay) == 0);
    CHECK_INT(r.messages, 1);
}

static int feed_all(const uint8_t *s, size_t n, dt_wsp *p)
{
    static rec r;
    char err[128] = "";
    memset(&r, 0, sizeof r);
    return dt_wsp_feed(p, s, n, on_ev, &r, err, sizeof err);
}

TEST(rejections)
{
    uint8_t s[64];
    dt_wsp p;
    /* masked server frame */
    s[0] = 0x82; s[1] = 0x81; memset(s + 2, 0, 5);
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 7, &p), DT_WSP_EPROTO);
    /* RSV bit */
    s[0] = 0xc2; s[1] = 0;
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 2, &p), DT_WSP_EPROTO);
    /* fragmented control frame */
    s[0] = 0x09; s[1] = 0;
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 2, &p), DT_WSP_EPROTO);
    /* control frame longer than 125 */
    size_t n = frame(s, DT_WS_PING, 1, NULL, 126, 1);
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, n - 126, &p), DT_WSP_EPROTO);
    /* continuation without a message */
    s[0] = 0x80; s[1] = 0;
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 2, &p), DT_WSP_EPROTO);
    /* new message while one is open */
    n = frame(s, DT_WS_BINARY, 0, "a", 1, 0);
    n += frame(s + n, DT_WS_TEXT, 1, "b", 1, 0);
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, n, &p), DT_WSP_EPROTO);
    /* 64-bit length with the top bit set */
    s[0] = 0x82; s[1] = 127; memset(s + 2, 0xff, 8);
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 10, &p), DT_WSP_EPROTO);
    /* oversize frame and oversize message (limits) */
    n = frame(s, DT_WS_BINARY, 1, NULL, 1000, 1);
    memset(&p, 0, sizeof p);
    p.max_frame = 999;
    CHECK_INT(feed_all(s, n - 1000, &p), DT_WSP_EPROTO);
    n = frame(s, DT_WS_BINARY, 0, "abc", 3, 0);
    n += frame(s + n, DT_WS_CONT, 1, "def", 3, 0);
    memset(&p, 0, sizeof p);
    p.max_message = 5;
    CHECK_INT(feed_all(s, n, &p), DT_WSP_EPROTO);
    /* unknown opcode */
    s[0] = 0x83; s[1] = 0;
    memset(&p, 0, sizeof p);
    CHECK_INT(feed_all(s, 2, &p), DT_WSP_EPROTO);
    /* after a failure the parser stays failed */
    CHECK_INT(feed_all(s, 0, &p), DT_WSP_EPROTO);
}

TEST(encoder_masks_and_lengths)
{
    static uint8_t out[70100], pay[70000];
    const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
    for (size_t i = 0; i < sizeof pay; i++)
        pay[i] = (uint8_t)i;
    size_t sizes[] = {0, 5, 125, 126, 65535, 65536, 70000};
    for (int k = 0; k < 7; k++) {
        size_t len = dt_ws_encode(out, sizeof out, DT_WS_BINARY, 1, pay,
                                  sizes[k], mask);
        size_t h = sizes[k] < 126 ? 6 : sizes[k] <= 0xffff ? 8 : 14;
        CHECK_INT(len, h + sizes[k]);
        CHECK_INT(out[0], 0x82);
        CHECK(out[1] & 0x80);
        CHECK(memcmp(out + h - 4, mask, 4) == 0);
        for (size_t i = 0; i < sizes[k]; i++)
            CHECK_INT(out[h + i] ^ mask[i & 3], pay[i]);
    }
    CHECK_INT(dt_ws_encode(out, 10, DT_WS_PING, 1, pay, 5, mask), 0);
}

TEST(close_payloads)
{
    int code;
    char reason[8];
    CHECK_INT(dt_ws_close_parse(NULL, 0, &code, reason, sizeof reason), 0);
    CHECK_INT(code, 0);
    CHECK_INT(dt_ws_close_parse((const uint8_t *)"\x03", 1, &code, reason,
                                sizeof reason), -1);
    CHECK_INT(dt_ws_close_parse((const uint8_t *)"\x03\xf3oops-long", 11,
                                &code, reason, sizeof reason), 0);
    CHECK_INT(code, 1011);
    CHECK_STR(reason, "oops-lo");
}

static int stop_ev(int kind, const uint8_t *p, size_t n, int fin, void *ud)
{
    (void)kind, (void)p, (void)n, (void)fin, (void)ud;
    return 7;
}

TEST(callback_stop_is_returned)
{
    uint8_t s[16];
    size_t n = frame(s, DT_WS_BINARY, 1, "abc", 3, 0);
    dt_wsp p = {0};
    CHECK_INT(dt_wsp_feed(&p, s, n, stop_ev, NULL, NULL, 0), 7);
}
