/* daytona-validate: run untrusted programs in sandboxes and bring their
 * results back. This file only dispatches to the command modules. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_prog = "daytona-validate";

static const char usage[] =
    "usage: daytona-validate [--help | --version] COMMAND [OPTIONS]\n"
    "\n"
    "Runs untrusted, machine-generated programs in sandboxes (Daytona, or\n"
    "Linux namespaces on this machine) and brings back the JSON results\n"
    "they write.\n"
    "\n"
    "commands:\n"
    "  run --profile NAME [options] DIR  upload DIR, run it, fetch results\n"
    "  diff ORIGINAL TRANSLATION         run both, compare their results\n"
    "  snapshot ensure|rm PROFILE...     build or delete a profile's snapshot\n"
    "  snapshot ls                       every snapshot, its state, runtime\n"
    "  snapshot rm SNAPSHOT...           delete snapshots by name\n"
    "  image pull|rm REF... | image ls   the local image cache (progress)\n"
    "  sandbox ls [--label K=V]... [--all]        list sandboxes\n"
    "  sandbox stop|rm [--label K=V]... [--all] [NAME...]  reap sandboxes\n"
    "  reap [--pool NAME] [--label K=V]...  delete this library's sandboxes\n"
    "  logs [THREAD_ID]                  the transcript of a run (default: "
    "last)\n"
    "  profiles                          list the validation profiles\n"
    "  help                              this text\n"
    "\n"
    "common options (every command):\n"
    "  --executor local|daytona  default: daytona when DAYTONA_API_KEY or\n"
    "                            DAYTONA_JWT_TOKEN is set, else local\n"
    "  --state-dir DIR           local executor state and run transcripts\n"
    "  --verbose                 progress, build logs and library logs\n"
    "  --raw-output              a program's output reaches a terminal as\n"
    "                            it is (default: its control sequences but\n"
    "                            colour shown inert, as ^[...)\n"
    "  --help                    describe the command\n"
    "\n"
    "run options: --profile NAME, --thread ID, --results FILE, --json,\n"
    "  --timeout SECONDS, --release keep|stop|delete, --label KEY=VALUE,\n"
    "  --allow-missing-results (see `daytona-validate run --help`)\n"
    "\n"
    "exit status of run: the program's own when it ran and failed; else\n"
    "  0 ok, 64 usage, 65 results missing/invalid, 66 input/output file,\n"
    "  69 unavailable (profile, credentials, isolation), 70 infrastructure,\n"
    "  75 busy, 124 --timeout, 130 SIGINT, 143 SIGTERM\n"
    "\n"
    "environment: DAYTONA_API_KEY, DAYTONA_JWT_TOKEN, DAYTONA_API_URL,\n"
    "  DAYTONA_ORGANIZATION_ID, DAYTONA_TARGET, NO_COLOR, XDG_STATE_HOME\n"
    "\n"
    "See daytona-validate(1); `run --json` follows the JSON Schema\n"
    "daytona-validate-run.schema.json installed with it.\n";

static const char profiles_usage[] =
    "usage: daytona-validate profiles [--executor E] [--state-dir DIR]\n"
    "\n"
    "Lists the validation profiles: for each, the sandbox and snapshot it\n"
    "uses, the image the snapshot is built from and the runtime its build\n"
    "recorded inside (where the snapshot exists and the executor can\n"
    "tell). Pass one with `daytona-validate run --profile NAME`.\n";

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
    case OPT_RAW_OUTPUT:
        co->raw_output = 1;
        return 1;
    default:
        return 0;
    }
}

/* The option loop of a command that takes only the common options:
 * -1 to go on (optind at the first operand), else the exit status. */
int cli_common_only(cli_common *co, int argc, char **argv, const char *cmd,
                    const char *help)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                              {NULL, 0, NULL, 0}};
    int opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(co, opt, optarg))
            continue;
        if (opt == OPT_HELP) {
            fputs(help, stdout);
            return 0;
        }
        char hint[64];
        snprintf(hint, sizeof hint, "%s ", cmd);
        cli_err("%s: unknown option '%s'", cmd, argv[optind - 1]);
        cli_usage_hint(hint);
        return CLI_EX_USAGE;
    }
    return -1;
}

/* The runtime inside the profile's snapshot, when it exists and the
 * executor can tell ("" otherwise): never what the name or image says. */
static void runtime_of(dval_client *c, const dval_profile *p, char *dst,
                       size_t cap)
{
    dval_snapshot *s = NULL;
    dst[0] = 0;
    if (c && dval_snapshot_get(&s, c, p->snapshot_name) == DVAL_OK)
        snprintf(dst, cap, "%s", dval_snapshot_runtime(s));
    dval_snapshot_free(s);
}

static int cmd_profiles(int argc, char **argv)
{
    cli_common co = {0};
    int rc = cli_common_only(&co, argc, argv, "profiles", profiles_usage);
    if (rc >= 0)
        return rc;
    if (optind < argc) {
        cli_err("profiles: unexpected argument '%s'", argv[optind]);
        cli_usage_hint("profiles ");
        return CLI_EX_USAGE;
    }
    const char *const *names = NULL;
    if (dval_profile_names(&names) || !names)
        return CLI_EX_INFRA;
    term_init(co.verbose, co.raw_output);
    dval_client *c = NULL;
    if (cli_client(&c, &co, NULL))
        c = NULL; /* the names still print; the runtimes are unknown */
    for (size_t i = 0; names[i]; i++) {
        const dval_profile *p = dval_profile_find(names[i]);
        char rt[DVAL_RUNTIME_MAX];
        if (!p)
            continue;
        runtime_of(c, p, rt, sizeof rt);
        printf("%-8s sandbox=%s snapshot=%s image=%s runtime=%s\n", p->name,
               p->sandbox_name, p->snapshot_name, p->image ? p->image : "-",
               *rt ? rt : "unknown (no snapshot yet, or the executor "
                          "cannot tell)");
    }
    dval_client_free(c);
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
    if (!strcmp(cmd, "diff"))
        return cmd_diff(argc - 1, argv + 1);
    if (!strcmp(cmd, "snapshot"))
        return cmd_snapshot(argc - 1, argv + 1);
    if (!strcmp(cmd, "sandbox"))
        return cmd_sandbox(argc - 1, argv + 1);
    if (!strcmp(cmd, "reap"))
        return cmd_reap(argc - 1, argv + 1);
    if (!strcmp(cmd, "image"))
        return cmd_image(argc - 1, argv + 1);
    if (!strcmp(cmd, "logs"))
        return cmd_logs(argc - 1, argv + 1);
    if (!strcmp(cmd, "profiles"))
        return cmd_profiles(argc - 1, argv + 1);
    cli_err("unknown command '%s'", cmd);
    cli_usage_hint(NULL);
    return CLI_EX_USAGE;
}
