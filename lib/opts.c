/* Size-prefixed option structs (libbpf style): init, and the checked copy
 * that accepts older (smaller) and newer (zero-tailed) callers. */
#include <string.h>

#include "internal.h"

int dval__opts_init(void *o, size_t size, size_t known)
{
    if (!o)
        return DVAL_EINVAL;
    if (size < sizeof(size_t))
        return DVAL_EABI;
    memset(o, 0, size);
    *(size_t *)o = size < known ? size : known;
    return DVAL_OK;
}

int dval__opts_copy(void *dst, size_t known, const void *src, size_t min)
{
    if (!dst || !src)
        return DVAL_EINVAL;
    size_t size = *(const size_t *)src;
    if (size < min || size < sizeof(size_t))
        return DVAL_EABI;
    if (size > known) {
        const unsigned char *tail = (const unsigned char *)src + known;
        for (size_t i = 0; i < size - known; i++)
            if (tail[i])
                return DVAL_EABI;
    }
    memset(dst, 0, known);
    memcpy(dst, src, size < known ? size : known);
    *(size_t *)dst = known;
    return DVAL_OK;
}
