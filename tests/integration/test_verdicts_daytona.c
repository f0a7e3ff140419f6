/* Each verdict that applies to the daytona executor, produced by a real
 * program on the test Daytona server (the emulator runs the commands it
 * is given): the same words as on the local executor, so a pipeline
 * branches on the verdict alone whichever executor ran it. */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support_emulator.h"

#define RESULT "mkdir -p results && echo '{\"ok\":1}' > results/r.json\n"

typedef struct vcase {
    const char *run_sh;          /* the program */
    const char *build;           /* the build command, or NULL */
    int64_t timeout_ms, output_bytes;
    const char *expected;        /* compared with stdout, or NULL */
    dval_cancel *cancel;
} vcase;

/* The summary's verdict and detail of one validation of c. */
static void expect(dval_client *c, const vcase *k, const char *verdict,
                   const char *detail)
{
    char dir[64];
    emu_program(dir, k->run_sh);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    if (k->build) {
        req.run_command = "sh run.sh";
        req.build_command = k->build;
    }
    req.timeout_ms = k->timeout_ms;
    req.output_bytes = k->output_bytes;
    req.expected = k->expected;
    req.expected_len = k->expected ? strlen(k->expected) : 0;
    req.cancel = k->cancel;
    char *sum = NULL;
    dval_validate(c, &req, NULL, NULL, &sum);
    json_t *j = sum ? json_loads(sum, 0, NULL) : NULL;
    /* the summary is written as text, not dumped from a tree: it must
     * still be what json_dumps makes of it, byte for byte */
    char *again = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    if (!again || strcmp(again, sum))
        th_fail(__FILE__, __LINE__, "%s: summary %s is not json_dumps's %s",
                k->run_sh, sum ? sum : "(none)", again ? again : "(none)");
    free(again);
    const char *v = json_string_value(json_object_get(j, "verdict"));
    const char *d = json_string_value(json_object_get(j, "verdict_detail"));
    if (!v || strcmp(v, verdict) || !d || !strstr(d, detail))
        th_fail(__FILE__, __LINE__, "%s: verdict %s (%s), expected %s (%s)",
                k->run_sh, v ? v : "none", d ? d : "", verdict, detail);
    json_decref(j);
    dval_free(sum);
    emu_program_rm(dir);
}

TEST(verdicts_daytona__the_run_phase)
{
    emu e;
    dval_client *c = emu_fast(&e);
    expect(c, &(vcase){ .run_sh = RESULT }, "passed", "");
    expect(c, &(vcase){ .run_sh = "echo no >&2; exit 3\n" }, "runtime_error",
           "exited with code 3");
    expect(c, &(vcase){ .run_sh = "kill -KILL $$\n" }, "runtime_error",
           "SIGKILL");
    expect(c, &(vcase){ .run_sh = "sleep 20\n", .timeout_ms = 700 },
           "time_limit", "wall");
    expect(c, &(vcase){ .run_sh = "echo hi\n" }, "results_missing", "");
    /* output that is not UTF-8, escapes, results with reals and text */
    expect(c, &(vcase){ .run_sh = "printf 'caf\\303\\251 \\377 \\001\\n';"
                                  " printf 'a\\tb\\\\\\\"\\n' >&2; "
                                  "mkdir -p results && echo '[1.5,\"\\u00e9\"]'"
                                  " > results/r.json; echo x > results/o.txt\n" },
           "passed", "");
    expect(c, &(vcase){ .run_sh = "mkdir -p results && echo '{x' > "
                                  "results/r.json\n" },
           "results_invalid", "r.json");
    expect(c, &(vcase){ .run_sh = "yes | head -c 200000\n" RESULT,
                        .output_bytes = 10000 },
           "output_limit", "10000");
    expect(c, &(vcase){ .run_sh = "echo 41\n" RESULT, .expected = "42\n" },
           "wrong_results", "line 1");
    expect(c, &(vcase){ .run_sh = "echo 42\n" RESULT, .expected = "42\n" },
           "passed", "");
    /* a program that says what only a service's wrap may say is not
     * believed: with no service, nothing of ours ran before it */
    expect(c, &(vcase){ .run_sh = "echo 'dval: infrastructure: not me' >&2;"
                                  " exit 70\n" },
           "runtime_error", "exited with code 70");
    dval_client_free(c);
}

TEST(verdicts_daytona__the_build_phase)
{
    emu e;
    dval_client *c = emu_fast(&e);
    expect(c, &(vcase){ .run_sh = RESULT, .build = "echo 'x.c:3: error' >&2;"
                        " exit 1" },
           "compile_error", "exited with code 1");
    expect(c, &(vcase){ .run_sh = RESULT, .build = "echo 'dval: runtime "
                        "unsupported: needs Java 25' >&2; exit 78" },
           "runtime_unsupported", "needs Java 25");
    expect(c, &(vcase){ .run_sh = RESULT, .build = "echo 'dval: "
                        "infrastructure: the database did not start' >&2; "
                        "exit 70" },
           "infrastructure_error", "the database did not start");
    dval_client_free(c);
}

static void *fire_later(void *arg)
{
    usleep(800000);
    dval_cancel_fire(arg);
    return NULL;
}

TEST(verdicts_daytona__canceled_and_infrastructure)
{
    emu e;
    dval_client *c = emu_fast(&e);
    vcase k = { .run_sh = "sleep 20\n" };
    CHECK_INT(dval_cancel_new(&k.cancel), DVAL_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fire_later, k.cancel) == 0);
    expect(c, &k, "canceled", "");
    pthread_join(th, NULL);
    dval_cancel_free(k.cancel);
    /* the server fails every upload: the program's fault never */
    CHECK_INT(emu_fault(&e, "*", "/files/bulk-upload", 1000,
                        "\"action\":\"status\",\"status\":500"), 200);
    expect(c, &(vcase){ .run_sh = RESULT }, "infrastructure_error", "");
    dval_client_free(c);
}
