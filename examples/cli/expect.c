/* The comparison options `run` and `diff` share: --expect FILE (run),
 * --expect-file NAME, --expect-mode, --ignore PATH, --tolerance X and
 * --rel-tolerance X, checked here and handed to the library as a
 * dval_compare_options (the library compares). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* An expected result is read whole, up to this size. */
#define EXPECT_MAX (64u << 20)

static int bad(cli_problem *pb, const char *fmt, const char *arg,
               const char *cmd)
{
    snprintf(pb->message, sizeof pb->message, fmt, arg);
    snprintf(pb->hint, sizeof pb->hint, "see `daytona-validate %s --help`",
             cmd);
    pb->exit_status = CLI_EX_USAGE;
    return CLI_EX_USAGE;
}

static int tolerance(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(arg, &end);
    if (*end || end == arg || errno || !(x >= 0) || x > 1e300)
        return -1;
    *out = x;
    return 0;
}

static int mode(const char *arg, int32_t *out)
{
    if (!strcmp(arg, "json"))
        *out = DVAL_COMPARE_JSON;
    else if (!strcmp(arg, "text"))
        *out = DVAL_COMPARE_TEXT;
    else if (!strcmp(arg, "bytes") || !strcmp(arg, "exact"))
        *out = DVAL_COMPARE_EXACT;
    else
        return -1;
    return 0;
}

int expect_option(cli_expect *e, int opt, const char *arg, cli_problem *pb,
                  const char *cmd)
{
    switch (opt) {
    case OPT_EXPECT: e->path = arg; return -1;
    case OPT_EXPECT_FILE: e->results_name = arg; return -1;
    case OPT_EXPECT_MODE:
        if (mode(arg, &e->cmp.mode))
            return bad(pb, "--expect-mode is json, text or bytes, not '%s'",
                       arg, cmd);
        return -1;
    case OPT_IGNORE:
        if (e->nignore == CLI_MAX_IGNORE)
            return bad(pb, "too many --ignore options ('%s')", arg, cmd);
        if (arg[0] != '$')
            return bad(pb, "--ignore needs a JSON path starting with $ "
                       "($.a.b, $.rows[*].id, $..name), not '%s'", arg, cmd);
        e->ignore[e->nignore++] = arg;
        e->cmp.ignore = e->ignore;
        return -1;
    case OPT_TOLERANCE:
        if (tolerance(arg, &e->cmp.abs_tolerance))
            return bad(pb, "--tolerance needs a number >= 0, not '%s'", arg,
                       cmd);
        return -1;
    case OPT_REL_TOLERANCE:
        if (tolerance(arg, &e->cmp.rel_tolerance))
            return bad(pb, "--rel-tolerance needs a number >= 0, not '%s'",
                       arg, cmd);
        return -1;
    default:
        return 0;
    }
}

static int read_all(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int err = !buf;
    while (!err) {
        if (n == cap) {
            char *nb = cap <= EXPECT_MAX ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                err = 1;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    err = err || ferror(f) || n > EXPECT_MAX;
    fclose(f);
    if (err) {
        free(buf);
        errno = errno ? errno : EFBIG;
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

int expect_apply(cli_expect *e, dval_validation *req, cli_problem *pb)
{
    if (!e->path) {
        if (e->results_name || e->cmp.mode || e->nignore ||
            e->cmp.abs_tolerance > 0 || e->cmp.rel_tolerance > 0)
            return bad(pb, "%s", "--expect-file, --expect-mode, --ignore "
                       "and the tolerances need --expect FILE", "run");
        return -1;
    }
    if (read_all(e->path, &e->data, &e->len)) {
        snprintf(pb->message, sizeof pb->message, "cannot read the expected "
                 "result %s: %s", e->path, strerror(errno));
        snprintf(pb->hint, sizeof pb->hint, "check the --expect file");
        pb->exit_status = CLI_EX_NOINPUT;
        return CLI_EX_NOINPUT;
    }
    req->expected = e->data ? e->data : "";
    req->expected_len = e->len;
    req->expected_file = e->results_name;
    req->compare = &e->cmp;
    return -1;
}
