/* `daytona-validate snapshot ensure|ls|rm`: the profiles' snapshots, and
 * (ls, rm) every other snapshot the executor has. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char snap_usage[] =
    "usage: daytona-validate snapshot ensure PROFILE...\n"
    "       daytona-validate snapshot ls\n"
    "       daytona-validate snapshot rm PROFILE|SNAPSHOT...\n"
    "\n"
    "ensure builds (or finds) the profile's snapshot and waits until it is\n"
    "active; ls shows the profiles' snapshots, then every other snapshot\n"
    "(made by a profile file or the API; PROFILE \"-\"); rm deletes a\n"
    "profile's snapshot, or a snapshot by its name. A PROFILE may be a\n"
    "profile file (./p.json). Options: --executor, --state-dir, --verbose.\n";

static int build_log(const char *data, size_t len, void *ud)
{
    (void)ud;
    dval_event ev = {sizeof ev, DVAL_EVENT_BUILD_LOG, "snapshot", 0, 0, 0, 0,
                     NULL, data, len, 0, NULL};
    term_event(&ev);
    return 0;
}

static int ensure(dval_client *c, const char *profile, dval_snapshot **out)
{
    cli_problem pb;
    const dval_profile *p = check_profile(&profile, &pb) ? NULL
                            : dval_profile_find(profile);
    if (!p) {
        term_problem(pb.message, pb.hint);
        return CLI_EX_USAGE;
    }
    term_status(">> snapshot %s", p->snapshot_name);
    /* the executor picks the profile's build steps, or refuses it */
    int rc = dval_profile_snapshot_ensure(out, c, p, build_log, NULL);
    if (rc == DVAL_EUNSUPPORTED) {
        term_problem(dval_client_errmsg(c), NULL);
        return CLI_EX_UNAVAILABLE;
    }
    if (rc) {
        char msg[1400];
        snprintf(msg, sizeof msg, "preparing snapshot %s failed: %s",
                 p->snapshot_name, dval_client_errmsg(c));
        term_problem(msg, rc == DVAL_EBUILD
                              ? "the build log above (--verbose) says why"
                              : "run again with --verbose for the details");
        return cli_exit_for(rc);
    }
    return 0;
}

/* Deletes snapshot name; 1 when there is none (nothing printed). */
static int delete_named(dval_client *c, const char *name, int *ex)
{
    dval_snapshot *s = NULL;
    int rc = dval_snapshot_get(&s, c, name);
    if (rc == DVAL_ENOTFOUND || rc == DVAL_EINVAL)
        return 1;
    if (rc == DVAL_OK)
        rc = dval_snapshot_delete(s);
    dval_snapshot_free(s);
    *ex = rc ? cli_exit_for(rc) : 0;
    if (rc)
        cli_err("rm %s: %s", name, dval_client_errmsg(c));
    else
        printf("%s\tremoved\n", name);
    return 0;
}

/* rm looks the snapshot up without building it (dval_snapshot_get): a
 * profile's (or profile file's) snapshot, else a snapshot by its name. */
static int remove_one(dval_client *c, const char *arg)
{
    cli_problem pb;
    const char *name = arg;
    const dval_profile *p = check_profile(&name, &pb) ? NULL
                            : dval_profile_find(name);
    int ex = 0;
    if (!delete_named(c, p ? p->snapshot_name : arg, &ex))
        return ex;
    if (p) {
        printf("%s\tabsent\n", p->snapshot_name);
        return 0;
    }
    char msg[2200];
    snprintf(msg, sizeof msg, "%s, and no snapshot is named \"%s\" "
             "(see `daytona-validate snapshot ls`)", pb.message, arg);
    term_problem(msg, pb.hint);
    return CLI_EX_USAGE;
}

static int each_profile(dval_client *c, int rm, int argc, char **argv)
{
    int worst = 0;
    for (int i = 0; i < argc; i++) {
        int ex;
        if (rm) {
            ex = remove_one(c, argv[i]);
        } else {
            dval_snapshot *s = NULL;
            ex = ensure(c, argv[i], &s);
            if (!ex)
                printf("%s\t%s\t%s\n", dval_snapshot_name(s),
                       dval_snapshot_state_name(dval_snapshot_state(s)),
                       dval_snapshot_id(s)[0] ? dval_snapshot_id(s) : "-");
            dval_snapshot_free(s);
        }
        if (ex && !worst)
            worst = ex;
    }
    return worst;
}

int cmd_snapshot(int argc, char **argv)
{
    cli_common co = {0};
    int rc = cli_common_only(&co, argc, argv, "snapshot", snap_usage);
    if (rc >= 0)
        return rc;
    const char *sub = optind < argc ? argv[optind++] : NULL;
    if (sub && !strcmp(sub, "help")) {
        fputs(snap_usage, stdout);
        return 0;
    }
    int ls = sub && !strcmp(sub, "ls");
    int rm = sub && !strcmp(sub, "rm");
    if (!sub || (!ls && !rm && strcmp(sub, "ensure")) ||
        (!ls && optind >= argc)) {
        cli_err("snapshot: expected ensure|ls|rm and profile names");
        cli_usage_hint("snapshot ");
        return CLI_EX_USAGE;
    }
    term_init(co.verbose, co.raw_output);
    dval_client *c = NULL;
    int ex = cli_client(&c, &co, NULL);
    if (ex)
        return ex;
    ex = ls ? snapshot_ls(c) : each_profile(c, rm, argc - optind, argv + optind);
    dval_client_free(c);
    return ex;
}
