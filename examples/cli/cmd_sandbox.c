/* `daytona-validate sandbox ls|stop|rm`: find and reap sandboxes, by
 * default the ones this library created (label
 * dval.managed-by=daytona-validate). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_LABELS 32
#define MAX_FOUND 1024

static const char sb_usage[] =
    "usage: daytona-validate sandbox ls [--label KEY=VALUE]... [--all]\n"
    "       daytona-validate sandbox stop|rm [--label KEY=VALUE]... [--all]"
    " [NAME...]\n"
    "\n"
    "Without --label or --all, only sandboxes labelled\n"
    "dval.managed-by=daytona-validate are listed or touched. stop and rm act\n"
    "on the NAMEs given, else on every sandbox ls would list.\n";

typedef struct found {
    char *name[MAX_FOUND];
    int state[MAX_FOUND];
    size_t n;
    int print;
} found;

static int on_sandbox(const char *id, const char *name, int state, void *ud)
{
    found *f = ud;
    if (f->print)
        printf("%s\t%s\t%s\n", id ? id : "-", name ? name : "-",
               dval_sandbox_state_name(state));
    if (f->n < MAX_FOUND && name) {
        f->state[f->n] = state;
        f->name[f->n++] = strdup(name);
    }
    return 0;
}

/* Attaches without starting (dval_sandbox_get), then stops or deletes. */
static int act(dval_client *c, const char *name, int state, int rm)
{
    if (!rm && state == DVAL_SANDBOX_STOPPED) {
        printf("%s\tstopped\n", name);
        return 0;
    }
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_get(&sb, c, name);
    if (rc == DVAL_OK)
        rc = rm ? dval_sandbox_delete(sb) : dval_sandbox_stop(sb);
    if (rc) {
        const char *m = sb ? dval_sandbox_errmsg(sb) : dval_client_errmsg(c);
        cli_err("%s %s: %s", rm ? "rm" : "stop", name, m);
    } else {
        printf("%s\t%s\n", name, rm ? "removed" : "stopped");
    }
    dval_sandbox_free(sb);
    return rc ? cli_exit_for(rc) : 0;
}

int cmd_sandbox(int argc, char **argv)
{
    enum { OPT_LABEL = OPT_FIRST_CMD, OPT_ALL };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"label", 1, NULL, OPT_LABEL},
        {"all", 0, NULL, OPT_ALL},
        {NULL, 0, NULL, 0},
    };
    cli_common co = {0};
    const char *labels[MAX_LABELS + 2] = {0};
    size_t nl = 0;
    int all = 0, opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(&co, opt, optarg))
            continue;
        if (opt == OPT_HELP) {
            fputs(sb_usage, stdout);
            return 0;
        } else if (opt == OPT_ALL) {
            all = 1;
        } else if (opt == OPT_LABEL && strchr(optarg, '=') &&
                   nl < MAX_LABELS) {
            labels[nl++] = optarg;
        } else {
            cli_err("sandbox: bad option '%s'", argv[optind - 1]);
            cli_usage_hint("sandbox ");
            return CLI_EX_USAGE;
        }
    }
    const char *sub = optind < argc ? argv[optind++] : NULL;
    int ls = sub && !strcmp(sub, "ls");
    int rm = sub && !strcmp(sub, "rm");
    if (!sub || (!ls && !rm && strcmp(sub, "stop")) ||
        (ls && optind < argc)) {
        cli_err("sandbox: expected ls, stop or rm");
        cli_usage_hint("sandbox ");
        return CLI_EX_USAGE;
    }
    if (nl == 0 && !all)
        labels[nl++] = "dval.managed-by=daytona-validate";
    term_init(co.verbose);
    dval_client *c = NULL;
    int ex = cli_client(&c, &co, NULL);
    if (ex)
        return ex;
    found *f = calloc(1, sizeof *f);
    if (!f) {
        dval_client_free(c);
        return CLI_EX_INFRA;
    }
    f->print = ls;
    int rc = dval_sandbox_list(c, nl ? labels : NULL, on_sandbox, f);
    if (rc) {
        cli_err("sandbox ls: %s", dval_client_errmsg(c));
        ex = cli_exit_for(rc);
    } else if (!ls) {
        for (size_t i = 0; i < f->n; i++) {
            int wanted = optind == argc;
            for (int j = optind; j < argc; j++)
                wanted |= !strcmp(argv[j], f->name[i]);
            int e = wanted ? act(c, f->name[i], f->state[i], rm) : 0;
            ex = ex ? ex : e;
        }
    }
    for (size_t i = 0; i < f->n; i++)
        free(f->name[i]);
    free(f);
    dval_client_free(c);
    return ex;
}
