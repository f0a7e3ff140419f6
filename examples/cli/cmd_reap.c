/* `daytona-validate reap [--pool NAME] [--label K=V]...`: deletes the
 * sandboxes this library created (label dval.managed-by=daytona-validate),
 * optionally only those of one pool (dval.pool=NAME) - what a crashed host
 * left behind. It is `sandbox rm` with those labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char reap_usage[] =
    "usage: daytona-validate reap [--pool NAME] [--label KEY=VALUE]...\n"
    "\n"
    "Deletes every sandbox labelled dval.managed-by=daytona-validate (and\n"
    "dval.pool=NAME with --pool, plus each --label): the sandboxes a crashed\n"
    "host or a leaked pool left behind. Same exit statuses as `sandbox rm`.\n";

int cmd_reap(int argc, char **argv)
{
    /* reap [--pool N] ARGS → sandbox rm --label managed-by [--label pool] ARGS */
    char **v = calloc((size_t)argc + 6, sizeof *v);
    char pool_label[300];
    if (!v)
        return CLI_EX_INFRA;
    int n = 0;
    v[n++] = "sandbox";
    v[n++] = "rm";
    v[n++] = "--label";
    v[n++] = "dval.managed-by=daytona-validate";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            fputs(reap_usage, stdout);
            free(v);
            return 0;
        }
        if (!strcmp(argv[i], "--pool") && i + 1 < argc) {
            snprintf(pool_label, sizeof pool_label, "dval.pool=%s", argv[++i]);
            v[n++] = "--label";
            v[n++] = pool_label;
        } else {
            v[n++] = argv[i];
        }
    }
    int ex = cmd_sandbox(n, v);
    free(v);
    return ex;
}
