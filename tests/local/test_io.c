/* A program's inputs (dval_validation.args, .stdin_data) on the local
 * executor: words with spaces, quotes and "$" reach it as its arguments
 * unexpanded, stdin bytes (NUL, no trailing newline) as its stdin, the
 * run phase only; and the run phase's usage through dval_result_phase. */
#include <jansson.h>
#include <string.h>

#include "lt.h"

/* prints each argument in brackets, then its stdin in hex */
#define ECHOES "for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo\n" \
    "od -An -v -tx1 | tr -d ' \\n'\n"

static const char *run_stdout(const json_t *j)
{
    return json_string_value(json_object_get(json_object_get(
        json_object_get(j, "phases"), "run"), "stdout"));
}

static const char *build_stdout(const json_t *j)
{
    return json_string_value(json_object_get(json_object_get(
        json_object_get(j, "phases"), "build"), "stdout"));
}

TEST(test_io__args_and_stdin_arrive_exactly)
{
    lt t;
    lt_open(&t, "io-args");
    const char *d = lt_shell_dir(&t, "echoes", ECHOES);
    const char *args[] = { "a b", "it's", "\"q\"", "$HOME", "", "x;y`z`",
                           "-n", NULL };
    static const char in[] = { 'h', 'i', '\0', '\n', 'x' }; /* no newline */
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = d;
    req.allow_missing_results = 1;
    req.args = args;
    req.stdin_data = in;
    req.stdin_len = sizeof in;
    /* the build gets neither: no words, stdin empty */
    req.build_command = "printf 'build[%s]' \"$*\"; wc -c | tr -d ' '";
    json_t *j = lt_validate(&t, &req);
    CHECK_STR(run_stdout(j), "[a b][it's][\"q\"][$HOME][][x;y`z`][-n]\n"
              "6869000a78");
    CHECK_STR(build_stdout(j), "build[]0\n");
    json_decref(j);
    /* no stdin_data: stdin is empty (/dev/null), no words */
    req.args = NULL;
    req.stdin_data = NULL;
    req.stdin_len = 0;
    j = lt_validate(&t, &req);
    CHECK_STR(run_stdout(j), "\n");
    json_decref(j);
    /* empty stdin given, and a run command of the request's own */
    static const char *one[] = { "only", NULL };
    req.args = one;
    req.stdin_data = "";
    req.run_command = "sh run.sh first";
    req.build_command = NULL;
    j = lt_validate(&t, &req);
    CHECK_STR(run_stdout(j), "[first][only]\n");
    json_decref(j);
    lt_close(&t);
}

TEST(test_io__bad_inputs_are_refused_before_anything_runs)
{
    lt t;
    lt_open(&t, "io-bad");
    dval_client *c = lt_client(&t);
    const char *d = lt_shell_dir(&t, "bad", ECHOES);
    static const char *many[258];
    for (int i = 0; i < 257; i++)
        many[i] = "w";
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = d;
    req.args = many;
    char *sum = NULL;
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_EINVAL);
    CHECK(sum == NULL);
    CHECK_CONTAINS(dval_client_errmsg(c), "request: args: at most 256 words");
    req.args = NULL;
    req.stdin_len = 3;            /* bytes, but no stdin_data */
    CHECK_INT(dval_validate(c, &req, NULL, NULL, &sum), DVAL_EINVAL);
    CHECK_CONTAINS(dval_client_errmsg(c), "stdin_len");
    dval_client_free(c);
    lt_close(&t);
}

TEST(test_io__run_usage_through_the_typed_result)
{
    lt t;
    lt_open(&t, "io-usage");
    dval_client *c = lt_client(&t);
    /* about a second of CPU, whatever the machine's load */
    const char *d = lt_shell_dir(&t, "burn", "i=0; while [ $i -lt 1500000 ];"
                                 " do i=$((i+1)); done; echo $i\n");
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = d;
    req.allow_missing_results = 1;
    dval_result *r = NULL;
    int rc = dval_validate_result(&r, c, &req, NULL, NULL);
    CHECK_INT(rc, DVAL_OK);
    dval_phase_info p;
    CHECK_INT(dval_result_phase(r, "run", &p, sizeof p), DVAL_OK);
    CHECK_STR(p.stdout_data, "1500000\n");
    CHECK_INT(p.usage_known, 1);
    CHECK(p.cpu_ms >= 100);
    /* one process: no more CPU than wall time (and a margin) */
    CHECK(p.cpu_ms <= p.wall_ms + 200);
    CHECK(p.peak_memory_bytes > 0);
    /* an older caller's struct ends before the usage fields */
    size_t old = offsetof(dval_phase_info, cpu_ms);
    CHECK_INT(dval_result_phase(r, "run", &p, old), DVAL_OK);
    CHECK_INT(p.struct_size, old);
    dval_result_free(r);
    dval_client_free(c);
    lt_close(&t);
}

/* A program that copies its stdin, NUL bytes and all, to its stdout: the
 * typed result holds those bytes (the summary's "\u0000" read back). */
TEST(test_io__stdin_copied_to_stdout_reaches_the_typed_result)
{
    lt t;
    lt_open(&t, "io-cat");
    dval_client *c = lt_client(&t);
    const char *d = lt_shell_dir(&t, "cat", "cat\n");
    static const char in[] = { 'h', 'i', '\0', '\n', 'x' };
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = d;
    req.allow_missing_results = 1;
    req.stdin_data = in;
    req.stdin_len = sizeof in;
    dval_result *r = NULL;
    CHECK_INT(dval_validate_result(&r, c, &req, NULL, NULL), DVAL_OK);
    CHECK(r != NULL);
    dval_phase_info p;
    CHECK_INT(dval_result_phase(r, "run", &p, sizeof p), DVAL_OK);
    CHECK_INT(p.stdout_len, sizeof in);
    CHECK(memcmp(p.stdout_data, in, sizeof in) == 0);
    dval_result_free(r);
    dval_client_free(c);
    lt_close(&t);
}
