/* Java time to verdict on the local executor (issue 16, goal 3): runs a
 * java validation N times in one process and prints the wall times.
 *   javabench STATE SRC N service|javac|cold
 * service: waits until the compile service answers, then times N runs
 *          that it compiles (fails if one falls back to javac);
 * javac:   times N runs forced onto the plain javac fallback;
 * cold:    times the first run of this process (on a running sandbox,
 *          whose init keeps the service: compiled by it, if it is up).
 * Prints {"mode":..,"ms":[..],"paths":{"service":n,"javac":n}}. Each run
 * traces which compiler answered (DVAL_JAVAC_TRACE=1 in the command). */
#include <dval.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "javac_service.h"

#define TRACE "export DVAL_JAVAC_TRACE=1; "

typedef struct { int service, javac, exit_code; } seen;

static void die(const char *m, const char *d)
{
    fprintf(stderr, "javabench: %s%s%s\n", m, d ? ": " : "", d ? d : "");
    exit(1);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int on_event(const dval_event *e, void *ud)
{
    seen *s = ud;
    if (e->type != DVAL_EVENT_OUTPUT || !e->data)
        return 0;
    if (memmem(e->data, e->len, "dval-javac: service", 19))
        s->service++;
    if (memmem(e->data, e->len, "dval-javac: javac", 17))
        s->javac++;
    if (getenv("BENCH_VERBOSE"))
        fwrite(e->data, 1, e->len, stderr);
    return 0;
}

static double one(dval_client *c, const char *src, const char *cmd, seen *s)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "java";
    v.source_dir = src;
    v.run_command = cmd;
    v.release = DVAL_RELEASE_KEEP;
    char *json = NULL;
    double t0 = now_ms();
    int rc = dval_validate(c, &v, on_event, s, &json);
    double ms = now_ms() - t0;
    if (rc)
        die("validate", dval_client_errmsg(c));
    if (!strstr(json, "\"exit_code\":0"))
        die("the program failed", json);
    if (getenv("BENCH_VERBOSE")) {
        const char *t = strstr(json, "\"timings_ms\"");
        fprintf(stderr, "javabench: %.1f ms %s\n", ms, t ? t : json);
    }
    dval_free(json);
    return ms;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        die("usage: javabench STATE SRC N service|javac|cold", NULL);
    const char *mode = argv[4];
    int n = atoi(argv[3]);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = argv[1];
    o.local = &lo;
    dval_client *c;
    if (dval_client_new(&c, &o))
        die("client", NULL);
    const char *cmd = !strcmp(mode, "javac")
                          ? TRACE "export DVAL_JAVAC_SERVICE=0; " JAVA_BUILD_AND_RUN
                          : TRACE JAVA_BUILD_AND_RUN;
    if (getenv("JAVABENCH_PREFIX")) { /* e.g. timing probes */
        static char buf[16384];
        snprintf(buf, sizeof buf, "%s%s", getenv("JAVABENCH_PREFIX"), cmd);
        cmd = buf;
    }
    seen s = { 0, 0, 0 };
    if (!strcmp(mode, "cold"))
        n = 1;
    if (!strcmp(mode, "service")) { /* warm: until the service answers */
        for (int i = 0; i < 60 && !s.service; i++)
            one(c, argv[2], cmd, &s);
        if (!s.service)
            die("the compile service never answered", NULL);
        s.service = s.javac = 0;
    }
    printf("{\"mode\":\"%s\",\"ms\":[", mode);
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? "," : "", one(c, argv[2], cmd, &s));
    printf("],\"paths\":{\"service\":%d,\"javac\":%d}}\n", s.service, s.javac);
    if (!strcmp(mode, "service") && s.javac)
        die("a warm run fell back to javac", NULL);
    dval_client_free(c);
    return 0;
}
