/* See fds.h. */
#include "fds.h"

#include <unistd.h>

#include "internal.h"

void lx_fds_release(void *block, int *fds, size_t n)
{
    if (!block)
        return;
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    dval__free(block);
}
