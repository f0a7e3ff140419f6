/* `daytona-validate snapshot ls`: one line per profile's snapshot (its
 * state, or "absent"), then one per other snapshot the executor has
 * (a profile file's, one made through the API), PROFILE "-". Nothing is
 * built. Columns: PROFILE SNAPSHOT STATE IMAGE RUNTIME, tab-separated. */
#include <string.h>

#include "cli.h"

static void row(const char *profile, const char *name, const char *state,
                const char *image, const char *runtime)
{
    printf("%s\t%s\t%s\t%s\t%s\n", profile, name, state,
           image && *image ? image : "-",
           runtime && *runtime ? runtime : "-");
}

static void profile_rows(dval_client *c)
{
    const char *const *names = NULL;
    dval_profile_names(&names);
    for (size_t i = 0; names && names[i]; i++) {
        const dval_profile *p = dval_profile_find(names[i]);
        if (!p)
            continue;
        dval_snapshot *s = NULL;
        int rc = dval_snapshot_get(&s, c, p->snapshot_name);
        const char *state = rc == DVAL_OK ? dval_snapshot_state_name(
                                                dval_snapshot_state(s))
                            : rc == DVAL_ENOTFOUND ? "absent"
                                                   : "unknown";
        row(p->name, p->snapshot_name, state, p->image,
            s ? dval_snapshot_runtime(s) : "");
        dval_snapshot_free(s);
    }
}

/* The profile whose snapshot this is (NULL: none is registered). */
static const dval_profile *owner(const char *snapshot)
{
    const char *const *names = NULL;
    dval_profile_names(&names);
    for (size_t i = 0; names && names[i]; i++) {
        const dval_profile *p = dval_profile_find(names[i]);
        if (p && p->snapshot_name && !strcmp(p->snapshot_name, snapshot))
            return p;
    }
    return NULL;
}

static int other_row(const dval_snapshot_info *info, void *ud)
{
    (void)ud;
    if (!owner(info->name))
        row("-", info->name, dval_snapshot_state_name(info->state), NULL,
            info->runtime);
    return 0;
}

int snapshot_ls(dval_client *c)
{
    printf("PROFILE\tSNAPSHOT\tSTATE\tIMAGE\tRUNTIME\n");
    profile_rows(c);
    int rc = dval_snapshot_list(c, other_row, NULL);
    if (rc == DVAL_OK || rc == DVAL_EUNSUPPORTED)
        return 0; /* an executor that cannot list: the profiles' rows */
    cli_err("snapshot ls: %s", dval_client_errmsg(c));
    return cli_exit_for(rc);
}
