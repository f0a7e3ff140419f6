/* A file written whole or not at all: the bytes go to a temporary file
 * beside it (same directory, so same filesystem), which replaces the file
 * by rename only once every byte is written and synced. A failure at any
 * point (disk full, file size limit, a signal) leaves the old file, or no
 * file, never a truncated one that looks complete. */
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
    mode_t um = umask(0);
    umask(um);
    FILE *f = fchmod(fd, 0666 & ~um) ? NULL : fdopen(fd, "w");
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
