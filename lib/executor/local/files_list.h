/* files_list.c: host-side listing and working-directory claims of the
 * local executor (vtable members file_list, workdir_claim/release). */
#ifndef DVAL_LOCAL_FILES_LIST_H
#define DVAL_LOCAL_FILES_LIST_H

#include "local.h"

int lx_file_list(void *ud, dval_call *c, const char *sbid, const char *dir,
                 dval_file_list_fn each, void *each_ud);
int lx_workdir_claim(void *ud, dval_call *c, const char *sbid,
                     const char *dir, void **claim);
void lx_workdir_release(void *ud, void *claim);
/* Sets the three members above in a local executor's vtable. */
void lx_files_list_install(struct dval_executor *ex);

#endif
