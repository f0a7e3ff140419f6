/* The CPU a command's processes used together, and its budget, for the
 * waiter (exec.c) and the init (init_cmd.c), which bound it (RLIMIT_CPU
 * bounds each process only: a program that forks multiplies it). Every
 * process the command started is either reaped by the one watching it
 * (the reaped child's rusage holds what it reaped in turn) or still a
 * descendant in /proc, with its own time and that of the children it
 * reaped. */
#include "helper.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
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

/* Whether list[i] descends from self, not through a process skip
 * names: up its parents until self, a skipped process, one already
 * decided, or one outside the list; the walk's result is kept for every
 * process on it (mark: 0 unknown, 1 yes, 2 no, 3 on this walk), so each
 * process is walked once. */
static int descends(const struct proc *list, int n, char *mark, int i,
                    long self, int (*skip)(long pid))
{
    int verdict = 2, j = i;
    while (j >= 0 && mark[j] == 0) {
        mark[j] = 3;
        if (skip && skip(list[j].pid))
            break;
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
static long long descendants_ticks(struct proc *list, int n, long self,
                                   int (*skip)(long pid))
{
    long long sum = 0;
    char *mark = calloc((size_t)n + 1, 1);
    if (!mark)
        return 0;
    qsort(list, (size_t)n, sizeof *list, by_pid);
    for (int i = 0; i < n; i++)
        if (descends(list, n, mark, i, self, skip))
            sum += list[i].ticks;
    free(mark);
    return sum;
}

long long descendants_cpu_ms(int (*skip)(long pid))
{
    struct proc *list = malloc(MAX_PROCS * sizeof *list);
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    long long ms = 0;
    while (list && d && n < MAX_PROCS && (e = readdir(d)))
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            n += read_proc(e->d_name, &list[n]);
    if (d)
        closedir(d);
    long hz = sysconf(_SC_CLK_TCK);
    if (list && hz > 0)
        ms = descendants_ticks(list, n, (long)getpid(), skip) * 1000 / hz;
    free(list);
    return ms;
}

long long tree_cpu_ms(void)
{
    struct rusage ru;
    long long ms = 0;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
        ms = rusage_ms(&ru);
    return ms + descendants_cpu_ms(NULL);
}

long long rusage_ms(const struct rusage *ru)
{
    return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000LL +
           (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
}

/* The budget. CPU time grows by at most ncpu ms per ms, so the next
 * look is when the rest could be spent, 10 ms at the soonest. Over only
 * when two looks in a row say so (the second 10 ms later): a process
 * reaped between reading it and its parent is counted twice for that
 * one look. */
static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void budget_start(struct budget *b, long long cpu_ms, long ncpu)
{
    b->limit = cpu_ms;
    b->ncpu = ncpu > 0 ? ncpu : 1;
    b->next = mono_ms() + cpu_ms / b->ncpu;
    b->over = 0;
}

int budget_wait(const struct budget *b)
{
    if (b->limit <= 0)
        return -1;
    long long left = b->next - mono_ms();
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

int budget_spent(struct budget *b, long long (*used)(void *ctx), void *ctx)
{
    if (b->limit <= 0 || mono_ms() < b->next)
        return 0;
    long long left = b->limit - used(ctx);
    b->over = left < 0 ? b->over + 1 : 0;
    b->next = mono_ms() + (left / b->ncpu > 10 ? left / b->ncpu : 10);
    return b->over >= 2;
}
