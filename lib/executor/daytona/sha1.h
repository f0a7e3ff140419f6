/* SHA-1 and base64, just enough for the WebSocket handshake's
 * Sec-WebSocket-Accept check (RFC 6455 4.2.2). Not for security. Both
 * come from OpenSSL's libcrypto (loaded with libcurl anyway), kept behind
 * these calls so that only sha1.c includes it. */
#ifndef DVAL_DT_SHA1_H
#define DVAL_DT_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* 0, or -1 when libcrypto could not give the digest (out of memory, or
 * no provider offering SHA-1 in its configuration). */
int dt_sha1(const void *data, size_t len, uint8_t digest[20]);
/* Writes the base64 text of in (NUL-terminated) into out; returns its
 * length, or 0 when cap is too small (cap >= 4 * ((n + 2) / 3) + 1). */
size_t dt_base64(const uint8_t *in, size_t n, char *out, size_t cap);
/* Sec-WebSocket-Accept for a Sec-WebSocket-Key: 0, or -1 and "" as
 * dt_sha1. */
int dt_ws_accept(const char *key, char out[29]);

#endif
