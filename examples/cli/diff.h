/* `daytona-validate diff`: what its two files share. */
#ifndef CLI_DIFF_H
#define CLI_DIFF_H

#include "cli.h"

#define DIFF_MAX_LIST 16

typedef struct diff_args {
    cli_common co;
    const char *dir[2];           /* ORIGINAL, TRANSLATION */
    const char *profile[2];       /* --profile, --profile2, or recognised */
    int json;
    int64_t timeout_ms;
    const char *services[DIFF_MAX_LIST + 1];
    const char *seeds[DIFF_MAX_LIST + 1];
    size_t nservices, nseeds;
    cli_expect expect;            /* --ignore and the tolerances */
} diff_args;

/* diff_args.c: -1 to go on, 0 after --help, else the exit status (*pb). */
int diff_parse(diff_args *a, int argc, char **argv, cli_problem *pb);
/* The profile a folder's files say, or NULL. */
const char *diff_profile_of(const char *dir);

#endif
