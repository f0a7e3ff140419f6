/* Runs Java programs (one directory each) through the library, JOBS at
 * once, and keeps each one's stdout for a byte-for-byte comparison:
 *   corpusrun STATE session|sandbox|plain JOBS OUTDIR DIR...
 * session/sandbox: the java profile's run command with that isolation;
 * plain: plain `javac` + `java` as a separate command in the same
 * snapshot's sandbox (the reference). Writes OUTDIR/<dir name>.out and
 * .rc, and prints {"mode":..,"n":..,"failed":..,"wall_ms":..,"per_s":..}. */
#include <dval.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static dval_client *client;
static const char *mode, *outdir;
static char **dirs;
static int ndirs;
static atomic_int next, failed;

typedef struct { char *d; size_t n, cap; } buf;

static int on_event(const dval_event *e, void *ud)
{
    buf *b = ud;
    if (e->type != DVAL_EVENT_OUTPUT || e->stream != DVAL_STDOUT)
        return 0;
    if (b->n + e->len > b->cap) {
        b->cap = (b->n + e->len) * 2;
        b->d = realloc(b->d, b->cap);
    }
    memcpy(b->d + b->n, e->data, e->len);
    b->n += e->len;
    return 0;
}

static void one(const char *dir)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "java";
    v.source_dir = dir;
    v.allow_missing_results = 1;
    v.timeout_ms = 120000;
    v.isolation = !strcmp(mode, "sandbox") ? DVAL_ISOLATION_SANDBOX
                                           : DVAL_ISOLATION_SESSION;
    if (!strcmp(mode, "plain"))
        v.run_command = "javac -d x Main.java && exec java -cp x Main";
    buf b = { NULL, 0, 0 };
    char *json = NULL, p[4096];
    int rc = dval_validate(client, &v, on_event, &b, &json);
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    snprintf(p, sizeof p, "%s/%s.out", outdir, base);
    FILE *f = fopen(p, "wb");
    if (f && b.n)
        fwrite(b.d, 1, b.n, f);
    if (f)
        fclose(f);
    snprintf(p, sizeof p, "%s/%s.rc", outdir, base);
    if ((f = fopen(p, "w"))) {
        fprintf(f, "%d %s\n", rc, rc ? dval_client_errmsg(client) : "");
        fclose(f);
    }
    if (rc)
        atomic_fetch_add(&failed, 1);
    free(b.d);
    dval_free(json);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i; (i = atomic_fetch_add(&next, 1)) < ndirs;)
        one(dirs[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: corpusrun STATE MODE JOBS OUTDIR DIR...\n");
        return 2;
    }
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = argv[1];
    o.local = &lo;
    if (dval_client_new(&client, &o))
        return fprintf(stderr, "corpusrun: no client\n"), 1;
    mode = argv[2];
    int jobs = atoi(argv[3]);
    outdir = argv[4];
    dirs = argv + 5;
    ndirs = argc - 5;
    pthread_t t[64];
    jobs = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;
    struct timespec a, z;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < jobs; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < jobs; i++)
        pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &z);
    double ms = (z.tv_sec - a.tv_sec) * 1e3 + (z.tv_nsec - a.tv_nsec) / 1e6;
    printf("{\"mode\":\"%s\",\"n\":%d,\"failed\":%d,\"wall_ms\":%.0f,"
           "\"per_s\":%.3f}\n", mode, ndirs, atomic_load(&failed), ms,
           ndirs / (ms / 1e3));
    dval_client_free(client);
    return 0;
}
