/* upper_disk.c: the size-bounded writable layer (overlay upper + work and
 * /tmp) of a sandbox, mounted by its init. */
#ifndef DVAL_HELPER_UPPER_DISK_H
#define DVAL_HELPER_UPPER_DISK_H

#include <stddef.h>

/* "-d <gib>" among the options: the layer's size, 0 when not given. */
int upper_disk_gib(int argc, char **argv);
/* Before the namespaces (still host root): loop-attaches <sbdir>/disk.img
 * and returns a detached mount of it with upper/, work/ and tmp/ made;
 * -1 with errno (ENOENT: no image, use upper_disk_attach's tmpfs). */
int upper_disk_open(const char *sbdir);
/* In the sandbox's mount namespace: mounts the layer at <sbdir>/disk (mfd,
 * or a tmpfs of gib GiB when mfd < 0) and points upper/work there. */
int upper_disk_attach(int mfd, const char *sbdir, int gib, char *upper,
                      char *work, size_t cap);
/* After the root is set up: <sbdir>/disk/tmp over <root>/tmp, so /tmp
 * shares the bound (and the host's RAM is not the program's scratch). */
int upper_disk_tmp(const char *sbdir, const char *root);

#endif
