/* `daytona-validate logs [THREAD_ID]`: prints a run's transcript (phases,
 * build log, program stdout/stderr) recorded by `run`; on a terminal made
 * inert as `run` shows a program's output (safeterm.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char logs_usage[] =
    "usage: daytona-validate logs [--state-dir DIR] [THREAD_ID]\n"
    "\n"
    "Prints the transcript of the run with THREAD_ID (default: the last\n"
    "run), kept under <state dir>/cli-runs/: the newest 200 runs' and at\n"
    "most 256 MiB together (each at most 16 MiB); every run removes the\n"
    "oldest beyond that. On a terminal, control\n"
    "sequences other than colour are shown inert (^[...) unless\n"
    "--raw-output.\n";

int cmd_logs(int argc, char **argv)
{
    cli_common co = {0};
    int rc = cli_common_only(&co, argc, argv, "logs", logs_usage);
    if (rc >= 0)
        return rc;
    if (argc - optind > 1) {
        cli_err("logs: at most one THREAD_ID");
        return CLI_EX_USAGE;
    }
    char dir[4096], path[4400], tid[256] = "";
    if (runlog_dir(&co, dir, sizeof dir)) {
        cli_err("logs: no state directory (set HOME or --state-dir)");
        return CLI_EX_USAGE;
    }
    if (optind < argc) {
        snprintf(tid, sizeof tid, "%s", argv[optind]);
    } else {
        snprintf(path, sizeof path, "%s/last", dir);
        FILE *l = fopen(path, "r");
        if (!l || !fgets(tid, sizeof tid, l)) {
            char msg[4200];
            snprintf(msg, sizeof msg, "no run is recorded in %s", dir);
            term_problem(msg, "run `daytona-validate run` first, or pass the "
                         "--state-dir the run used");
            if (l)
                fclose(l);
            return CLI_EX_NOINPUT;
        }
        fclose(l);
        tid[strcspn(tid, "\n")] = '\0';
    }
    if (strchr(tid, '/') || !strcmp(tid, "..")) {
        cli_err("logs: bad thread id '%s'", tid);
        return CLI_EX_USAGE;
    }
    snprintf(path, sizeof path, "%s/%s.log", dir, tid);
    FILE *f = fopen(path, "r");
    if (!f) {
        char msg[4600];
        snprintf(msg, sizeof msg, "no transcript for thread %s (%s: %s)", tid,
                 path, strerror(errno));
        term_problem(msg, "`daytona-validate logs` without a THREAD_ID shows "
                     "the last run; check the id and --state-dir");
        return CLI_EX_NOINPUT;
    }
    term_init(co.verbose, co.raw_output);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        term_out(1, buf, n);
    term_done();
    fclose(f);
    return 0;
}
