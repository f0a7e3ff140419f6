/* Argument checks made before any remote work, so a typo costs nothing:
 * each failure names the argument, says why it is wrong and what would be
 * right (fills a cli_problem; the caller prints it and exits 64 or 66). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static void problem(cli_problem *p, int ex, const char *hint,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void problem(cli_problem *p, int ex, const char *hint,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
    snprintf(p->hint, sizeof p->hint, "%s", hint ? hint : "");
    p->exit_status = ex;
}

/* Levenshtein distance, for "did you mean"; short names only. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* "dotnet, java, shell" and the closest name (NULL when none is close). */
static const char *profile_list(char *buf, size_t cap, const char *wrong)
{
    const char *const *names = NULL;
    const char *best = NULL;
    size_t best_d = 3, n = 0;
    buf[0] = '\0';
    dval_profile_names(&names);
    for (size_t i = 0; names && names[i]; i++) {
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s",
                              i ? ", " : "", names[i]);
        size_t d = distance(wrong, names[i]);
        /* a prefix ("jav") is as good as a near miss */
        if (!strncmp(names[i], wrong, strlen(wrong)) && *wrong)
            d = 1;
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

/* A --profile that names a file rather than a profile. */
static int is_profile_file(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".json"));
}

int check_profile(const char **name, cli_problem *p)
{
    if (is_profile_file(*name)) {
        char why[700];
        const char *loaded;
        if (dval_profile_load(*name, &loaded, why, sizeof why) == DVAL_OK) {
            *name = loaded;
            return 0;
        }
        problem(p, CLI_EX_USAGE, "a profile file is a JSON object with "
                "name, image, run_command and optionally build_command, "
                "build_steps, files, runtime (see dval_profile_load(3))",
                "bad profile file: %s", why);
        return -1;
    }
    if (dval_profile_find(*name))
        return 0;
    char list[256], hint[400];
    const char *close = profile_list(list, sizeof list, *name);
    if (close)
        snprintf(hint, sizeof hint, "did you mean --profile %s? The "
                 "profiles are: %s (see `daytona-validate profiles`), or "
                 "give a profile file", close, list);
    else
        snprintf(hint, sizeof hint, "the profiles are: %s (see "
                 "`daytona-validate profiles`), or give a profile file "
                 "(a path: ./myprofile.json)", list);
    problem(p, CLI_EX_USAGE, hint, "unknown profile \"%s\"", *name);
    return -1;
}

/* FNV-1a of the text, as 8 hex digits: the derived names below. */
static void stamp(const char *s, char out[16])
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    snprintf(out, 16, "%08x", (unsigned)(h ^ (h >> 32)));
}

/* --image REF: the profile over another base image, registered under a
 * name of its own so that its snapshot and sandbox are its own too. */
int apply_image(const char **name, const char *image, cli_problem *p)
{
    const dval_profile *base = dval_profile_find(*name);
    if (!image || !base)
        return 0;
    static char nm[300], snap[300], sb[300];
    char st[16];
    stamp(image, st);
    snprintf(nm, sizeof nm, "%.100s.image-%s", base->name, st);
    snprintf(snap, sizeof snap, "%.150s-image-%s", base->snapshot_name, st);
    snprintf(sb, sizeof sb, "%.150s-image-%s", base->sandbox_name, st);
    dval_profile d = *base;
    d.name = nm;
    d.image = image;
    d.snapshot_name = snap;
    d.sandbox_name = sb;
    int rc = dval_profile_register(&d);
    if (rc) {
        problem(p, CLI_EX_USAGE, "an image is a reference such as "
                "debian:12-slim or registry.example.com/team/jdk:25",
                "--image %s: %s", image, dval_strerror(rc));
        return -1;
    }
    *name = nm;
    return 0;
}

int check_executor(const char *name, cli_problem *p)
{
    if (!name || !strcmp(name, "local") || !strcmp(name, "daytona"))
        return 0;
    problem(p, CLI_EX_USAGE, "use --executor local (Linux namespace "
            "sandboxes on this machine) or --executor daytona (Daytona "
            "sandboxes; needs DAYTONA_API_KEY)",
            "unknown executor \"%s\": the executors are local and daytona",
            name);
    return -1;
}

static int known_service(const char *name, char *list, size_t cap)
{
    const char *const *names = NULL;
    int known = 0;
    size_t o = 0;
    dval_service_names(&names);
    list[0] = '\0';
    for (size_t i = 0; names && names[i]; i++) {
        known |= !strcmp(names[i], name);
        int n = snprintf(list + o, cap - o, "%s%s", i ? ", " : "", names[i]);
        if (n > 0 && (size_t)n < cap - o)
            o += (size_t)n;
    }
    return known;
}

int check_services(const char *const *services, const char *const *seeds,
                   cli_problem *p)
{
    char list[256], hint[300];
    for (size_t i = 0; services[i]; i++)
        if (!known_service(services[i], list, sizeof list)) {
            snprintf(hint, sizeof hint, "the services are: %s", list);
            problem(p, CLI_EX_USAGE, hint, "unknown service \"%s\"",
                    services[i]);
            return -1;
        }
    if (seeds[0] && !services[0]) {
        problem(p, CLI_EX_USAGE, "add --service postgres (or sqlite): "
                "seeds are loaded into a service's database",
                "--seed without --service");
        return -1;
    }
    for (size_t i = 0; seeds[i]; i++) {
        struct stat st;
        const char *why = stat(seeds[i], &st) ? strerror(errno)
                          : !S_ISREG(st.st_mode) ? "not a regular file"
                          : access(seeds[i], R_OK) ? strerror(errno) : NULL;
        if (why) {
            problem(p, CLI_EX_NOINPUT, "give a readable SQL file",
                    "seed %s: %s", seeds[i], why);
            return -1;
        }
    }
    return 0;
}

int check_source_dir(const char *dir, cli_problem *p)
{
    struct stat st;
    if (stat(dir, &st)) {
        problem(p, CLI_EX_NOINPUT, "give the directory that holds the "
                "program's sources as the last argument",
                "source directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        problem(p, CLI_EX_USAGE, "give the directory that holds the file, "
                "not the file itself",
                "source directory %s is not a directory", dir);
        return -1;
    }
    if (access(dir, R_OK | X_OK)) {
        problem(p, CLI_EX_NOINPUT, "check the directory's permissions",
                "source directory %s cannot be read: %s", dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* Writable without creating it yet: a run that fails leaves no empty file. */
int check_output_file(const char *opt, const char *file, cli_problem *p)
{
    struct stat st;
    if (!stat(file, &st)) {
        if (S_ISDIR(st.st_mode)) {
            problem(p, CLI_EX_NOINPUT, "name a file inside it",
                    "%s %s is a directory", opt, file);
            return -1;
        }
        if (access(file, W_OK)) {
            problem(p, CLI_EX_NOINPUT, "choose a file you can write",
                    "%s %s cannot be written: %s", opt, file,
                    strerror(errno));
            return -1;
        }
        return 0;
    }
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", file);
    const char *dir = dirname(copy);
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        problem(p, CLI_EX_NOINPUT, "create the directory first, or choose "
                "another path", "%s %s: directory %s does not exist", opt,
                file, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK)) {
        problem(p, CLI_EX_NOINPUT, "choose a directory you can write",
                "%s %s: cannot create files in %s: %s", opt, file, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* A batch's --results: an existing directory files can be made in
 * (one per folder). */
int check_output_dir(const char *opt, const char *dir, cli_problem *p)
{
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        problem(p, CLI_EX_NOINPUT, "with several DIRs --results names a "
                "directory: create it first", "%s %s is not a directory",
                opt, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK)) {
        problem(p, CLI_EX_NOINPUT, "choose a directory you can write",
                "%s %s: cannot create files in it: %s", opt, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* The library's rule for thread ids: [A-Za-z0-9._-]{1,128}, not "."/".." */
int check_thread_id(const char *id, cli_problem *p)
{
    size_t n = strlen(id);
    int ok = n >= 1 && n <= 128 && strcmp(id, ".") && strcmp(id, "..") &&
             strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                        "0123456789._-") == n;
    if (ok)
        return 0;
    problem(p, CLI_EX_USAGE, "a thread id is 1 to 128 of A-Z a-z 0-9 . _ - "
            "(it names a directory in the sandbox)",
            "invalid thread id \"%s\"", id);
    return -1;
}

/* The library's rule for sandbox names (dval__check_name). */
int check_sandbox_name(const char *name, cli_problem *p)
{
    size_t n = strlen(name);
    int ok = n >= 1 && n <= 255 && !strstr(name, "..") &&
             !name[strcspn(name, "/\\?#% ")];
    for (size_t i = 0; ok && i < n; i++)
        ok = (unsigned char)name[i] >= 0x20 && name[i] != 0x7f;
    if (ok)
        return 0;
    problem(p, CLI_EX_USAGE, "sandbox names are 1 to 255 printable "
            "characters without '/', '\\', '?', '#', '%', a space or \"..\" "
            "(see `daytona-validate sandbox ls`)", "invalid sandbox name "
            "\"%s\"", name);
    return -1;
}
