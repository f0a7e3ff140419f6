/* Marker demux (PROTOCOL §6.5): search the whole buffer for the earliest
 * complete marker, hold back only a suffix that is a proper prefix of a
 * marker. Unlike the official SDKs, a frame ending in a full marker is
 * handled correctly. */
#include <string.h>

#include "demux.h"

void dval__demux_init(dval__demux *d)
{
    memset(d, 0, sizeof *d);
}

void dval__demux_free(dval__demux *d)
{
    dval__buf_free(&d->scratch);
}

static int emit_seg(dval__demux *d, const unsigned char *p, size_t n,
                    dval__emit_fn emit, void *ud)
{
    if (!n || !d->cur)
        return 0; /* bytes before the first marker are discarded */
    return emit(d->cur, (const char *)p, n, ud);
}

int dval__demux_feed(dval__demux *d, const char *data, size_t len,
                     dval__emit_fn emit, void *ud)
{
    const unsigned char *p;
    size_t n;
    if (d->nhold) {
        d->scratch.len = 0;
        if (dval__buf_append(&d->scratch, d->hold, d->nhold) ||
            dval__buf_append(&d->scratch, data, len))
            return DVAL_ENOMEM;
        p = (const unsigned char *)d->scratch.data;
        n = d->scratch.len;
        d->nhold = 0;
    } else {
        p = (const unsigned char *)data;
        n = len;
    }
    size_t start = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        unsigned char c = p[i];
        if ((c == 1 || c == 2) && p[i + 1] == c && p[i + 2] == c) {
            int rc = emit_seg(d, p + start, i - start, emit, ud);
            if (rc)
                return rc;
            d->cur = c == 1 ? DVAL_STDOUT : DVAL_STDERR;
            i += 2;
            start = i + 1;
        }
    }
    /* hold back a suffix that may begin a marker */
    size_t k = 0;
    if (n - start >= 2 && (p[n - 1] == 1 || p[n - 1] == 2) &&
        p[n - 2] == p[n - 1])
        k = 2;
    else if (n - start >= 1 && (p[n - 1] == 1 || p[n - 1] == 2))
        k = 1;
    int rc = emit_seg(d, p + start, n - start - k, emit, ud);
    memcpy(d->hold, p + n - k, k);
    d->nhold = k;
    return rc;
}

int dval__demux_finish(dval__demux *d, dval__emit_fn emit, void *ud)
{
    int rc = emit_seg(d, d->hold, d->nhold, emit, ud);
    d->nhold = 0;
    return rc;
}
