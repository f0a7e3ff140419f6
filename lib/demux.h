/* Streaming demultiplexer for Daytona's line markers (PROTOCOL §6.5) and
 * the UTF-8-safe, channel-tagged output chunker above it. */
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

#define DVAL__CHUNK_MAX (64 * 1024)

/* Per-stream UTF-8 boundary keeper + channel naming + chunk size cap. */
typedef struct dval__out {
    dval_output_fn fn;
    void *ud;
    char channel[2][160];
    unsigned char pend[2][4];  /* incomplete UTF-8 tail per stream */
    size_t npend[2];
    int stopped;               /* callback asked to stop */
    const struct dval_client *owner; /* for the reentrancy guard */
} dval__out;

void dval__out_init(dval__out *o, const char *prefix, dval_output_fn fn,
                    void *ud);
/* Delivers bytes of one stream; never splits a valid UTF-8 sequence.
 * Returns DVAL_EABORTED once the callback returned non-zero. */
int dval__out_write(dval__out *o, int stream, const char *data, size_t len);
/* Flushes held bytes (incomplete sequences are passed through). */
int dval__out_flush(dval__out *o);

#endif
