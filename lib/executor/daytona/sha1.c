/* SHA-1 and base64 from OpenSSL's EVP interface (see sha1.h). One-shot
 * only: the handshake hashes ~60 bytes. */
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <string.h>

#include "sha1.h"

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
/* With EVP_sha1() every EVP_Digest looks the algorithm up in the
 * providers again, most of a handshake's hashing cost: fetched once (kept
 * for the process's life; NULL: EVP_sha1() after all) */
static EVP_MD *sha1_md;
static pthread_once_t sha1_once = PTHREAD_ONCE_INIT;

static void sha1_fetch(void)
{
    sha1_md = EVP_MD_fetch(NULL, "SHA1", NULL);
}

static const EVP_MD *sha1_algo(void)
{
    pthread_once(&sha1_once, sha1_fetch);
    return sha1_md ? sha1_md : EVP_sha1();
}
#else
static const EVP_MD *sha1_algo(void)
{
    return EVP_sha1();
}
#endif

int dt_sha1(const void *data, size_t len, uint8_t digest[20])
{
    /* SHA-1's digest is 20 bytes: it fits digest exactly */
    if (!EVP_Digest(data, len, digest, NULL, sha1_algo(), NULL))
        return -1;
    return 0;
}

size_t dt_base64(const uint8_t *in, size_t n, char *out, size_t cap)
{
    /* EVP_EncodeBlock takes an int; the handshake encodes 16 or 20 bytes */
    if (n > (size_t)INT_MAX / 4 * 3 || cap < 4 * ((n + 2) / 3) + 1)
        return 0;
    return (size_t)EVP_EncodeBlock((unsigned char *)out, in, (int)n);
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
