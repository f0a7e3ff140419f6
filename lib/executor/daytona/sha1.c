/* SHA-1 from OpenSSL's EVP interface (see sha1.h), plus a base64
 * encoder. One-shot only: the handshake hashes ~60 bytes. */
#include <openssl/evp.h>
#include <string.h>

#include "sha1.h"

int dt_sha1(const void *data, size_t len, uint8_t digest[20])
{
    /* EVP_sha1()'s digest is 20 bytes: it fits digest exactly */
    if (!EVP_Digest(data, len, digest, NULL, EVP_sha1(), NULL))
        return -1;
    return 0;
}

size_t dt_base64(const uint8_t *in, size_t n, char *out, size_t cap)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t need = 4 * ((n + 2) / 3);
    if (cap < need + 1)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

int dt_ws_accept(const char *key, char out[29])
{
    /* RFC 6455 4.2.2: base64(SHA-1(key + GUID)) */
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char buf[128];
    size_t kl = strnlen(key, sizeof buf - sizeof guid);
    memcpy(buf, key, kl);
    memcpy(buf + kl, guid, sizeof guid - 1);
    uint8_t d[20];
    out[0] = '\0';
    if (dt_sha1(buf, kl + sizeof guid - 1, d))
        return -1;
    dt_base64(d, sizeof d, out, 29);
    return 0;
}
