/* upper_disk.c: the size-bounded writable layer of a local sandbox. */
#ifndef DVAL_LOCAL_UPPER_DISK_H
#define DVAL_LOCAL_UPPER_DISK_H

#include "local.h"

#define LX_DISK_GIB 10          /* default size of the writable layer */
#define LX_DISK_GIB_MAX 1024    /* the largest one sandbox_create takes */

/* The sandbox's layer size in GiB (its state's disk_gib, or the default). */
int lx_disk_gib(const lx_sb *sb);
/* Makes <sandbox>/disk.img (an empty ext4 of that size) unless it exists
 * or the caller is not root (the helper then uses a sized tmpfs). */
int lx_disk_prepare(lx *x, dval_call *c, lx_sb *sb);
/* Refuses (DVAL_EQUOTA) a new sandbox disk of gib GiB (0: the default)
 * when the state directory's filesystem has less than that plus
 * LX_DISK_MARGIN_GIB free: the images are sparse, so nothing reserves
 * the space a sandbox may write; this keeps a host that is already short
 * of space from taking more sandboxes (root callers: others get a tmpfs,
 * which the memory limit bounds). */
#define LX_DISK_MARGIN_GIB 1
int lx_disk_room(lx *x, dval_call *c, int gib);
/* Leaves one fresh image of gib GiB ready for the next creation (called
 * after a delete, so that creations only rename it). */
void lx_disk_refill(lx *x, int gib);

#endif
