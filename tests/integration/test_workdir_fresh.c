/* The working directory of a validation: a thread id made by the library
 * (a uuid4 nobody can guess) gets its directories from file requests and
 * no clean-up command; a thread id given by the caller is emptied by a
 * clean-up command first, so a rerun never sees the last run's files. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support_emulator.h"

#define CLEANUP "find . -mindepth 1 -delete"

/* A leftover of an earlier run with this thread id fails the program. */
#define RUN "test ! -e leftover && touch leftover && mkdir -p results && " \
            "echo {} > results/r.json"

static int validate(dval_client *c, const char *dir, const char *thread)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.thread_id = thread;
    req.run_command = RUN;
    req.release = DVAL_RELEASE_KEEP;
    char *sum = NULL;
    int rc = dval_validate(c, &req, NULL, NULL, &sum);
    if (rc)
        th_fail(__FILE__, __LINE__, "validate: %s %s", dval_client_errmsg(c),
                sum ? sum : "");
    int ok = strstr(sum, "\"exit_code\":0") != NULL;
    dval_free(sum);
    return ok;
}

/* Recorded requests whose body (or path) contains s. */
static int requests_with(emu *e, const char *s)
{
    char *body = emu_get(e, "/_emu/requests");
    CHECK(body != NULL);
    json_t *a = json_loads(body, 0, NULL);
    free(body);
    CHECK(json_is_array(a));
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(a, i, r) {
        const char *b = json_string_value(json_object_get(r, "body"));
        const char *p = json_string_value(json_object_get(r, "path"));
        const char *q = json_string_value(json_object_get(r, "query"));
        n += (b && strstr(b, s)) || (p && strstr(p, s)) || (q && strstr(q, s));
    }
    json_decref(a);
    return n;
}

TEST(workdir__generated_thread_needs_no_cleanup_command)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char dir[32];
    emu_program(dir, "true\n");

    CHECK(validate(c, dir, NULL));
    CHECK(validate(c, dir, NULL));
    CHECK_INT(requests_with(&e, CLEANUP), 0);
    CHECK(requests_with(&e, "results") > 0);     /* made by a file request */

    /* the caller's thread id: cleaned each time, so the rerun passes */
    CHECK(validate(c, dir, "same-thread"));
    CHECK(validate(c, dir, "same-thread"));
    CHECK_INT(requests_with(&e, CLEANUP), 2);

    emu_program_rm(dir);
    dval_client_free(c);
    emu_stop(&e);
}
