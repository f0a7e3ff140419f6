/* C# time to verdict on the local executor (issue 38): runs a dotnet
 * validation N times in one process and prints the wall times.
 *   dotnetbench STATE SRC N service|full|plain|cold
 * service: waits until the compile service answers, then times N runs it
 *          builds (fails if one is built otherwise);
 * full:    N runs forced onto the full offline `dotnet build`;
 * plain:   N runs of plain `dotnet build && dotnet run` in the same
 *          sandbox (offline, from the snapshot's packages, like full);
 * cold:    N validations with isolation=sandbox, each the first of a
 *          sandbox made for it (timed from before its creation) and
 *          deleted after it.
 * Prints {"mode":..,"ms":[..],"paths":{"service":n,"build":n}}. */
#include <dval.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACE "DVAL_CSC_TRACE=1; export DVAL_CSC_TRACE; "
#define RUN "sh /opt/dval-dotnet/build.sh 1>&2 && exec sh /opt/dval-dotnet/run.sh"
#define PLAIN                                                               \
    ". /opt/dval-dotnet/env.sh; mkdir -p obj/.t && export TMPDIR=$PWD/obj/.t; " \
    "dotnet build --nologo -v q -p:RestoreConfigFile=/opt/dval-dotnet/"     \
    "offline.config 1>&2 && dotnet run"

typedef struct { int service, build; } seen;

static void die(const char *m, const char *d)
{
    fprintf(stderr, "dotnetbench: %s%s%s\n", m, d ? ": " : "", d ? d : "");
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
    s->service += memmem(e->data, e->len, "dval-csc: service", 17) != NULL;
    s->build += memmem(e->data, e->len, "dval-csc: dotnet build", 22) != NULL;
    if (getenv("BENCH_VERBOSE"))
        fwrite(e->data, 1, e->len, stderr);
    return 0;
}

/* One validation, timed; iso DVAL_ISOLATION_SANDBOX: with a sandbox of
 * its own, created for it inside the timed call and deleted after. */
static double one(dval_client *c, const char *src, const char *cmd, int iso,
                  seen *s)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = "dotnet";
    v.source_dir = src;
    v.run_command = cmd;
    v.isolation = iso;
    char *json = NULL;
    double t0 = now_ms();
    int rc = dval_validate(c, &v, on_event, s, &json);
    double ms = now_ms() - t0;
    if (rc)
        die("validate", dval_client_errmsg(c));
    if (!strstr(json, "\"exit_code\":0"))
        die("the program failed", json);
    dval_free(json);
    return ms;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        die("usage: dotnetbench STATE SRC N service|full|plain|cold", NULL);
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
    const char *cmd = !strcmp(mode, "full") ? TRACE "DVAL_CSC=0; export DVAL_CSC; " RUN
                      : !strcmp(mode, "plain") ? PLAIN : TRACE RUN;
    seen s = { 0, 0 };
    if (strcmp(mode, "cold")) { /* warm: until the service answers */
        for (int i = 0; i < 60 && !s.service; i++)
            one(c, argv[2], TRACE RUN, DVAL_ISOLATION_SESSION, &s);
        if (!s.service)
            die("the compile service never answered", NULL);
        s.service = s.build = 0;
    }
    printf("{\"mode\":\"%s\",\"ms\":[", mode);
    int iso = strcmp(mode, "cold") ? DVAL_ISOLATION_SESSION
                                   : DVAL_ISOLATION_SANDBOX;
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? "," : "", one(c, argv[2], cmd, iso, &s));
    printf("],\"paths\":{\"service\":%d,\"build\":%d}}\n", s.service, s.build);
    if (!strcmp(mode, "service") && s.build)
        die("a warm run was not built by the service", NULL);
    dval_client_free(c);
    return 0;
}
