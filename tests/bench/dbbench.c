/* Section 9 of `make bench` (BENCH_ONLY=db, tests/bench/db.sh): the
 * database services on the local executor.
 *   start      a new sandbox of the services' snapshot: its acquire, then
 *              how long until its first validation has a database (the
 *              service starts with the sandbox); beside a sandbox of the
 *              same profile without services
 *   provision  a fresh database for one validation, timed inside the
 *              sandbox around the services' wrapper running `true`:
 *              validations 0.2 s apart, back to back, sqlite's copy, and
 *              a bare perl start (the wrapper's floor)
 *   validate   dval_validate of `true` with the services and without
 * Usage: dbbench STATE N; prints one JSON document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dval.h"
#include "services.h"

static const char *const svc[] = {"postgres", "sqlite", NULL};
static const char *const seeds[] = {"examples/validation/db/schema.sql",
                                    "examples/validation/db/data.sql", NULL};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int collect(int stream, const char *ch, const char *d, size_t n,
                   void *ud)
{
    (void)ch;
    char *out = ud;
    size_t have = strlen(out);
    if (stream == DVAL_STDOUT && have + n < 65536) {
        memcpy(out + have, d, n);
        out[have + n] = 0;
    }
    return 0;
}

/* cmd in a new session of sb; its stdout into out (64 KiB). */
static int sh(dval_sandbox *sb, const char *cmd, char *out)
{
    dval_session *s = NULL;
    int code = -1;
    out[0] = 0;
    if (dval_session_open(&s, sb) == DVAL_OK)
        dval_session_exec(s, cmd, NULL, collect, out, &code);
    dval_session_close(s);
    dval_session_free(s);
    return code;
}

static int validate(dval_client *c, const char *sandbox, int with)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "shell";
    v.source_dir = "tests/bench";
    v.sandbox_name = sandbox;
    v.run_command = "true";
    v.allow_missing_results = 1;
    v.services = with ? svc : NULL;
    v.seeds = with ? seeds : NULL;
    char *sum = NULL;
    int rc = dval_validate(c, &v, NULL, NULL, &sum);
    if (rc)
        fprintf(stderr, "dbbench: %s\n", dval_client_errmsg(c));
    dval_free(sum);
    return rc;
}

/* A new sandbox of snapshot: acquire ms, then ms until cmd ran. */
static void start(dval_client *c, const char *name, const char *snapshot,
                  const char *cmd, double *acq, double *ready)
{
    static char out[65536];
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = name;
    o.snapshot = snapshot;
    o.release = DVAL_RELEASE_DELETE;
    dval_sandbox *sb = NULL;
    double t0 = now_ms();
    if (dval_sandbox_acquire(&sb, c, &o) != DVAL_OK) {
        fprintf(stderr, "dbbench: %s\n", dval_client_errmsg(c));
        exit(1);
    }
    double t1 = now_ms();
    sh(sb, cmd, out);
    *acq = t1 - t0;
    *ready = now_ms() - t1;
    dval_sandbox_release(sb);
    dval_sandbox_free(sb);
}

static void list(const char *key, const double *v, int n, int last)
{
    printf("\"%s\":[", key);
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? "," : "", v[i]);
    printf("]%s", last ? "" : ",");
}

/* A loop of n timed runs of cmd inside sandbox sb (pause s between). */
static void inside(dval_sandbox *sb, const char *key, const char *cmd,
                   int n, const char *pause, int last)
{
    static char out[65536];
    char loop[1024];
    snprintf(loop, sizeof loop, "for i in $(seq %d); do sleep %s; "
             "t=$(date +%%s%%N); %s; echo $(( ($(date +%%s%%N) - t) / 1000 ))"
             "; done", n, pause, cmd);
    sh(sb, loop, out);
    double v[512];
    int k = 0;
    for (char *p = strtok(out, "\n"); p && k < 512; p = strtok(NULL, "\n"))
        v[k++] = atof(p) / 1000;
    list(key, v, k, last);
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 30;
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = argv[1];
    co.local = &lo;
    dval_client *c = NULL;
    if (dval_client_new(&c, &co) || validate(c, "dbb-warm", 1) ||
        validate(c, "dbb-plain", 0))
        return 1;
    dval__svcset set;
    char msg[256], snap[DVAL_ID_MAX];
    if (dval__svcset_load(&set, svc, seeds, msg, sizeof msg))
        return fprintf(stderr, "dbbench: %s\n", msg), 1;
    dval__svcset_name(&set, dval_profile_find("shell")->snapshot_name, snap,
                      sizeof snap);
    const char *plain = dval_profile_find("shell")->snapshot_name;
    double acq[16], ready[16], pacq[16], pready[16];
    int k = n / 5 < 16 ? (n / 5 > 2 ? n / 5 : 3) : 16;
    for (int i = 0; i < k; i++) {
        start(c, "dbb-start", snap, "perl /opt/dval-svc/postgres/provision true",
              &acq[i], &ready[i]);
        start(c, "dbb-start-plain", plain, "true", &pacq[i], &pready[i]);
    }
    printf("{\"start\":{");
    list("acquire_ms", acq, k, 0);
    list("first_database_ms", ready, k, 0);
    list("plain_acquire_ms", pacq, k, 0);
    list("plain_first_exec_ms", pready, k, 1);
    printf("},\"provision\":{");
    dval_sandbox *sb = NULL;
    char name[DVAL_ID_MAX];
    dval__svcset_name(&set, "dbb-warm", name, sizeof name);
    if (dval_sandbox_get(&sb, c, name) != DVAL_OK)
        return 1;
    inside(sb, "spaced_ms", "perl /opt/dval-svc/postgres/provision true", n,
           "0.2", 0);
    inside(sb, "back_to_back_ms", "perl /opt/dval-svc/postgres/provision true",
           n, "0", 0);
    inside(sb, "sqlite_ms", "sh /opt/dval-svc/sqlite/provision true", n, "0", 0);
    inside(sb, "perl_ms", "perl -e 1", n, "0", 1);
    printf("},\"validate\":{");
    double with[512], without[512];
    for (int i = 0; i < n && i < 512; i++) {
        double t0 = now_ms();
        validate(c, "dbb-warm", 1);
        with[i] = now_ms() - t0;
        t0 = now_ms();
        validate(c, "dbb-plain", 0);
        without[i] = now_ms() - t0;
    }
    list("with_services_ms", with, n, 0);
    list("without_ms", without, n, 1);
    printf("}}\n");
    dval_sandbox_delete(sb);
    dval_sandbox_free(sb);
    dval_sandbox *p = NULL;
    if (dval_sandbox_get(&p, c, "dbb-plain") == DVAL_OK)
        dval_sandbox_delete(p);
    dval_sandbox_free(p);
    dval__svcset_free(&set);
    dval_client_free(c);
    return 0;
}
