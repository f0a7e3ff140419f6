/* The machine's floor for the local executor's throughput (POOL.md): how
 * many processes it can start per second, with one spawner and with P at
 * once. Every validation on the local executor starts a handful (the
 * helper, its waiter, sh, the program's own), so on a machine where
 * process creation does not scale across cores (a PVM guest: page-table
 * updates are hypercalls) the pool cannot either, whatever the library
 * does. P processes each posix_spawn /bin/true N times and wait for it.
 * Prints one JSON line. Not a timed test. Usage: spawnfloor N P */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int spawner(int n)
{
    char *argv[] = { "/bin/true", NULL };
    for (int i = 0; i < n; i++) {
        pid_t p;
        int st;
        if (posix_spawn(&p, argv[0], NULL, NULL, argv, environ) != 0 ||
            waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[1]), par = atoi(argv[2]), bad = 0;
    if (n <= 0 || par <= 0)
        return 2;
    double t0 = now_s();
    for (int i = 0; i < par; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(spawner(n));
        if (p < 0)
            return 1;
    }
    int st;
    while (wait(&st) > 0)
        bad |= !WIFEXITED(st) || WEXITSTATUS(st);
    double wall = now_s() - t0;
    struct rusage r;
    getrusage(RUSAGE_CHILDREN, &r);
    double cpu = (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
                 (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
    printf("{\"executor\":\"machine\",\"what\":\"spawn\",\"parallel\":%d,"
           "\"spawns\":%d,\"failed\":%d,\"per_s\":%.1f,"
           "\"cpu_ms_per_spawn\":%.3f}\n", par, n * par, bad,
           (double)n * par / wall, cpu * 1000 / ((double)n * par));
    return bad;
}
