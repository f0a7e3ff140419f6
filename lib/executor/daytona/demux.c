/* Marker demux (PROTOCOL §6.5): search the whole buffer for the earliest
 * complete marker, hold back only a suffix that is a proper prefix of a
 * marker. Unlike the official SDKs, a frame ending in a full marker is
 * handled correctly. */
#include <string.h>

#include "demux.h"

void dt_demux_init(dt_demux *d, uint64_t stdout_from, uint64_t stderr_from,
                   dval_chunk_fn sink, void *sink_ud)
{
    memset(d, 0, sizeof *d);
    d->skip[DVAL_STDOUT] = stdout_from;
    d->skip[DVAL_STDERR] = stderr_from;
    d->sink = sink;
    d->sink_ud = sink_ud;
}

void dt_demux_free(dt_demux *d)
{
    dval__buf_free(&d->scratch);
}

static int emit_seg(dt_demux *d, const unsigned char *p, size_t n)
{
    if (!n || !d->cur)
        return 0; /* bytes before the first marker are discarded */
    uint64_t *skip = &d->skip[d->cur];
    if (*skip >= n) { /* delivered by an earlier connection */
        *skip -= n;
        return 0;
    }
    p += *skip;
    n -= (size_t)*skip;
    *skip = 0;
    if (d->sink && d->sink(d->cur, (const char *)p, n, d->sink_ud))
        return DVAL_EABORTED;
    return 0;
}

int dt_demux_feed(dt_demux *d, const char *data, size_t len)
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
            int rc = emit_seg(d, p + start, i - start);
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
    int rc = emit_seg(d, p + start, n - start - k);
    memcpy(d->hold, p + n - k, k);
    d->nhold = k;
    return rc;
}

int dt_demux_finish(dt_demux *d)
{
    int rc = emit_seg(d, d->hold, d->nhold);
    d->nhold = 0;
    return rc;
}
