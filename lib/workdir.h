/* workdir.c: the core's access to the optional executor members
 * file_list and workdir_claim/workdir_release (validate.c uses them). */
#ifndef DVAL_WORKDIR_H
#define DVAL_WORKDIR_H

#include "core.h"

/* 1 when the sandbox's executor lists files from the host side. */
int dval__sandbox_can_list(const dval_sandbox *sb);
/* Lists regular files under dir (see file_list in dval.h); the error, if
 * any, is in the sandbox's errmsg. DVAL_EUNSUPPORTED without file_list. */
int dval__sandbox_file_list(dval_sandbox *sb, const char *dir,
                            dval_file_list_fn each, void *ud);
/* Claims dir for this run: DVAL_EBUSY while another run holds it. *claim
 * is NULL (and DVAL_OK returned) when the executor has no claims. */
int dval__sandbox_claim(dval_sandbox *sb, const char *dir, void **claim);
void dval__sandbox_release(dval_sandbox *sb, void *claim);

#endif
