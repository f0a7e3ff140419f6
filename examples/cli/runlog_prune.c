/* Run transcripts are kept within a bound: the newest RUNLOG_KEEP of
 * them, and at most RUNLOG_KEEP_BYTES together (each is at most 16 MiB,
 * runlog.c); the oldest (by modification time) go first, whenever a run
 * opens its own, which is never removed. Before, every run added one for
 * good: a pipeline of thousands of runs filled the state directory. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

typedef struct entry {
    char name[256];
    struct timespec mtime;
    off_t size;
} entry;

static int newest_first(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec < b->mtime.tv_sec ? 1 : -1;
    if (a->mtime.tv_nsec != b->mtime.tv_nsec)
        return a->mtime.tv_nsec < b->mtime.tv_nsec ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* Every "*.log" of dir but keep, into *out (caller frees); their count. */
static size_t list(DIR *d, const char *keep, entry **out)
{
    size_t n = 0, cap = 0;
    entry *v = NULL;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= sizeof v->name || strcmp(e->d_name + len - 4,
            ".log") || !strcmp(e->d_name, keep) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            entry *w = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
            if (!w)
                break;
            v = w;
        }
        snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
        v[n].mtime = st.st_mtim;
        v[n++].size = st.st_size;
    }
    *out = v;
    return n;
}

void runlog_prune(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    entry *v = NULL;
    size_t n = list(d, keep, &v);
    if (n) /* qsort's base must not be NULL, even for no element */
        qsort(v, n, sizeof *v, newest_first);
    long long bytes = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += v[i].size;
        /* the run's own counts as one of the RUNLOG_KEEP */
        if (i + 1 >= RUNLOG_KEEP || bytes > RUNLOG_KEEP_BYTES)
            unlinkat(dirfd(d), v[i].name, 0);
    }
    free(v);
    closedir(d);
}
