/* The daytona executor's log demux + the core's output chunker: any bytes,
 * split anywhere (the first input byte seeds the split points and the
 * counts resumed after), must equal the daemon's whole-log demux past
 * those counts and never hand out a chunk that starts or ends inside a
 * valid UTF-8 sequence. */
#include "executor/daytona/demux.h"
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
    /* resume after a few bytes of each stream half of the time */
    uint64_t from[3] = { 0, 0, 0 };
    if (seed & 1) {
        from[1] = (uint64_t)(rand_r(&seed) % 9);
        from[2] = (uint64_t)(rand_r(&seed) % 9);
    }
    dt_demux d;
    dt_demux_init(&d, from[1], from[2], fd_emit, &got);
    size_t at = 0;
    while (at < size) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 17);
        if (n > size - at)
            n = size - at;
        if (dt_demux_feed(&d, (const char *)data + at, n))
            goto out;
        at += n;
    }
    dt_demux_finish(&d);
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
        size_t k = from[s] < ref.s[s].len ? (size_t)from[s] : ref.s[s].len;
        FUZZ_ASSERT(got.s[s].len == ref.s[s].len - k);
        FUZZ_ASSERT(!got.s[s].len ||
                    !memcmp(got.s[s].data, ref.s[s].data + k, got.s[s].len));
    }
    /* the chunker passes every byte through */
    dval__out o;
    dval__out_init(&o, "F_", fd_chunk, NULL);
    for (int s = 1; s <= 2; s++)
        if (got.s[s].len)
            dval__out_write(&o, s, got.s[s].data, got.s[s].len);
    dval__out_flush(&o);
out:
    dt_demux_free(&d);
    for (int s = 0; s < 3; s++) {
        dval__buf_free(&got.s[s]);
        dval__buf_free(&ref.s[s]);
    }
    return 0;
}
