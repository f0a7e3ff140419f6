/* Bulk-download multipart bodies: any bytes, split anywhere, never crash;
 * part bytes delivered never exceed the input. */
#include "fuzz.h"
#include "executor/daytona/multipart.h"

typedef struct fm {
    size_t bytes;
    int open;
} fm;

static int fm_begin(const char *name, const char *filename, void *ud)
{
    fm *f = ud;
    FUZZ_ASSERT(name && filename);
    FUZZ_ASSERT(!f->open);
    f->open = 1;
    return 0;
}

static int fm_data(const char *p, size_t n, void *ud)
{
    fm *f = ud;
    (void)p;
    FUZZ_ASSERT(f->open);
    f->bytes += n;
    return 0;
}

static int fm_end(void *ud)
{
    fm *f = ud;
    FUZZ_ASSERT(f->open);
    f->open = 0;
    return 0;
}

static const dt_mp_cb fm_cb = { fm_begin, fm_data, fm_end };

FUZZ_TARGET(multipart)
{
    if (size < 1)
        return 0;
    unsigned seed = data[0];
    dt_mp mp;
    fm f = { 0, 0 };
    char err[128];
    if (dt_mp_init(&mp, "multipart/form-data; boundary=DAYTONA-FILE-BOUNDARY",
                   &fm_cb, &f, err, sizeof err))
        abort();
    size_t at = 1;
    int rc = 0;
    while (at < size && !rc) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 300);
        if (n > size - at)
            n = size - at;
        rc = dt_mp_feed(&mp, (const char *)data + at, n, err, sizeof err);
        at += n;
    }
    if (!rc)
        dt_mp_finish(&mp, err, sizeof err);
    FUZZ_ASSERT(f.bytes <= size);
    return 0;
}
