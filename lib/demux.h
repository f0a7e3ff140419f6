/* Streaming demultiplexer for Daytona's line markers (PROTOCOL §6.5). */
#ifndef DVAL_DEMUX_H
#define DVAL_DEMUX_H

#include "internal.h"

/* Receives demultiplexed bytes for stream DVAL_STDOUT/DVAL_STDERR. */
typedef int (*dval__emit_fn)(int stream, const char *data, size_t len,
                             void *ud);

typedef struct dval__demux {
    int cur;                 /* 0 = before the first marker */
    unsigned char hold[2];   /* suffix that may start a marker */
    size_t nhold;
    dval__buf scratch;
} dval__demux;

void dval__demux_init(dval__demux *d);
/* Feeds raw multiplexed bytes; emits complete segments. Returns the first
 * non-zero emit result or DVAL_ENOMEM. */
int dval__demux_feed(dval__demux *d, const char *data, size_t len,
                     dval__emit_fn emit, void *ud);
/* End of stream: emits the held-back bytes to the current stream. */
int dval__demux_finish(dval__demux *d, dval__emit_fn emit, void *ud);
void dval__demux_free(dval__demux *d);

#endif
