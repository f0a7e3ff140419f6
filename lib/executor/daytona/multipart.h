/* Incremental multipart/form-data parser (RFC 2046 5.1, RFC 7578) for
 * bulk-download replies: constant memory, parts are passed on as their
 * bytes arrive, whatever the split points. No I/O. */
#ifndef DVAL_DT_MULTIPART_H
#define DVAL_DT_MULTIPART_H

#include <stddef.h>

#define DT_MP_EPROTO (-1000)   /* malformed: err filled */
#define DT_MP_ETRUNC (-1001)   /* ended before the closing delimiter */
#define DT_MP_HDR_MAX 8192

/* Callbacks return 0 to go on; any other value stops the parser and is
 * returned by dt_mp_feed. */
typedef struct dt_mp_cb {
    int (*part_begin)(const char *name, const char *filename, void *ud);
    int (*part_data)(const char *p, size_t n, void *ud);
    int (*part_end)(void *ud);
} dt_mp_cb;

typedef struct dt_mp {
    /* private */
    char delim[80];      /* "\r\n--" + boundary */
    size_t dlen;
    size_t m;            /* delimiter bytes matched so far */
    int state;
    size_t hlen;
    const dt_mp_cb *cb;
    void *ud;
    char hdr[DT_MP_HDR_MAX];   /* last: only hdr[0..hlen) is ever read */
} dt_mp;

/* Takes the boundary from a Content-Type value. DT_MP_EPROTO when it is
 * not multipart or has no usable boundary. */
int dt_mp_init(dt_mp *mp, const char *content_type, const dt_mp_cb *cb,
               void *ud, char *err, size_t errlen);
int dt_mp_feed(dt_mp *mp, const char *p, size_t n, char *err,
               size_t errlen);
/* At end of input: 0 after the closing delimiter, else DT_MP_ETRUNC. */
int dt_mp_finish(const dt_mp *mp, char *err, size_t errlen);

#endif
