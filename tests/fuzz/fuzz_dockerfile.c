/* The local executor's Dockerfile reader: any bytes, never crash; a text
 * it accepts has one image without blanks and at most one step per line
 * after its FROM; one it refuses says why and leaves nothing allocated. */
#include "fuzz.h"
#include "executor/local/dockerfile.h"

#include <ctype.h>

static size_t lines_in(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

FUZZ_TARGET(dockerfile)
{
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    dval_call c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    lx_dockerfile d;
    int rc = lx_dockerfile_parse(&c, text, &d);
    FUZZ_ASSERT(rc == DVAL_OK || rc == DVAL_EINVAL ||
                rc == DVAL_EUNSUPPORTED || rc == DVAL_ENOMEM);
    if (rc == DVAL_OK) {
        FUZZ_ASSERT(d.image && d.image[0]);
        for (const char *s = d.image; *s; s++)
            FUZZ_ASSERT(!isspace((unsigned char)*s));
        FUZZ_ASSERT(d.n < lines_in(text));
        for (size_t i = 0; i < d.n; i++)
            FUZZ_ASSERT(d.commands[i] && d.commands[i][0]);
        FUZZ_ASSERT(d.n == 0 || d.commands[d.n] == NULL);
    } else {
        FUZZ_ASSERT(rc == DVAL_ENOMEM || c.errmsg[0]);
        FUZZ_ASSERT(!d.image && !d.commands && !d.n);
    }
    lx_dockerfile_free(&d);
    free(text);
    return 0;
}
