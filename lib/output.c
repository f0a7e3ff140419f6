/* Output chunker: channel names, UTF-8 boundaries, 64 KiB chunk cap. */
#include <string.h>

#include "core.h"
#include "output.h"

void dval__out_init(dval__out *o, const char *prefix, dval_output_fn fn,
                    void *ud)
{
    memset(o, 0, sizeof *o);
    o->fn = fn;
    o->ud = ud;
    if (!prefix)
        prefix = "";
    dval__fmt(o->channel[0], sizeof o->channel[0],
              "%sCOMMAND_EXECUTION_STDOUT", prefix);
    dval__fmt(o->channel[1], sizeof o->channel[1],
              "%sCOMMAND_EXECUTION_STDERR", prefix);
}

static int deliver(dval__out *o, int s, const char *p, size_t n)
{
    while (n && !o->stopped) {
        size_t take = n;
        if (take > DVAL__CHUNK_MAX) {
            /* never start the next chunk on a continuation byte */
            take = DVAL__CHUNK_MAX;
            for (int i = 0; i < 3 && ((unsigned char)p[take] & 0xC0) == 0x80;
                 i++)
                take--;
        }
        if (o->fn) {
            const dval_client *prev = dval__cb_enter(o->owner);
            if (o->fn(s == 0 ? DVAL_STDOUT : DVAL_STDERR, o->channel[s], p,
                      take, o->ud))
                o->stopped = 1;
            dval__cb_leave(prev);
        }
        p += take;
        n -= take;
    }
    return o->stopped ? DVAL_EABORTED : DVAL_OK;
}

int dval__out_write(dval__out *o, int stream, const char *data, size_t len)
{
    int s = stream == DVAL_STDERR ? 1 : 0;
    if (o->stopped)
        return DVAL_EABORTED;
    if (!len)
        return DVAL_OK;
    /* complete a pending sequence first */
    if (o->npend[s]) {
        unsigned char tmp[8];
        size_t n = o->npend[s];
        memcpy(tmp, o->pend[s], n);
        while (n < sizeof tmp && len) {
            tmp[n++] = (unsigned char)*data++;
            len--;
            size_t ok = dval__utf8_complete_prefix((const char *)tmp, n);
            if (ok == n)
                break;
        }
        size_t ok = dval__utf8_complete_prefix((const char *)tmp, n);
        if (ok < n && !len && n < 4) { /* still incomplete: keep waiting */
            memcpy(o->pend[s], tmp, n);
            o->npend[s] = n;
            return DVAL_OK;
        }
        o->npend[s] = 0;
        int rc = deliver(o, s, (const char *)tmp, n);
        if (rc)
            return rc;
    }
    size_t ok = dval__utf8_complete_prefix(data, len);
    int rc = deliver(o, s, data, ok);
    if (rc)
        return rc;
    memcpy(o->pend[s], data + ok, len - ok);
    o->npend[s] = len - ok;
    return DVAL_OK;
}

int dval__out_flush(dval__out *o)
{
    int rc = DVAL_OK;
    for (int s = 0; s < 2 && !rc; s++) {
        size_t n = o->npend[s];
        o->npend[s] = 0;
        rc = deliver(o, s, (const char *)o->pend[s], n);
    }
    return rc;
}
