/* `daytona-validate diff`'s command line: the two folders, each side's
 * profile (given, or recognised from what the folder holds), and the
 * options both validations and their comparison share. */
#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

enum { OPT_PROFILE = OPT_FIRST_CMD, OPT_PROFILE2, OPT_JSON, OPT_TIMEOUT,
       OPT_SERVICE, OPT_SEED };

static const struct option longopts[] = {
    CLI_COMMON_LONGOPTS,
    {"profile", 1, NULL, OPT_PROFILE},
    {"profile2", 1, NULL, OPT_PROFILE2},
    {"json", 0, NULL, OPT_JSON},
    {"timeout", 1, NULL, OPT_TIMEOUT},
    {"service", 1, NULL, OPT_SERVICE},
    {"seed", 1, NULL, OPT_SEED},
    CLI_COMPARE_LONGOPTS,
    {NULL, 0, NULL, 0},
};

static int usage_error(cli_problem *pb, const char *fmt, const char *arg)
{
    snprintf(pb->message, sizeof pb->message, fmt, arg);
    snprintf(pb->hint, sizeof pb->hint, "see `daytona-validate diff "
             "--help`");
    pb->exit_status = CLI_EX_USAGE;
    return CLI_EX_USAGE;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && !strcmp(s + n - k, tail);
}

/* The profile a folder's files say: a .csproj → dotnet, pom.xml or a
 * *.java → java, run.sh → shell; NULL when none or more than one. */
const char *diff_profile_of(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    int dotnet = 0, java = 0, shell = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        dotnet |= ends_with(e->d_name, ".csproj");
        java |= !strcmp(e->d_name, "pom.xml") || ends_with(e->d_name,
                                                            ".java");
        shell |= !strcmp(e->d_name, "run.sh");
    }
    closedir(d);
    if (dotnet + java + shell != 1)
        return NULL;
    return dotnet ? "dotnet" : java ? "java" : "shell";
}

static int repeated(diff_args *a, int opt, cli_problem *pb)
{
    if (opt == OPT_SERVICE) {
        if (a->nservices == DIFF_MAX_LIST)
            return usage_error(pb, "too many --service options ('%s')",
                               optarg);
        a->services[a->nservices++] = optarg;
    } else {
        if (a->nseeds == DIFF_MAX_LIST)
            return usage_error(pb, "too many --seed options ('%s')", optarg);
        a->seeds[a->nseeds++] = optarg;
    }
    return -1;
}

static int option(diff_args *a, int opt, cli_problem *pb)
{
    char *end;
    switch (opt) {
    case OPT_PROFILE: a->profile[0] = optarg; return -1;
    case OPT_PROFILE2: a->profile[1] = optarg; return -1;
    case OPT_JSON: a->json = 1; return -1;
    case OPT_TIMEOUT: {
        double s = strtod(optarg, &end);
        if (*end || end == optarg || !(s > 0) || s > 1e7)
            return usage_error(pb, "--timeout needs seconds > 0, not '%s'",
                               optarg);
        a->timeout_ms = (int64_t)(s * 1000);
        return -1;
    }
    case OPT_SERVICE:
    case OPT_SEED:
        return repeated(a, opt, pb);
    case OPT_EXPECT_FILE:
    case OPT_EXPECT_MODE:
        return usage_error(pb, "%s: diff compares the two sides' results "
                           "as JSON", opt == OPT_EXPECT_FILE
                           ? "--expect-file" : "--expect-mode");
    default: {
        int ex = expect_option(&a->expect, opt, optarg, pb, "diff");
        return ex ? ex : usage_error(pb, "unknown or incomplete option "
                                     "'%s'", "?");
    }
    }
}

/* Each side's profile: the option's, else the folder's. */
static int profiles(diff_args *a, cli_problem *pb)
{
    const char *opt[2] = { "--profile", "--profile2" };
    for (int i = 0; i < 2; i++) {
        if (check_source_dir(a->dir[i], pb))
            return pb->exit_status;
        if (!a->profile[i] && !(a->profile[i] = diff_profile_of(a->dir[i]))) {
            snprintf(pb->message, sizeof pb->message, "cannot tell the "
                     "profile of %s (a .csproj: dotnet, pom.xml or *.java: "
                     "java, run.sh: shell; none, or more than one)",
                     a->dir[i]);
            snprintf(pb->hint, sizeof pb->hint, "give it with %s NAME",
                     opt[i]);
            pb->exit_status = CLI_EX_USAGE;
            return CLI_EX_USAGE;
        }
        if (check_profile(&a->profile[i], pb))
            return pb->exit_status;
    }
    return -1;
}

int diff_parse(diff_args *a, int argc, char **argv, cli_problem *pb)
{
    int opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (cli_common_opt(&a->co, opt, optarg))
            continue;
        if (opt == OPT_HELP)
            return 0;
        if (opt == '?' || opt == ':')
            return usage_error(pb, "unknown or incomplete option '%s'",
                               argv[optind - 1]);
        int ex = option(a, opt, pb);
        if (ex >= 0)
            return ex;
    }
    if (argc - optind != 2)
        return usage_error(pb, "%s", "diff takes two folders: ORIGINAL "
                           "TRANSLATION");
    a->dir[0] = argv[optind];
    a->dir[1] = argv[optind + 1];
    a->services[a->nservices] = NULL;
    a->seeds[a->nseeds] = NULL;
    if (check_executor(a->co.executor, pb) ||
        check_services(a->services, a->seeds, pb))
        return pb->exit_status;
    return profiles(a, pb);
}
