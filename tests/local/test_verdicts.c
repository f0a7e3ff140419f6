/* Each verdict produced by a real program on the local executor, through
 * the public API: shell programs for the run phase's verdicts, javac and
 * the C# compiler for the build's, a profile's own words for a runtime
 * that is too old. */
#include "dotnet.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct vrun {
    const char *profile, *dir, *run, *build;
    int64_t timeout_ms;
    dval_cancel *cancel;
} vrun;

/* Validates; returns the summary (the test frees it) and *rc. */
static json_t *validate(dval_client *c, const vrun *r, int *rc)
{
    if (getenv("DVAL_VALGRIND"))
        th_skip("valgrind has no openat2, which a validation's upload needs");
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = r->profile;
    req.source_dir = r->dir;
    req.run_command = r->run;
    req.build_command = r->build;
    req.timeout_ms = r->timeout_ms;
    req.cancel = r->cancel;
    char *sum = NULL;
    *rc = dval_validate(c, &req, NULL, NULL, &sum);
    CHECK(sum != NULL);
    json_t *j = json_loads(sum, 0, NULL);
    dval_free(sum);
    CHECK(j != NULL);
    return j;
}

static const char *str(json_t *j, const char *k)
{
    return json_string_value(json_object_get(j, k));
}

static void expect(dval_client *c, const vrun *r, const char *verdict,
                   const char *detail)
{
    int rc;
    json_t *j = validate(c, r, &rc);
    if (strcmp(str(j, "verdict"), verdict))
        th_fail(__FILE__, __LINE__, "%s: verdict %s (%s), expected %s",
                r->run ? r->run : r->dir, str(j, "verdict"),
                str(j, "verdict_detail"), verdict);
    CHECK_CONTAINS(str(j, "verdict_detail"), detail);
    json_decref(j);
}

#define RESULT "echo '{\"ok\":1}' > \"$DVAL_RESULTS_DIR/r.json\"\n"

TEST(test_verdicts__run_phase_verdicts_of_shell_programs)
{
    lt t;
    lt_open(&t, "verdicts-sh");
    dval_client *c = lt_client(&t);
    vrun r = { .profile = "shell" };
    r.dir = lt_shell_dir(&t, "ok", RESULT);
    expect(c, &r, "passed", "built, ran and wrote its results");
    r.dir = lt_shell_dir(&t, "exit3", "echo boom >&2; exit 3\n");
    expect(c, &r, "runtime_error", "exited with code 3");
    r.dir = lt_shell_dir(&t, "segv", RESULT "kill -SEGV $$\n");
    expect(c, &r, "runtime_error", "killed by SIGSEGV");
    r.dir = lt_shell_dir(&t, "none", "echo nothing\n");
    expect(c, &r, "results_missing", "wrote no results");
    r.dir = lt_shell_dir(&t, "bad", "echo '{oops' > \"$DVAL_RESULTS_DIR/r.json\"\n");
    expect(c, &r, "results_invalid", "r.json");
    r.dir = lt_shell_dir(&t, "slow", "sleep 30\n");
    r.timeout_ms = 500;
    expect(c, &r, "time_limit", "wall-clock limit");
    dval_client_free(c);
    lt_close(&t);
}

/* The profile's scripts say what is not the program's fault. */
TEST(test_verdicts__a_profiles_own_words)
{
    lt t;
    lt_open(&t, "verdicts-words");
    dval_client *c = lt_client(&t);
    vrun r = { .profile = "shell", .run = "exec sh run.sh" };
    r.dir = lt_shell_dir(&t, "w", RESULT);
    r.build = "echo 'dval: runtime unsupported: needs Java 21, this snapshot "
              "has 17; use an image with a newer JDK' >&2; exit 78";
    expect(c, &r, "runtime_unsupported", "needs Java 21, this snapshot has 17");
    r.build = "echo 'dval: infrastructure: the database did not start' >&2; "
              "exit 70";
    expect(c, &r, "infrastructure_error", "the database did not start");
    /* the same words with another exit code are the build's failure */
    r.build = "echo 'dval: infrastructure: made up' >&2; exit 1";
    expect(c, &r, "compile_error", "exited with code 1");
    dval_client_free(c);
    lt_close(&t);
}

static void *fire_later(void *p)
{
    usleep(500000);
    dval_cancel_fire(p);
    return NULL;
}

TEST(test_verdicts__canceled)
{
    lt t;
    lt_open(&t, "verdicts-cancel");
    dval_client *c = lt_client(&t);
    vrun r = { .profile = "shell" };
    r.dir = lt_shell_dir(&t, "long", "sleep 30\n");
    CHECK_INT(dval_cancel_new(&r.cancel), DVAL_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fire_later, r.cancel) == 0);
    expect(c, &r, "canceled", "stopped by the caller");
    pthread_join(th, NULL);
    dval_cancel_free(r.cancel);
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_verdicts__csharp_compile_error_and_newer_sdk)
{
    lt t;
    lt_open(&t, "verdicts-cs");
    if (system("command -v dotnet >/dev/null 2>&1") != 0)
        th_skip("no .NET SDK on this host");
    dval_client *c = lt_client(&t);
    vrun r = { .profile = "dotnet",
               .dir = "examples/validation/dotnet-compile-error" };
    int rc;
    json_t *j = validate(c, &r, &rc);
    CHECK_STR(str(j, "verdict"), "compile_error");
    CHECK_STR(str(j, "verdict_detail"), "Program.cs:5: CS0029: Cannot "
              "implicitly convert type 'int' to 'string'");
    json_t *d = json_array_get(json_object_get(j, "diagnostics"), 0);
    CHECK_STR(str(d, "file"), "Program.cs");
    CHECK_INT(json_integer_value(json_object_get(d, "line")), 5);
    CHECK_INT(json_integer_value(json_object_get(d, "column")), 16);
    CHECK_STR(str(d, "code"), "CS0029");
    CHECK(json_object_get(json_object_get(j, "phases"), "run") == NULL);
    json_decref(j);
    char p[2048];
    snprintf(p, sizeof p, "%s/net11", t.dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "cp examples/validation/dotnet/Program.cs %s/net11/ "
             "&& sed 's/net10.0/net11.0/' examples/validation/dotnet/"
             "Validation.csproj > %s/net11/Validation.csproj", t.dir, t.dir);
    lt_sh(p);
    snprintf(p, sizeof p, "%s/net11", t.dir);
    r.dir = p;
    expect(c, &r, "runtime_unsupported", "needs .NET 11.0, this snapshot has "
           "the .NET SDK 10.");
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_verdicts__java_compile_error_and_exception)
{
    lt t;
    lt_open(&t, "verdicts-java");
    dval_client *c = lt_client(&t);
    vrun r = { .profile = "java",
               .dir = "examples/validation/java-compile-error" };
    expect(c, &r, "compile_error", "Main.java:6: ';' expected");
    char p[2048];
    snprintf(p, sizeof p, "mkdir -p %s/npe && printf 'public class Main { "
             "public static void main(String[] a) { String s = null; "
             "System.out.println(s.length()); } }\\n' > %s/npe/Main.java",
             t.dir, t.dir);
    lt_sh(p);
    snprintf(p, sizeof p, "%s/npe", t.dir);
    r.dir = p;
    expect(c, &r, "runtime_error", "exited with code 1");
    dval_client_free(c);
    lt_close(&t);
}
