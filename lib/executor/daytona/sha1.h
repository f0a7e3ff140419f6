/* SHA-1 (FIPS 180-4) and base64 (RFC 4648), just enough for the
 * WebSocket handshake's Sec-WebSocket-Accept check. Not for security. */
#ifndef DVAL_DT_SHA1_H
#define DVAL_DT_SHA1_H

#include <stddef.h>
#include <stdint.h>

void dt_sha1(const void *data, size_t len, uint8_t digest[20]);
/* Writes the base64 text of in (NUL-terminated) into out; returns its
 * length, or 0 when cap is too small (cap >= 4 * ((n + 2) / 3) + 1). */
size_t dt_base64(const uint8_t *in, size_t n, char *out, size_t cap);
/* Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 4.2.2). */
void dt_ws_accept(const char *key, char out[29]);

#endif
