/* snapshot_list.c: the local executor's snapshot_list member, every
 * snapshot under the state directory's snapshots/. */
#ifndef DVAL_LOCAL_SNAPSHOT_LIST_H
#define DVAL_LOCAL_SNAPSHOT_LIST_H

#include "local.h"

int lx_snapshot_list(void *ud, dval_call *c, dval_snapshot_info_fn each,
                     void *each_ud);
/* Sets snapshot_list in a local executor's vtable. */
void lx_snapshot_list_install(struct dval_executor *ex);

#endif
