/* base64 (RFC 4648, with padding) of bytes a program or a host file gave:
 * the carried files of a snapshot's build steps (carry.c), the results
 * files that are not UTF-8 text (validate_results.c, result.c). */
#ifndef DVAL_BASE64_H
#define DVAL_BASE64_H

#include "internal.h"

/* Appends the base64 text of [p, p+n) to out; DVAL_ENOMEM. */
int dval__base64_append(dval__buf *out, const unsigned char *p, size_t n);
/* Decodes the n characters at s into out (room for n / 4 * 3 + 1
 * bytes; NUL-terminated after the *len decoded ones); -1 when s is not
 * padded base64. */
int dval__base64_decode(const char *s, size_t n, unsigned char *out,
                        size_t *len);

#endif
