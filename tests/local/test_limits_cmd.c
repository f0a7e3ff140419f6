/* Limits of a validation's own processes (issue 39, items 3 and 4): a
 * cgroup per command on the local executor, inside the sandbox's, whose
 * OOM count gives "memory_limit", whose CPU time gives "time_limit"
 * (cpu), whose figures are the phases' usage, and which holds one
 * validation without touching its neighbour in a shared sandbox. */
#include "lt.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct vreq {
    const char *dir;
    int32_t memory_mib, pids;
    int64_t cpu_ms;
    json_t *sum;            /* out: the summary */
    dval_client *c;
} vreq;

static void validate(vreq *r)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = r->dir;
    req.memory_mib = r->memory_mib;
    req.max_processes = r->pids;
    req.cpu_time_ms = r->cpu_ms;
    req.allow_missing_results = 1;
    char *sum = NULL;
    dval_validate(r->c, &req, NULL, NULL, &sum);
    CHECK(sum != NULL);
    r->sum = json_loads(sum, 0, NULL);
    dval_free(sum);
    CHECK(r->sum != NULL);
}

static const char *str(json_t *j, const char *k)
{
    return json_string_value(json_object_get(j, k));
}

/* The run phase's usage, or its figure key */
static json_t *run_usage(json_t *sum, const char *key)
{
    json_t *u = json_object_get(json_object_get(json_object_get(sum,
                                "phases"), "run"), "usage");
    return key ? json_object_get(u, key) : u;
}

static void expect(vreq *r, const char *verdict, const char *detail)
{
    validate(r);
    if (strcmp(str(r->sum, "verdict"), verdict)) {
        char *u = json_dumps(run_usage(r->sum, NULL), JSON_COMPACT);
        th_fail(__FILE__, __LINE__, "verdict %s (%s), expected %s; usage %s",
                str(r->sum, "verdict"), str(r->sum, "verdict_detail"),
                verdict, u ? u : "?");
        free(u);
    }
    CHECK_CONTAINS(str(r->sum, "verdict_detail"), detail);
}

/* dd's buffer is one block: bs bytes, all of them touched */
#define TOUCH_100M "dd if=/dev/zero of=/dev/null bs=100M count=2 2>/dev/null\n"

TEST(test_limits_cmd__past_the_memory_limit_is_memory_limit)
{
    lt t;
    lt_open(&t, "limits-mem");
    vreq r = { .c = lt_client(&t), .memory_mib = 64 };
    r.dir = lt_shell_dir(&t, "mem", TOUCH_100M "echo survived\n");
    expect(&r, "memory_limit", "its 64 MiB memory limit");
    CHECK(json_integer_value(run_usage(r.sum, "oom_kills")) >= 1);
    json_decref(r.sum);
    /* the same program within a larger limit passes */
    r.memory_mib = 256;
    r.dir = lt_shell_dir(&t, "mem-ok", TOUCH_100M);
    expect(&r, "passed", "built, ran");
    CHECK_INT(json_integer_value(run_usage(r.sum, "oom_kills")), 0);
    json_decref(r.sum);
    dval_client_free(r.c);
    lt_close(&t);
}

TEST(test_limits_cmd__a_cpu_burner_is_time_limit_cpu)
{
    lt t;
    lt_open(&t, "limits-cpu");
    vreq r = { .c = lt_client(&t), .cpu_ms = 1000 };
    r.dir = lt_shell_dir(&t, "burn", "while :; do :; done\n");
    int64_t t0 = dval__now_ms();
    expect(&r, "time_limit", "cpu:");
    CHECK(dval__now_ms() - t0 < 30000);
    /* RLIMIT_CPU's tick count runs ahead of the cgroup's exact one */
    json_int_t used = json_integer_value(run_usage(r.sum, "cpu_ms"));
    if (used < 750 || used > 2500)
        th_fail(__FILE__, __LINE__, "cpu_ms %lld for a 1 s limit",
                (long long)used);
    json_decref(r.sum);
    dval_client_free(r.c);
    lt_close(&t);
}

/* The shell's own count of its CPU (times: itself and its children, in
 * clock ticks) against the cgroup's; dd's 100 MiB block against the
 * peak. */
TEST(test_limits_cmd__usage_figures_are_the_programs)
{
    lt t;
    lt_open(&t, "limits-usage");
    vreq r = { .c = lt_client(&t) };
    r.dir = lt_shell_dir(&t, "use", "dd if=/dev/zero of=/dev/null bs=100M "
                      "count=1 2>/dev/null\n"
                      "i=0; while [ $i -lt 800000 ]; do i=$((i+1)); done\n"
                      "times\n");
    expect(&r, "passed", "built, ran");
    json_t *run = json_object_get(json_object_get(r.sum, "phases"), "run");
    const char *out = str(run, "stdout");
    int m[4];
    double s[4];
    CHECK(sscanf(out, "%dm%lfs %dm%lfs %dm%lfs %dm%lfs", &m[0], &s[0], &m[1],
                 &s[1], &m[2], &s[2], &m[3], &s[3]) == 8);
    double own = 0;
    for (int i = 0; i < 4; i++)
        own += m[i] * 60000.0 + s[i] * 1000.0;
    json_int_t cpu = json_integer_value(run_usage(r.sum, "cpu_ms"));
    json_int_t user = json_integer_value(run_usage(r.sum, "user_ms"));
    json_int_t sys = json_integer_value(run_usage(r.sum, "sys_ms"));
    json_int_t peak = json_integer_value(run_usage(r.sum,
                                                   "peak_memory_bytes"));
    json_int_t wall = json_integer_value(run_usage(r.sum, "wall_ms"));
    fprintf(stderr, "usage: cpu %lld ms (user %lld, sys %lld; the shell "
            "says %.0f), peak %lld bytes, wall %lld ms\n", (long long)cpu,
            (long long)user, (long long)sys, own, (long long)peak,
            (long long)wall);
    CHECK(own >= 300); /* ~1 s here, less on a faster machine */
    if (cpu < own * 0.9 - 20 || cpu > own * 1.1 + 20)
        th_fail(__FILE__, __LINE__, "cpu_ms %lld, the shell says %.0f",
                (long long)cpu, own);
    CHECK(user + sys <= cpu + 20 && user + sys >= cpu - 20);
    if (peak < (100LL << 20) || peak > (115LL << 20))
        th_fail(__FILE__, __LINE__, "peak %lld for a 100 MiB block",
                (long long)peak);
    CHECK(wall >= cpu * 9 / 10);
    json_decref(r.sum);
    dval_client_free(r.c);
    lt_close(&t);
}

static void *validate_thread(void *p)
{
    validate(p);
    return NULL;
}

/* Two validations at once in one (the profile's shared) sandbox: the one
 * limited to 64 MiB is killed at it, its neighbour allocating the same
 * at the same time is not. */
TEST(test_limits_cmd__a_limit_holds_its_validation_not_its_neighbour)
{
    lt t;
    lt_open(&t, "limits-shared");
    dval_client *c = lt_client(&t);
    const char *script = "sleep 1\n" TOUCH_100M "sleep 1\n";
    vreq a = { .c = c, .memory_mib = 64 }, b = { .c = c };
    a.dir = lt_shell_dir(&t, "a", script);
    b.dir = lt_shell_dir(&t, "b", script);
    vreq warm = { .c = c, .dir = lt_shell_dir(&t, "warm", "true\n") };
    validate(&warm); /* the snapshot and the sandbox, once */
    json_decref(warm.sum);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, validate_thread, &a) == 0);
    validate(&b);
    pthread_join(th, NULL);
    CHECK_STR(str(a.sum, "sandbox"), str(b.sum, "sandbox"));
    CHECK_STR(str(a.sum, "verdict"), "memory_limit");
    CHECK_STR(str(b.sum, "verdict"), "passed");
    json_int_t peak = json_integer_value(run_usage(b.sum,
                                                   "peak_memory_bytes"));
    CHECK(peak >= (100LL << 20));
    json_decref(a.sum);
    json_decref(b.sum);
    dval_client_free(c);
    lt_close(&t);
}

/* The JVM reads its heap's default (a quarter of the memory it sees)
 * from the command's own cgroup, shown at /sys/fs/cgroup: under a
 * 512 MiB limit it is at most 128 MiB, not a quarter of the host's. */
TEST(test_limits_cmd__the_jvm_sizes_its_heap_from_the_limit)
{
    lt t;
    lt_open(&t, "limits-jvm");
    dval_client *c = lt_client(&t);
    const char *dir = lt_shell_dir(&t, "jvm", "unused\n");
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "java";
    req.source_dir = dir;
    req.run_command = "java -XX:+PrintFlagsFinal -version | "
                      "grep -w MaxHeapSize";
    req.memory_mib = 512;
    req.allow_missing_results = 1;
    char *sum = NULL;
    int rc = dval_validate(c, &req, NULL, NULL, &sum);
    if (rc == DVAL_EUNSUPPORTED)
        th_skip("no java profile on this executor");
    CHECK(sum != NULL);
    json_t *j = json_loads(sum, 0, NULL);
    dval_free(sum);
    CHECK(j != NULL);
    const char *out = str(json_object_get(json_object_get(j, "phases"),
                                          "run"), "stdout");
    const char *at = out ? strstr(out, "MaxHeapSize") : NULL;
    long long heap = -1;
    if (at)
        sscanf(at, "MaxHeapSize = %lld", &heap);
    fprintf(stderr, "java under 512 MiB: MaxHeapSize %lld\n", heap);
    if (heap <= 0 || heap > (512LL << 20) / 4 + (8LL << 20))
        th_fail(__FILE__, __LINE__, "MaxHeapSize %lld under 512 MiB (%s)",
                heap, out ? out : "no output");
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

/* Printing past the output limit stops the phase: output_limit, with
 * the output up to the limit kept. */
TEST(test_limits_cmd__printing_past_the_output_limit_is_output_limit)
{
    lt t;
    lt_open(&t, "limits-output");
    dval_client *c = lt_client(&t);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = lt_shell_dir(&t, "chatty", "yes 0123456789 | head -c "
                               "10000000\nsleep 30\n");
    req.output_bytes = 100000;
    req.allow_missing_results = 1;
    char *sum = NULL;
    int64_t t0 = dval__now_ms();
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_ETOOBIG);
    CHECK(dval__now_ms() - t0 < 20000);
    json_t *j = json_loads(sum, 0, NULL);
    dval_free(sum);
    CHECK(j != NULL);
    CHECK_STR(str(j, "verdict"), "output_limit");
    CHECK_CONTAINS(str(j, "verdict_detail"), "100000 bytes");
    const char *out = str(json_object_get(json_object_get(j, "phases"),
                                          "run"), "stdout");
    CHECK(out && strlen(out) == 100000);
    json_decref(j);
    dval_client_free(c);
    lt_close(&t);
}

/* A process limit of 10: the 30 sleeps do not all start. */
TEST(test_limits_cmd__processes_past_the_limit_are_not_started)
{
    lt t;
    lt_open(&t, "limits-pids");
    vreq r = { .c = lt_client(&t), .pids = 10 };
    const char *script = "n=0; while [ $n -lt 30 ]; do sleep 2 & "
                         "n=$((n+1)); done; wait\n";
    r.dir = lt_shell_dir(&t, "pids", script);
    validate(&r);
    json_t *run = json_object_get(json_object_get(r.sum, "phases"), "run");
    CHECK_STR(str(r.sum, "verdict"), "runtime_error");
    CHECK_CONTAINS(str(run, "stderr"), "fork");
    json_decref(r.sum);
    r.pids = 0; /* the same without it: all 30 run */
    r.dir = lt_shell_dir(&t, "pids-ok", script);
    validate(&r);
    CHECK_STR(str(r.sum, "verdict"), "passed");
    json_decref(r.sum);
    dval_client_free(r.c);
    lt_close(&t);
}
