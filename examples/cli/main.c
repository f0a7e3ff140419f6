/* daytona-validate: run untrusted programs in sandboxes and bring their
 * results back. This file only dispatches to the command modules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_prog = "daytona-validate";

static const char usage[] =
    "usage: daytona-validate [--help | --version] COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  run --profile NAME [options] DIR   upload DIR, run it, fetch results\n"
    "  snapshot ensure|ls|rm             manage the profiles' snapshots\n"
    "  sandbox ls|stop|rm [--label K=V]   list or reap sandboxes\n"
    "  logs [THREAD_ID]                  show the transcript of a run\n"
    "  profiles                          list the validation profiles\n"
    "\n"
    "common options: --executor local|daytona, --state-dir DIR, --verbose\n"
    "`daytona-validate COMMAND --help` describes a command; see also\n"
    "daytona-validate(1).\n";

void cli_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cli_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_usage_hint(const char *cmd)
{
    fprintf(stderr, "Try '%s %s--help'.\n", cli_prog, cmd ? cmd : "");
}

int cli_common_opt(cli_common *co, int opt, const char *arg)
{
    switch (opt) {
    case OPT_EXECUTOR:
        co->executor = arg;
        return 1;
    case OPT_STATE_DIR:
        co->state_dir = arg;
        return 1;
    case OPT_VERBOSE:
        co->verbose = 1;
        return 1;
    default:
        return 0;
    }
}

static int cmd_profiles(void)
{
    const char *const *names = NULL;
    if (dval_profile_names(&names) || !names)
        return CLI_EX_INFRA;
    for (size_t i = 0; names[i]; i++) {
        const dval_profile *p = dval_profile_find(names[i]);
        if (p)
            printf("%-8s sandbox=%s snapshot=%s image=%s\n", p->name,
                   p->sandbox_name, p->snapshot_name,
                   p->image ? p->image : "-");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EX_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
        !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("daytona-validate %s (libdaytona-validate %s)\n",
               DVAL_VERSION_STRING, dval_version());
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "snapshot"))
        return cmd_snapshot(argc - 1, argv + 1);
    if (!strcmp(cmd, "sandbox"))
        return cmd_sandbox(argc - 1, argv + 1);
    if (!strcmp(cmd, "logs"))
        return cmd_logs(argc - 1, argv + 1);
    if (!strcmp(cmd, "profiles"))
        return cmd_profiles();
    cli_err("unknown command '%s'", cmd);
    cli_usage_hint(NULL);
    return CLI_EX_USAGE;
}
