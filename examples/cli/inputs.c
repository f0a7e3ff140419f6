/* The run phase's inputs: --arg WORD (repeatable, the program's
 * arguments as they are) and --stdin FILE ("-": this process's own
 * stdin), read whole here and handed to the library, which checks their
 * bounds again and gives them to the program on any executor. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The library's bound on a validation's stdin. */
#define STDIN_MAX ((size_t)16 << 20)

static int usage(cli_problem *pb, const char *fmt, const char *arg)
{
    snprintf(pb->message, sizeof pb->message, fmt, arg);
    snprintf(pb->hint, sizeof pb->hint, "see `daytona-validate run --help`");
    pb->exit_status = CLI_EX_USAGE;
    return CLI_EX_USAGE;
}

int inputs_option(cli_inputs *in, int opt, const char *arg, cli_problem *pb)
{
    if (opt == OPT_STDIN) {
        in->stdin_path = arg;
        return -1;
    }
    if (opt != OPT_ARG)
        return 0;
    if (in->nargs == CLI_MAX_ARGS)
        return usage(pb, "too many --arg options (at most 256; '%s')", arg);
    in->args[in->nargs++] = arg;
    return -1;
}

/* All of f, at most STDIN_MAX bytes (EFBIG past it). */
static int read_all(FILE *f, char **data, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (n == cap) {
            char *nb = cap <= STDIN_MAX ? realloc(buf, cap * 2) : NULL;
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0 && (feof(f) || ferror(f)))
            break;
    }
    if (n > STDIN_MAX || ferror(f) || !feof(f)) {
        free(buf);
        errno = n > STDIN_MAX || !errno ? EFBIG : errno;
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

static int read_stdin(cli_inputs *in, cli_problem *pb)
{
    int own = !strcmp(in->stdin_path, "-");
    FILE *f = own ? stdin : fopen(in->stdin_path, "rb");
    errno = 0;
    int rc = f ? read_all(f, &in->data, &in->len) : -1;
    int err = errno;
    if (f && !own)
        fclose(f);
    if (!rc)
        return -1;
    snprintf(pb->message, sizeof pb->message, "cannot read --stdin %s: %s%s",
             own ? "(standard input)" : in->stdin_path, strerror(err),
             err == EFBIG ? " (at most 16 MiB)" : "");
    snprintf(pb->hint, sizeof pb->hint, "check the --stdin file");
    pb->exit_status = CLI_EX_NOINPUT;
    return CLI_EX_NOINPUT;
}

int inputs_apply(cli_inputs *in, dval_validation *req, cli_problem *pb)
{
    if (in->nargs)
        req->args = in->args;
    if (!in->stdin_path)
        return -1;
    int ex = read_stdin(in, pb);
    if (ex >= 0)
        return ex;
    req->stdin_data = in->data ? in->data : "";
    req->stdin_len = in->len;
    return -1;
}
