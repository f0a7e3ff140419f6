/* WebSocket server frames: any bytes, split anywhere, never crash; data
 * never exceeds the configured message limit. */
#include "fuzz.h"
#include "executor/daytona/ws_frame.h"

typedef struct fw {
    uint64_t msg;
    uint64_t max;
} fw;

static int fw_ev(int kind, const uint8_t *p, size_t n, int fin, void *ud)
{
    fw *f = ud;
    (void)p;
    if (kind == DT_WSE_DATA) {
        f->msg += n;
        FUZZ_ASSERT(f->msg <= f->max);
        if (fin)
            f->msg = 0;
    } else {
        FUZZ_ASSERT(n <= 125);
        int code;
        char reason[128];
        if (kind == DT_WSE_CLOSE)
            dt_ws_close_parse(p, n, &code, reason, sizeof reason);
    }
    return 0;
}

FUZZ_TARGET(ws_frame)
{
    if (size < 1)
        return 0;
    unsigned seed = data[0];
    dt_wsp p;
    memset(&p, 0, sizeof p);
    p.max_frame = 4096;
    p.max_message = 8192;
    fw f = { 0, 8192 };
    char err[128];
    size_t at = 1;
    while (at < size) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 64);
        if (n > size - at)
            n = size - at;
        if (dt_wsp_feed(&p, data + at, n, fw_ev, &f, err, sizeof err))
            break;
        at += n;
    }
    uint8_t out[256], mask[4] = { 1, 2, 3, 4 };
    size_t len = size > 200 ? 200 : size;
    FUZZ_ASSERT(dt_ws_encode(out, sizeof out, DT_WS_BINARY, 1, data, len,
                             mask) > 0);
    return 0;
}
