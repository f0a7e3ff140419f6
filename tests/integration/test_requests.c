/* Requests per validation on Daytona (issue 14 item 7): every request the
 * emulator sees for one pool validation, after a warm-up one (snapshot
 * built, shared sandbox made), with session and with sandbox isolation.
 * The emulator spends CPU on each, as a real server does, so the counts
 * are asserted: a request that comes back fails here. With
 * DVAL_REQUESTS_DUMP=1 the requests are printed (method, path with ids
 * replaced, query) for tests/bench/REQUESTS.md. */
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support_emulator.h"

#define RUN "mkdir -p results && echo '{\"ok\":true}' > results/r.json && " \
            "echo ok\n"

typedef struct reqs {
    json_t *all;          /* the recorded requests of the validation */
} reqs;

static json_t *recorded(emu *e)
{
    char *text = emu_get(e, "/_emu/requests");
    CHECK(text != NULL);
    json_t *a = json_loads(text, JSON_ALLOW_NUL, NULL);
    free(text);
    CHECK(json_is_array(a));
    return a;
}

/* The requests after the first `from` (a copy, json_decref). */
static json_t *since(emu *e, size_t from)
{
    json_t *a = recorded(e), *out = json_array();
    for (size_t i = from; i < json_array_size(a); i++)
        json_array_append(out, json_array_get(a, i));
    json_decref(a);
    return out;
}

static size_t count_now(emu *e)
{
    json_t *a = recorded(e);
    size_t n = json_array_size(a);
    json_decref(a);
    return n;
}

/* Recorded requests with this method whose path matches path_re. */
static int count(json_t *a, const char *method, const char *path_re)
{
    regex_t re;
    CHECK(regcomp(&re, path_re, REG_EXTENDED | REG_NOSUB) == 0);
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(a, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        n += m && p && !strcmp(m, method) && !regexec(&re, p, 0, NULL, 0);
    }
    regfree(&re);
    return n;
}

static void dump(const char *title, json_t *a)
{
    if (!getenv("DVAL_REQUESTS_DUMP"))
        return;
    fprintf(stderr, "== %s: %zu requests\n", title, json_array_size(a));
    size_t i;
    json_t *r;
    json_array_foreach(a, i, r) {
        const char *q = json_string_value(json_object_get(r, "query"));
        const char *h = json_string_value(json_object_get(
            json_object_get(r, "headers"), "upgrade"));
        fprintf(stderr, "%2zu %-6s %s%s%s%s\n", i + 1,
                json_string_value(json_object_get(r, "method")),
                json_string_value(json_object_get(r, "path")),
                q && *q ? "?" : "", q ? q : "", h ? "  [websocket]" : "");
    }
}

static dval_pool *open_pool(dval_client *c, int sandbox_iso)
{
    dval_pool_options po;
    dval_pool_options_init(&po, sizeof po);
    po.profile = "shell";
    po.max_sandboxes = 1;
    po.max_per_sandbox = sandbox_iso ? 1 : 4;
    po.release = DVAL_RELEASE_DELETE;
    dval_pool *p = NULL;
    if (dval_pool_new(&p, c, &po))
        th_fail(__FILE__, __LINE__, "pool: %s", dval_client_errmsg(c));
    return p;
}

static void validate(dval_pool *p, dval_client *c, const char *dir, int iso)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.source_dir = dir;
    req.isolation = iso ? DVAL_ISOLATION_SANDBOX : DVAL_ISOLATION_SESSION;
    char *sum = NULL;
    int rc = dval_pool_validate(p, &req, NULL, NULL, &sum);
    if (rc || !strstr(sum, "\"exit_code\":0") || !strstr(sum, "\"r.json\""))
        th_fail(__FILE__, __LINE__, "validate: %s %s", dval_client_errmsg(c),
                sum ? sum : "");
    dval_free(sum);
}

/* The requests of the second of two validations on one pool. */
static json_t *one_validation(emu *e, dval_client *c, int iso)
{
    char dir[32];
    emu_program(dir, RUN);
    dval_pool *p = open_pool(c, iso);
    validate(p, c, dir, iso);
    size_t n0 = count_now(e);
    validate(p, c, dir, iso);
    json_t *a = since(e, n0);
    dval_pool_free(p);
    emu_program_rm(dir);
    dump(iso ? "sandbox isolation" : "session isolation", a);
    return a;
}

#define TB "^/toolbox/[^/]+"
#define CMD TB "/process/session/[^/]+/command/[^/]+"

/* The requests other than the exit-code polls (whose number depends on
 * when the command ends against the poll). */
static int besides_status(json_t *a)
{
    return (int)json_array_size(a) - count(a, "GET", CMD "$");
}

/* What every validation does in its session, on both levels; the session
 * delete only where the sandbox stays (closes: number expected). */
static void check_session_part(json_t *a, int closes)
{
    CHECK_INT(count(a, "POST", TB "/process/session$"), 1);
    CHECK_INT(count(a, "POST", TB "/process/session/[^/]+/exec$"), 1);
    /* the follow, and the final log: the exit code came before the
     * daemon's close (~1 s after the last output), and only the final log
     * says the stream delivered everything (PROTOCOL 6.6) */
    CHECK_INT(count(a, "GET", CMD "/logs$"), 2);
    CHECK(count(a, "GET", CMD "$") >= 1);                /* the exit code */
    /* a fresh workdir: one mkdir, of its results dir (parents made) */
    CHECK_INT(count(a, "POST", TB "/files/folder$"), 1);
    CHECK_INT(count(a, "DELETE", TB "/process/session/[^/]+$"), closes);
    CHECK(count(a, "POST", TB "/files/bulk-upload$") >= 1);
    /* the results listed by the toolbox (no listing command, no listing
     * file), then the one result downloaded */
    CHECK_INT(count(a, "GET", TB "/files$"), 1);
    CHECK_INT(count(a, "GET", TB "/files/download$") +
              count(a, "POST", TB "/files/bulk-download$"), 1);
    /* the pool's snapshot was ensured by the first validation: a create
     * that fails on a vanished one ensures it then (test_pool_known.c) */
    CHECK_INT(count(a, "GET", "^/api/snapshots"), 0);
}

TEST(requests__session_isolation)
{
    emu e;
    dval_client *c = emu_fast(&e);
    json_t *a = one_validation(&e, c, 0);
    check_session_part(a, 1);
    CHECK_INT(count(a, "POST", "^/api/sandbox$"), 0);
    /* the pool handed over the shared sandbox it knew: no lookup */
    CHECK_INT(count(a, "GET", "^/api/sandbox"), 0);
    /* session, folder, upload, exec, WebSocket, final log, listing,
     * result, session delete, and the status GETs (1, at times 2);
     * REQUESTS.md (main sent 11 besides the status GETs) */
    CHECK_INT(besides_status(a), 9);
    json_decref(a);
    dval_client_free(c);
    emu_stop(&e);
}

TEST(requests__sandbox_isolation)
{
    emu e;
    dval_client *c = emu_fast(&e);
    json_t *a = one_validation(&e, c, 1);
    /* the sandbox delete ends its session: no session delete before it */
    check_session_part(a, 0);
    CHECK_INT(count(a, "POST", "^/api/sandbox$"), 1);
    /* its name is new: no lookup before the create (always a 404) */
    CHECK_INT(count(a, "GET", "^/api/sandbox/"), 0);
    CHECK_INT(count(a, "DELETE", "^/api/sandbox/[^/]+$"), 1);
    /* create, the session's 8, sandbox delete (main: 12) */
    CHECK_INT(besides_status(a), 10);
    json_decref(a);
    dval_client_free(c);
    emu_stop(&e);
}
