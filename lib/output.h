/* The UTF-8-safe, channel-tagged output chunker (output.c) for the exec
 * engine. */
#ifndef DVAL_OUTPUT_H
#define DVAL_OUTPUT_H

#include "internal.h"

#define DVAL__CHUNK_MAX (64 * 1024)

/* Per-stream UTF-8 boundary keeper + channel naming + chunk size cap. */
typedef struct dval__out {
    dval_output_fn fn;
    void *ud;
    char channel[2][160];
    unsigned char pend[2][4];  /* incomplete UTF-8 tail per stream */
    size_t npend[2];
    int stopped;               /* callback asked to stop */
    int invalid;               /* some output was not valid UTF-8 */
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
