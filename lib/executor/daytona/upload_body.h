/* The bulk-upload request body (PROTOCOL 7.4): the part files[0].path,
 * then files[0].file streamed from the caller's source, built here
 * instead of with curl_mime, whose set-up (its random boundary alone)
 * cost more than a whole small request. No I/O but the source's. */
#ifndef DVAL_DT_UPLOAD_BODY_H
#define DVAL_DT_UPLOAD_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "dt.h"

#define DT_UP_ESRC 1     /* the source failed */
#define DT_UP_ESHORT 2   /* the source ended before its announced size */

typedef struct dt_upbody {
    /* the request's header line, "Content-Type: multipart/form-data;
     * boundary=…" */
    char ctype[96];
    /* private */
    dval__buf head;      /* both parts' headers, the path, up to the file */
    char tail[64];       /* CRLF, the closing delimiter, CRLF */
    size_t tail_len, off;
    int phase;
    int64_t size, got;   /* size -1: unknown (chunked) */
    dval_read_fn src;
    void *src_ud;
} dt_upbody;

/* DVAL_OK, or DVAL_ENOMEM / DVAL_ERROR (no random bytes). */
int dt_upbody_init(dt_upbody *b, const char *path, dval_read_fn src,
                   void *src_ud, int64_t size);
/* The body's length, -1 when the source's size is unknown. */
int64_t dt_upbody_length(const dt_upbody *b);
/* Up to cap bytes of the body into buf, *len 0 at its end; 0, or
 * DT_UP_ESRC / DT_UP_ESHORT. */
int dt_upbody_read(dt_upbody *b, char *buf, size_t cap, size_t *len);
/* Back to the start: 0, or -1 once the source has been read. */
int dt_upbody_rewind(dt_upbody *b);
void dt_upbody_free(dt_upbody *b);

#endif
