/* A validation's database services on the daytona executor, on the
 * emulator (issue 41): the same spec as locally. The snapshot's
 * Dockerfile carries the services' install steps, the seed files and
 * their init steps after the profile's; the snapshot and sandbox names
 * carry the set's tag (another seed set: another snapshot and sandbox);
 * the core sends the services' start command before the program, also to
 * a sandbox of isolation=sandbox; and the run command runs under the
 * services' wraps. What the emulator cannot run: it builds no image (the
 * steps are recorded, not run) and runs commands on this host, so the
 * services themselves are tested by tests/local/test_db_*.c. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "services.h"
#include "support_emulator.h"

#define MARK "--inh-caps=-all flock -n "

static const char *seed_file(const char *dir, const char *name,
                             const char *sql)
{
    static char paths[4][300];
    static int n;
    char *p = paths[n++ % 4];
    snprintf(p, 300, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(sql, f);
    fclose(f);
    return p;
}

static void validate(dval_client *c, const char *dir, const char *seed,
                     int isolation)
{
    static const char *const svc[] = {"postgres", NULL};
    const char *seeds[] = {seed, NULL};
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.services = svc;
    req.seeds = seeds;
    req.isolation = isolation;
    req.allow_missing_results = 1;
    req.release = DVAL_RELEASE_KEEP;
    char *sum = NULL;
    if (dval_validate(c, &req, NULL, NULL, &sum) != DVAL_OK)
        th_fail(__FILE__, __LINE__, "validate: %s", dval_client_errmsg(c));
    dval_free(sum);
}

/* The recorded requests' bodies with method and a path matching part,
 * joined by newlines (malloc'd). */
static char *bodies(emu *e, const char *method, const char *part)
{
    char *all = emu_get(e, "/_emu/requests");
    json_t *a = json_loads(all, 0, NULL);
    free(all);
    CHECK(json_is_array(a));
    dval__buf out = {0};
    size_t i;
    json_t *r;
    json_array_foreach(a, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        const char *b = json_string_value(json_object_get(r, "body"));
        if (m && p && b && !strcmp(m, method) && strstr(p, part))
            dval__buf_appendf(&out, "%s\n", b);
    }
    json_decref(a);
    dval__buf_append(&out, "", 0);
    return out.data;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

TEST(service_db__daytona_gets_the_same_snapshot_start_and_wrap)
{
    emu e;
    dval_client *c = emu_fast(&e);
    char dir[32];
    emu_program(dir, "echo ran\n");
    const char *a = seed_file(dir, "a.sql", "CREATE TABLE t (x int);\n");
    const char *b = seed_file(dir, "b.sql", "CREATE TABLE t (y int);\n");
    validate(c, dir, a, DVAL_ISOLATION_SESSION);
    validate(c, dir, a, DVAL_ISOLATION_SESSION);
    validate(c, dir, b, DVAL_ISOLATION_SANDBOX);
    char *snaps = bodies(&e, "POST", "/api/snapshots");
    char *sbs = bodies(&e, "POST", "/api/sandbox");
    char *execs = bodies(&e, "POST", "/process/session/");
    /* two seed sets: two snapshots, each with the services' steps */
    CHECK_INT(count(snaps, "\"dockerfileContent\""), 2);
    CHECK_INT(count(snaps, "sh /opt/dval-svc/postgres/install.sh"), 2);
    /* the seed carried into the snapshot (lib/carry.c), JSON-escaped */
    CHECK_INT(count(snaps, "RUN mkdir -p \\\"$(dirname \\\"/var/lib/dval/"
                    "seeds/01-"), 2);
    CHECK_INT(count(snaps, "RUN sh /opt/dval-svc/postgres/init.sh"), 2);
    const char *const svc[] = {"postgres", NULL};
    const char *sa[] = {a, NULL}, *sb[] = {b, NULL};
    char msg[256], want[DVAL_ID_MAX];
    dval__svcset s;
    for (int k = 0; k < 2; k++) {
        CHECK_INT(dval__svcset_load(&s, svc, k ? sb : sa, msg, sizeof msg),
                  DVAL_OK);
        dval__svcset_name(&s, dval_profile_find("shell")->snapshot_name,
                          want, sizeof want);
        CHECK_CONTAINS(snaps, want);
        dval__svcset_name(&s, dval_profile_find("shell")->sandbox_name,
                          want, sizeof want);
        CHECK_CONTAINS(sbs, want); /* the isolated one's name begins so */
        dval__svcset_free(&s);
    }
    /* started by the core where no init does: the shared sandbox once,
     * the isolated one too (its program needs the database) */
    CHECK_INT(count(execs, MARK), 2);
    /* each run under its wrap: words, quoted by the daytona executor */
    CHECK_INT(count(execs, "/opt/dval-svc/postgres/provision'\\\\''"), 3);
    free(snaps);
    free(sbs);
    free(execs);
    unlink(a);
    unlink(b);
    emu_program_rm(dir);
    dval_client_free(c);
    emu_stop(&e);
}
