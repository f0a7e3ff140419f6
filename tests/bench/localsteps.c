/* Where the time of an isolation=sandbox validation goes on the local
 * executor (tests/bench/LOCALPERF.md): N sandboxes are created, then one
 * command runs in each (twice: a validation runs a prepare command and
 * the program), then 10 N commands run in one session (the cost of a
 * command alone), then all are deleted, one step at a time, serially.
 * Prints wall and CPU ms per sandbox for each step. CPU is the whole
 * process tree (this process, the helpers, the inits and the programs):
 * localsteps.sh runs it in a cpuacct cgroup of its own and passes that
 * group's cpuacct.usage file. Not a timed test.
 * Usage: localsteps N CPUACCT_USAGE_FILE|- */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dval.h"

#include "steps.h"

static int run_all(dval_sandbox **sb, int n, const char *cmd)
{
    for (int i = 0; i < n; i++) {
        dval_session *s = NULL;
        int code = -1;
        if (dval_session_open(&s, sb[i]) ||
            dval_session_exec(s, cmd, NULL, NULL, NULL, &code) || code) {
            fprintf(stderr, "localsteps: exec: %s\n",
                    s ? dval_session_errmsg(s) : dval_sandbox_errmsg(sb[i]));
            return 1;
        }
        dval_session_close(s);
        dval_session_free(s);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[1]);
    usage_file = strcmp(argv[2], "-") ? argv[2] : NULL;
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
    dval_sandbox **sb = calloc((size_t)n, sizeof *sb);
    char name[64];
    step_begin();
    for (int i = 0; i < n; i++) {
        dval_sandbox_options o;
        dval_sandbox_options_init(&o, sizeof o);
        snprintf(name, sizeof name, "steps-%d", i);
        o.name = name;
        if (dval_sandbox_acquire(&sb[i], c, &o)) {
            fprintf(stderr, "localsteps: %s\n", dval_client_errmsg(c));
            return 1;
        }
    }
    step_end("create", n);
    step_begin();
    if (run_all(sb, n, "true"))
        return 1;
    step_end("session+exec(true)", n);
    step_begin();
    if (run_all(sb, n, "find . -mindepth 1 -delete && mkdir -p r && sh -c 'echo ok'"))
        return 1;
    step_end("session+exec(find,mkdir,sh)", n);
    /* one command alone, without the session around it: the helper's
     * exec (its processes, the namespace join, sh) */
    dval_session *s = NULL;
    int code = -1;
    if (dval_session_open(&s, sb[0]))
        return 1;
    step_begin();
    for (int i = 0; i < 10 * n; i++)
        if (dval_session_exec(s, "true", NULL, NULL, NULL, &code) || code) {
            fprintf(stderr, "localsteps: exec: %s\n", dval_session_errmsg(s));
            return 1;
        }
    step_end("exec(true) in one session", 10 * n);
    dval_session_close(s);
    dval_session_free(s);
    step_begin();
    for (int i = 0; i < n; i++) {
        dval_sandbox_delete(sb[i]);
        dval_sandbox_free(sb[i]);
    }
    step_end("delete", n);
    dval_client_free(c);
    return 0;
}
