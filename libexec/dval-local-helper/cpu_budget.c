/* The CPU a command's processes used together, for the waiter (exec.c),
 * which bounds it (RLIMIT_CPU bounds each process only: a program that
 * forks multiplies it). The waiter is the command's child subreaper, so
 * every process the command started is either reaped by it (its
 * children's rusage, which holds what they reaped in turn) or still a
 * descendant in /proc, with its own time and that of the children it
 * reaped. */
#include "helper.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_PROCS 8192

struct proc {
    long pid, ppid;
    long long ticks;    /* utime + stime + cutime + cstime */
};

/* pid, ppid and the four times from /proc/<name>/stat; 0 when gone */
static int read_proc(const char *name, struct proc *p)
{
    char path[300], st[1024];
    snprintf(path, sizeof path, "/proc/%.*s/stat", 200, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, st, sizeof st - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    st[n] = 0;
    /* the name may hold ')' and spaces too: the last ')' ends it */
    char *s = strrchr(st, ')');
    if (!s || s[1] != ' ')
        return 0;
    long long f[15] = { 0 };
    s += 2; /* fields from the state on: f[1] ppid, f[11..14] the times */
    for (int i = 0; i < 15 && *s; i++) {
        f[i] = i == 0 ? 0 : strtoll(s, NULL, 10);
        s += strcspn(s, " ");
        s += *s == ' ';
    }
    p->pid = atol(name);
    p->ppid = (long)f[1];
    p->ticks = f[11] + f[12] + f[13] + f[14];
    return 1;
}

static int by_pid(const void *a, const void *b)
{
    long x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;
    return (x > y) - (x < y);
}

static int index_of(const struct proc *list, int n, long pid)
{
    struct proc key = { pid, 0, 0 };
    const struct proc *p = bsearch(&key, list, (size_t)n, sizeof *list,
                                   by_pid);
    return p ? (int)(p - list) : -1;
}

/* Whether list[i] descends from self: up its parents until self, a
 * process already decided, or one outside the list; the walk's result
 * is kept for every process on it (mark: 0 unknown, 1 yes, 2 no, 3 on
 * this walk), so each process is walked once. */
static int descends(const struct proc *list, int n, char *mark, int i,
                    long self)
{
    int verdict = 2, j = i;
    while (j >= 0 && mark[j] == 0) {
        mark[j] = 3;
        if (list[j].ppid == self) {
            verdict = 1;
            break;
        }
        j = index_of(list, n, list[j].ppid);
    }
    if (j >= 0 && (mark[j] == 1 || mark[j] == 2))
        verdict = mark[j];
    for (j = i; j >= 0 && mark[j] == 3; j = index_of(list, n, list[j].ppid))
        mark[j] = (char)verdict;
    return verdict == 1;
}

/* Clock ticks of every descendant of self in list (n entries). */
static long long descendants_ticks(struct proc *list, int n, long self)
{
    long long sum = 0;
    char *mark = calloc((size_t)n + 1, 1);
    if (!mark)
        return 0;
    qsort(list, (size_t)n, sizeof *list, by_pid);
    for (int i = 0; i < n; i++)
        if (descends(list, n, mark, i, self))
            sum += list[i].ticks;
    free(mark);
    return sum;
}

long long tree_cpu_ms(void)
{
    struct rusage ru;
    long long ms = 0;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
        ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
    struct proc *list = malloc(MAX_PROCS * sizeof *list);
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (list && d && n < MAX_PROCS && (e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            n += read_proc(e->d_name, &list[n]);
    if (d)
        closedir(d);
    long hz = sysconf(_SC_CLK_TCK);
    if (list && hz > 0)
        ms += descendants_ticks(list, n, (long)getpid()) * 1000 / hz;
    free(list);
    return ms;
}
