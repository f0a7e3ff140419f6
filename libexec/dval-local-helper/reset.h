/* The fast reset that keeps the sandbox's init and namespaces: the init
 * itself does it on a request over its socket (init_reset.c). */
#ifndef DVAL_HELPER_RESET_H
#define DVAL_HELPER_RESET_H

#include <stddef.h>
#include <sys/types.h>

#include "executor/local/protocol.h"

/* The fast reset's keeper (reset_root.c): its mount namespace and its
 * root. */
struct keeper {
    int ns, root;
};

/* Where the keeper's tmpfs is mounted in the sandbox's root until the
 * split (then nowhere there), and the init's fds that hold the keeper:
 * an init with the reset socket always has them (init.c). */
#define KEEPER_MNT "/dev/.dvalk"
#define KEEPER_FD 6
#define KEEPER_ROOT_FD 7
#define KEEP "/dev/.dval"

/* reset_inside.c. In the init (pid 1 of the sandbox's namespaces, host
 * root): the reset done, its exit code (0: reset) the reply on c. */
void reset_serve(int c, int share_net, long uid_base);
/* reset_root.c: root (a detached overlay) becomes the sandbox's root, the
 * old /proc and /dev (a fresh /dev/shm) moved onto it, tmp (detached) its
 * /tmp; the old root is detached. */
int reset_swap_root(int root, int tmp, long uid_base);
/* reset_keep.c. In the init, before pivot_root: the disk (a mount point)
 * and each lower bound under <root>KEEPER_MNT/dev/.dval, root-only. */
int reset_keep_layers(const char *root, const char *disk,
                      const char *lowers);
/* A generation of the kept disk: its directory's name, its tmp/. */
struct keep_gen {
    char name[64];
    int tmp;
};
/* In the keeper: a new overlay (detached, returned) on fresh directories
 * of the kept disk, a keep_gen *; -1 when the disk holds more than a
 * walk's budget. */
int reset_keep_build(void *gen);
/* After the swap: everything on the kept disk but that generation
 * removed. */
int reset_keep_wipe(void *gen);
/* reset_root.c. In the init, after pivot_root, with reset_keep_layers
 * done: the keeper split off into *k (close-on-exec fds); -1 on failure. */
int reset_keeper_split(struct keeper *k);
/* fn(arg) in the init's keeper (KEEPER_FD, KEEPER_ROOT_FD), then back to
 * this namespace and root; fn's result, -1 when the keeper cannot be
 * entered. */
int reset_in_keeper(int (*fn)(void *), void *arg);

/* init_reset.c: the init's socket. Before the clone (host namespaces):
 * the listening socket <sbdir>/reset.sock, or -1. In the init: one
 * request served (lfd readable). */
int init_reset_listen(const char *sbdir);
void init_reset_serve(int lfd, int share_net, long uid_base);
/* init_exec.c: a command started by the init for the request args (the
 * exec verb's, NUL-separated, n bytes) on connection c with the
 * command's stdout and stderr in fds[0] and fds[1] and a pidfd of the
 * caller's process in fds[2] (or -1) (the caller closes the fds left in
 * fds); replies on c. 1: c is the init's now (its command's), else the
 * caller closes it. init_exec_ncpu: the host's CPUs, read before the
 * pivot. */
/* fds[3..5]: the command's own cgroup.procs files (LX_OPT_CMD_CGROUP),
 * sent after the others (init_exec.c sorts them) */
#define INIT_EXEC_FDS 6
int init_exec_start(int c, char *args, size_t n, int fds[INIT_EXEC_FDS]);
void init_exec_ncpu(long ncpu);

#endif
