/* reset.c / reset_inside.c: the fast reset that keeps the sandbox's init
 * and namespaces (see reset.c). */
#ifndef DVAL_HELPER_RESET_H
#define DVAL_HELPER_RESET_H

#include <sys/types.h>

#include "executor/local/protocol.h"

struct reset_req {
    pid_t init;     /* the init's pid on the host */
    int root, tmp;  /* detached mounts: the new overlay, the disk's tmp/ */
    int share_net;  /* the host's network: no namespace of its own */
};

/* In the sandbox's namespaces (a child of the joined helper, so in its
 * pid namespace): returns the exit code. */
int reset_inside(const struct reset_req *r);
/* reset_root.c: root (a detached overlay) becomes the sandbox's root, the
 * old /proc and /dev (a fresh /dev/shm) moved onto it, tmp (detached) its
 * /tmp; the old root is detached. */
int reset_swap_root(int root, int tmp);

#endif
