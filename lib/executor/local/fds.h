/* Handles that are a block of descriptors (a command's output stream, a
 * working-directory claim): one way to let them go. */
#ifndef DVAL_LOCAL_FDS_H
#define DVAL_LOCAL_FDS_H

#include <stddef.h>

/* Closes those of the n descriptors at fds that are open (>= 0), then
 * frees block, the allocation that holds them. NULL block: nothing. */
void lx_fds_release(void *block, int *fds, size_t n);

#endif
