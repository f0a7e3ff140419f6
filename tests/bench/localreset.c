/* The cost of the local executor's guaranteed reset (sandbox_reset, what
 * a pool's isolation=sandbox slot does after each validation) next to a
 * create and a delete (LOCALPERF.md): N sandboxes created, each reset R
 * times, all deleted, serially. Prints wall and tree CPU ms per sandbox
 * and step, as localsteps.c. Not a timed test; run by localsteps.sh
 * (LOCALSTEPS_RESET=1). Usage: localreset N R CPUACCT_USAGE_FILE|- */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recycle.h"
#include "sandbox_cache.h"

#include "steps.h"

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int n = atoi(argv[1]), r = atoi(argv[2]);
    usage_file = strcmp(argv[3], "-") ? argv[3] : NULL;
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = getenv("POOLBENCH_STATE");
    co.local = &lo;
    dval_client *c = NULL;
    if (dval_client_new(&c, &co))
        return 1;
    /* the sandboxes' names; their ids in the client's cache, where a
     * pool's validation leaves them for dval__recycle_after */
    dval_sandbox_info *rs = calloc((size_t)n, sizeof *rs);
    step_begin();
    for (int i = 0; i < n; i++) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        snprintf(rs[i].name, sizeof rs[i].name, "reset-%d", i);
        o.name = rs[i].name;
        dval_sandbox *sb = NULL;
        if (dval_sandbox_acquire(&sb, c, &o)) {
            fprintf(stderr, "localreset: %s\n", dval_client_errmsg(c));
            return 1;
        }
        dval__sbcache_put(c, &sb->info);
        dval_sandbox_free(sb);
    }
    step_end("create", n);
    step_begin();
    for (int k = 0; k < r; k++)
        for (int i = 0; i < n; i++)
            if (!dval__recycle_after(c, rs[i].name)) {
                fprintf(stderr, "localreset: reset failed\n");
                return 1;
            }
    step_end("reset", n * r);
    step_begin();
    for (int i = 0; i < n; i++)
        dval__recycle_release(c, rs[i].name, DVAL_RELEASE_DELETE, 0);
    step_end("delete", n);
    free(rs);
    dval_client_free(c);
    return 0;
}
