/* Daytona's multiplexed command log (PROTOCOL §6.5): one byte stream,
 * stdout after the marker 01 01 01, stderr after 02 02 02, which every
 * connection (and the final log) replays from byte 0. dt_demux splits it
 * into DVAL_STDOUT / DVAL_STDERR chunks for a dval_chunk_fn, dropping the
 * first skip[s] bytes of each stream: what the core already has from an
 * earlier connection. Pure: no I/O. */
#ifndef DVAL_DT_DEMUX_H
#define DVAL_DT_DEMUX_H

#include "internal.h"

typedef struct dt_demux {
    int cur;                 /* 0 = before the first marker */
    unsigned char hold[2];   /* suffix that may start a marker */
    size_t nhold;
    dval__buf scratch;
    uint64_t skip[3];        /* [DVAL_STDOUT], [DVAL_STDERR]: still to drop */
    dval_chunk_fn sink;
    void *sink_ud;
} dt_demux;

void dt_demux_init(dt_demux *d, uint64_t stdout_from, uint64_t stderr_from,
                   dval_chunk_fn sink, void *sink_ud);
/* Feeds raw log bytes; delivers complete segments past the skips. Returns
 * 0, DVAL_EABORTED when the sink returned non-zero, or DVAL_ENOMEM. */
int dt_demux_feed(dt_demux *d, const char *data, size_t len);
/* End of the log: the held-back bytes go to the current stream. */
int dt_demux_finish(dt_demux *d);
void dt_demux_free(dt_demux *d);

#endif
