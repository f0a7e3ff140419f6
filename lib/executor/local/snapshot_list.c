/* Every snapshot of a state directory: snapshots/<encoded name>/state
 * records the name; lx_snapshot_get reads the rest as for one snapshot.
 * A directory that is no snapshot (no readable state, another format, a
 * build that never wrote its state) is left out, not an error: the
 * listing shows what snapshot_get would find. */
#include "snapshot_list.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>

/* The name recorded in dir/state, or DVAL_ENOTFOUND. */
static int recorded_name(const char *dir, char *name, size_t cap)
{
    char p[4400];
    lx_kv kv;
    dval__fmt(p, sizeof p, "%s/state", dir);
    if (lx_kv_load(&kv, p) != DVAL_OK)
        return DVAL_ENOTFOUND;
    const char *n = lx_kv_get(&kv, "name");
    int rc = n && *n ? DVAL_OK : DVAL_ENOTFOUND;
    if (rc == DVAL_OK)
        dval__strlcpy(name, n, cap);
    lx_kv_free(&kv);
    return rc;
}

/* Reports the snapshot in snapshots/<ent>; 1 when each stopped. */
static int one(lx *x, const char *top, const char *ent,
               dval_snapshot_info_fn each, void *each_ud)
{
    char dir[4300], name[DVAL_ID_MAX];
    dval__fmt(dir, sizeof dir, "%s/%s", top, ent);
    if (recorded_name(dir, name, sizeof name) != DVAL_OK)
        return 0;
    dval_snapshot_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (lx_snapshot_get(x, NULL, name, &info) != DVAL_OK)
        return 0;
    return each(&info, each_ud) != 0;
}

int lx_snapshot_list(void *ud, dval_call *c, dval_snapshot_info_fn each,
                     void *each_ud)
{
    lx *x = ud;
    char top[4200];
    dval__fmt(top, sizeof top, "%s/snapshots", x->state_dir);
    DIR *d = opendir(top);
    if (!d && errno == ENOENT)
        return DVAL_OK; /* nothing built yet */
    if (!d)
        return dval__call_fail(c, DVAL_EIO, "opendir %s: %s", top,
                               strerror(errno));
    int rc = DVAL_OK;
    struct dirent *e;
    while (rc == DVAL_OK && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (one(x, top, e->d_name, each, each_ud))
            rc = dval__call_fail(c, DVAL_EABORTED, "list stopped by "
                                 "callback");
    }
    closedir(d);
    return rc;
}

void lx_snapshot_list_install(struct dval_executor *ex)
{
    ex->snapshot_list = lx_snapshot_list;
}
