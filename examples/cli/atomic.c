/* A file written whole or not at all: the bytes go to a temporary file
 * beside it (same directory, so same filesystem), which replaces the file
 * by rename only once every byte is written and synced. A failure at any
 * point (disk full, file size limit, a signal) leaves the old file, or no
 * file, never a truncated one that looks complete. The file gets the
 * mode a plain create would (0666 less the umask). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* "<dir>/.<name>.XXXXXX" into tmp */
static int temp_name(const char *file, char *tmp, size_t cap)
{
    char d[PATH_MAX], b[PATH_MAX];
    snprintf(d, sizeof d, "%s", file);
    snprintf(b, sizeof b, "%s", file);
    int n = snprintf(tmp, cap, "%s/.%s.XXXXXX", dirname(d), basename(b));
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The umask, read without changing it (umask(2) can only set it, and a
 * batch writes from several threads): 022 when it cannot be read. */
static mode_t process_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    unsigned m = 022;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &m) == 1)
            break;
    if (f)
        fclose(f);
    return (mode_t)m;
}

int write_atomic(const char *file, void (*emit)(FILE *, void *), void *ud)
{
    char tmp[PATH_MAX + 16];
    if (temp_name(file, tmp, sizeof tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    FILE *f = fchmod(fd, 0666 & ~process_umask()) ? NULL : fdopen(fd, "w");
    if (!f) {
        close(fd);
    } else {
        emit(f, ud);
        int bad = fflush(f) || ferror(f) || fsync(fileno(f));
        int e = errno;
        if (!fclose(f) && !bad && !rename(tmp, file))
            return 0;
        errno = bad ? e : errno;
    }
    int e = errno;
    unlink(tmp);
    errno = e;
    return -1;
}

typedef struct json_text {
    const char *val;
    size_t len;
} json_text;

static void emit_json(FILE *f, void *ud)
{
    const json_text *t = ud;
    jt_pretty(f, t->val, t->len);
    fputc('\n', f);
}

int write_results_doc(const char *file, const char *summary)
{
    json_text t = { "{}", 2 };
    jt_member(summary, "results", &t.val, &t.len);
    if (!file) {
        emit_json(stdout, &t);
        return fflush(stdout) || ferror(stdout) ? -1 : 0;
    }
    if (write_atomic(file, emit_json, &t))
        return -1;
    return write_results_files(file, summary);
}
