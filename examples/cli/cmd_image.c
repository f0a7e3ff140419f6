/* `daytona-validate image pull|ls|rm`: the local executor's image cache
 * (dval_image_pull(3)). Daytona pulls images itself when it builds a
 * snapshot: there these exit 69 with the library's word for it. */
#include <getopt.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char image_usage[] =
    "usage: daytona-validate image pull REF...\n"
    "       daytona-validate image ls\n"
    "       daytona-validate image rm REF...\n"
    "\n"
    "pull fetches a registry image (debian:12, host:5000/repo:tag,\n"
    "repo@sha256:...) into the local executor's image cache, showing each\n"
    "layer's progress on stderr; ls lists the cached images (REF MANIFEST\n"
    "PULLED); rm removes one and the layers no other cached image uses.\n"
    "Options: --executor, --state-dir, --verbose.\n";

/* Progress lines go to stderr as they come (they are the pull's output). */
static int progress(const char *data, size_t len, void *ud)
{
    (void)ud;
    fwrite(data, 1, len, stderr);
    fflush(stderr);
    return 0;
}

/* The library's message names the step and the reference. */
static int fail(dval_client *c, int rc)
{
    cli_err("%s", dval_client_errmsg(c));
    return rc == DVAL_ENOTFOUND ? CLI_EX_NOINPUT : cli_exit_for(rc);
}

static int pull_or_rm(dval_client *c, int rm, int argc, char **argv)
{
    int worst = 0;
    for (int i = 0; i < argc; i++) {
        int rc = rm ? dval_image_remove(c, argv[i])
                    : dval_image_pull(c, argv[i], progress, NULL);
        int ex = rc ? fail(c, rc) : 0;
        if (!rc)
            printf("%s\t%s\n", argv[i], rm ? "removed" : "pulled");
        if (ex && !worst)
            worst = ex;
    }
    return worst;
}

static void header(int *shown)
{
    if (!*shown)
        printf("REF\tMANIFEST\tPULLED\n");
    *shown = 1;
}

static int image_row(const dval_image_info *info, void *ud)
{
    header(ud);
    char when[32] = "-";
    time_t t = (time_t)(info->pulled_ms / 1000);
    struct tm tm;
    if (info->pulled_ms > 0 && gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("%s\t%s\t%s\n", info->ref, info->manifest, when);
    return 0;
}

static int list(dval_client *c)
{
    int shown = 0; /* no header above an error */
    int rc = dval_image_list(c, image_row, &shown);
    if (rc == DVAL_OK)
        header(&shown);
    else
        cli_err("image ls: %s", dval_client_errmsg(c));
    return cli_exit_for(rc);
}

int cmd_image(int argc, char **argv)
{
    cli_common co = {0};
    int rc = cli_common_only(&co, argc, argv, "image", image_usage);
    if (rc >= 0)
        return rc;
    const char *sub = optind < argc ? argv[optind++] : NULL;
    if (sub && !strcmp(sub, "help")) {
        fputs(image_usage, stdout);
        return 0;
    }
    int ls = sub && !strcmp(sub, "ls");
    int rm = sub && !strcmp(sub, "rm");
    if (!sub || (!ls && !rm && strcmp(sub, "pull")) ||
        (!ls && optind >= argc) || (ls && optind < argc)) {
        cli_err("image: expected pull REF..., ls or rm REF...");
        cli_usage_hint("image ");
        return CLI_EX_USAGE;
    }
    term_init(co.verbose, co.raw_output);
    dval_client *c = NULL;
    int ex = cli_client(&c, &co, NULL);
    if (ex)
        return ex;
    ex = ls ? list(c) : pull_or_rm(c, rm, argc - optind, argv + optind);
    dval_client_free(c);
    return ex;
}
