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
    "on the NAMEs given, else on every sandbox ls would list.\n"
    "\n"
    "ls prints one line per sandbox under a NAME STATE header (and an ID\n"
    "column when an id differs from its name).\n"
    "Exit status: 0; 64 for a bad option or an invalid NAME; 66 when a NAME\n"
    "is not among the selected sandboxes; 69/70 when the executor fails.\n";

typedef struct found {
    char *name[MAX_FOUND];
    char *id[MAX_FOUND];
    int state[MAX_FOUND];
    size_t n;
} found;

static int on_sandbox(const char *id, const char *name, int state, void *ud)
{
    found *f = ud;
    if (f->n < MAX_FOUND && name) {
        f->state[f->n] = state;
        f->id[f->n] = strdup(id ? id : "");
        f->name[f->n++] = strdup(name);
    }
    return 0;
}

/* Aligned columns under a header; the id only when it says more than the
 * name (on the local executor they are the same). */
static void print_list(const found *f)
{
    int w = 4, ids = 0;
    for (size_t i = 0; i < f->n; i++) {
        int l = (int)strlen(f->name[i]);
        w = l > w ? l : w;
        ids |= f->id[i] && *f->id[i] && strcmp(f->id[i], f->name[i]);
    }
    if (ids)
        printf("%-*s  %-10s  ID\n", w, "NAME", "STATE");
    else
        printf("%-*s  STATE\n", w, "NAME");
    for (size_t i = 0; i < f->n; i++) {
        const char *st = dval_sandbox_state_name(f->state[i]);
        if (ids)
            printf("%-*s  %-10s  %s\n", w, f->name[i], st,
                   *f->id[i] ? f->id[i] : "-");
        else
            printf("%-*s  %s\n", w, f->name[i], st);
    }
}

/* NAMEs given on the command line: valid, and among those listed. */
static int valid_names(int argc, char **argv, int first)
{
    for (int j = first; j < argc; j++) {
        cli_problem pb;
        if (check_sandbox_name(argv[j], &pb)) {
            term_problem(pb.message, pb.hint);
            return CLI_EX_USAGE;
        }
    }
    return 0;
}

static int check_names(const found *f, int argc, char **argv, int first)
{
    int ex = 0;
    for (int j = first; j < argc; j++) {
        size_t i = 0;
        while (i < f->n && strcmp(argv[j], f->name[i]))
            i++;
        if (i == f->n) {
            char msg[600];
            snprintf(msg, sizeof msg, "no sandbox named \"%s\" among the "
                     "selected ones", argv[j]);
            term_problem(msg, "see `daytona-validate sandbox ls` (add --all "
                         "for sandboxes this tool did not create)");
            ex = CLI_EX_NOINPUT;
        }
    }
    return ex;
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
        char msg[1400];
        snprintf(msg, sizeof msg, "%s sandbox %s failed: %s",
                 rm ? "removing" : "stopping", name, m);
        term_problem(msg, "run again with --verbose for the details");
    } else {
        printf("%s\t%s\n", name, rm ? "removed" : "stopped");
    }
    dval_sandbox_free(sb);
    return rc ? cli_exit_for(rc) : 0;
}

static void list_failed(dval_client *c, int rc)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "listing the sandboxes failed: %s",
             dval_client_errmsg(c));
    term_problem(msg, rc == DVAL_EAUTH
                          ? "the Daytona API rejected the credentials (HTTP "
                            "401): check DAYTONA_API_KEY and DAYTONA_API_URL"
                      : rc == DVAL_ENETWORK
                          ? "check the network and DAYTONA_API_URL"
                          : "run again with --verbose for the details");
}

typedef struct sb_args {
    cli_common co;
    const char *labels[MAX_LABELS + 2];
    size_t nl;
    int ls, rm;
    int first;     /* argv index of the first NAME */
} sb_args;

/* Returns -1 to proceed, or the exit status. */
static int parse_sb(sb_args *a, int argc, char **argv)
{
    enum { OPT_LABEL = OPT_FIRST_CMD, OPT_ALL };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"label", 1, NULL, OPT_LABEL},
        {"all", 0, NULL, OPT_ALL},
        {NULL, 0, NULL, 0},
    };
    int all = 0, opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(&a->co, opt, optarg))
            continue;
        if (opt == OPT_HELP) {
            fputs(sb_usage, stdout);
            return 0;
        } else if (opt == OPT_ALL) {
            all = 1;
        } else if (opt == OPT_LABEL && strchr(optarg, '=') &&
                   a->nl < MAX_LABELS) {
            a->labels[a->nl++] = optarg;
        } else {
            cli_err("sandbox: bad option '%s'", argv[optind - 1]);
            cli_usage_hint("sandbox ");
            return CLI_EX_USAGE;
        }
    }
    const char *sub = optind < argc ? argv[optind++] : NULL;
    if (sub && !strcmp(sub, "help")) {
        fputs(sb_usage, stdout);
        return 0;
    }
    a->ls = sub && !strcmp(sub, "ls");
    a->rm = sub && !strcmp(sub, "rm");
    int known = a->ls || a->rm || (sub && !strcmp(sub, "stop"));
    if (!known || (a->ls && optind < argc)) {
        cli_err("sandbox: expected ls, stop or rm%s",
                known ? " (ls takes no NAME)" : "");
        cli_usage_hint("sandbox ");
        return CLI_EX_USAGE;
    }
    if (a->nl == 0 && !all)
        a->labels[a->nl++] = "dval.managed-by=daytona-validate";
    a->first = optind;
    /* names are checked before any remote work */
    if (!a->ls && valid_names(argc, argv, optind))
        return CLI_EX_USAGE;
    return -1;
}

/* stop/rm on the NAMEs given, else on every listed sandbox */
static int act_all(dval_client *c, const found *f, const sb_args *a,
                   int argc, char **argv)
{
    int ex = check_names(f, argc, argv, a->first);
    if (ex)
        return ex;
    for (size_t i = 0; i < f->n; i++) {
        int wanted = a->first == argc;
        for (int j = a->first; j < argc; j++)
            wanted |= !strcmp(argv[j], f->name[i]);
        int e = wanted ? act(c, f->name[i], f->state[i], a->rm) : 0;
        if (e && !ex)
            ex = e;
    }
    return ex;
}

int cmd_sandbox(int argc, char **argv)
{
    sb_args a;
    memset(&a, 0, sizeof a);
    int ex = parse_sb(&a, argc, argv);
    if (ex >= 0)
        return ex;
    term_init(a.co.verbose, a.co.raw_output);
    dval_client *c = NULL;
    if ((ex = cli_client(&c, &a.co, NULL)))
        return ex;
    found *f = calloc(1, sizeof *f);
    if (!f) {
        dval_client_free(c);
        return CLI_EX_INFRA;
    }
    int rc = dval_sandbox_list(c, a.labels, on_sandbox, f);
    if (rc) {
        list_failed(c, rc);
        ex = cli_exit_for(rc);
    } else if (a.ls) {
        print_list(f);
    } else {
        ex = act_all(c, f, &a, argc, argv);
    }
    for (size_t i = 0; i < f->n; i++) {
        free(f->name[i]);
        free(f->id[i]);
    }
    free(f);
    dval_client_free(c);
    return ex;
}
