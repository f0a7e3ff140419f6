/* The core starts a profile's service once per sandbox it acquires
 * (lib/service_start.c), on the emulator: the java profile's start
 * services' start command is sent once per sandbox however many validations run there,
 * in a session of its own that the core neither polls nor deletes (no
 * validation waits for it); a profile without a service sends nothing. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "profile_service.h"
#include "service_start.h"
#include "support_emulator.h"

#define MARK "--inh-caps=-all flock -n "

static void validate(dval_client *c, const char *dir, const char *profile,
                     const char *sandbox)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = profile;
    req.source_dir = dir;
    req.sandbox_name = sandbox;
    req.run_command = "mkdir -p results && echo {} > results/r.json";
    req.release = DVAL_RELEASE_KEEP;
    char *sum = NULL;
    int rc = dval_validate(c, &req, NULL, NULL, &sum);
    if (rc)
        th_fail(__FILE__, __LINE__, "validate: %s %s", dval_client_errmsg(c),
                sum ? sum : "");
    CHECK_CONTAINS(sum, "\"exit_code\":0");
    dval_free(sum);
}

/* The recorded requests that start the service: their count; the
 * session id of each goes to sids (up to 8). */
static int starts(emu *e, char sids[8][DVAL_ID_MAX], json_t **all)
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
        if (!b || !strstr(b, MARK))
            continue;
        CHECK_STR(json_string_value(json_object_get(r, "method")), "POST");
        const char *s = strstr(p, "/process/session/");
        CHECK(s != NULL);
        s += strlen("/process/session/");
        if (n < 8)
            snprintf(sids[n], DVAL_ID_MAX, "%.*s", (int)strcspn(s, "/"), s);
        n++;
    }
    *all = a;
    return n;
}

/* Requests on session sid other than its creation and the one exec. */
static int later_use(json_t *all, const char *sid)
{
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r) {
        const char *p = json_string_value(json_object_get(r, "path"));
        const char *b = json_string_value(json_object_get(r, "body"));
        const char *m = json_string_value(json_object_get(r, "method"));
        if (!p || !strstr(p, sid))
            continue;
        int create = !strcmp(m, "POST") && b && strstr(b, sid);
        int start = b && strstr(b, MARK);
        n += !create && !start;
    }
    return n;
}

TEST(service_start__once_per_sandbox_never_waited_for)
{
    CHECK(dval__service_start_command(dval_profile_find("java"), NULL) != NULL);
    CHECK(dval__service_start_command(dval_profile_find("shell"), NULL) == NULL);
    emu e;
    dval_client *c = emu_fast(&e);
    char dir[32];
    emu_program(dir, "echo ran\n");
    for (int i = 0; i < 3; i++)
        validate(c, dir, "java", NULL);
    validate(c, dir, "java", "java-other");
    validate(c, dir, "java", "java-other");
    validate(c, dir, "shell", NULL);
    char sids[8][DVAL_ID_MAX];
    json_t *all = NULL;
    /* two java sandboxes: two starts; the shell one: none */
    CHECK_INT(starts(&e, sids, &all), 2);
    CHECK(strcmp(sids[0], sids[1]) != 0);
    for (int i = 0; i < 2; i++) {
        /* its own session, named after its sandbox, and never taken
         * for a validation's ("<sandbox name>-..." ) */
        CHECK(!strncmp(sids[i], "service.java-", 13));
        /* never polled, followed nor deleted: nobody waits for it */
        CHECK_INT(later_use(all, sids[i]), 0);
    }
    json_decref(all);
    /* a second client of this process: the sandbox has it already */
    dval_client *c2 = emu_client(&e, NULL, 20, NULL);
    validate(c2, dir, "java", NULL);
    dval_client_free(c2);
    CHECK_INT(starts(&e, sids, &all), 2);
    json_decref(all);
    emu_program_rm(dir);
    dval_client_free(c);
    emu_stop(&e);
}
