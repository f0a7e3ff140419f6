/* A validation's services and seeds (lib/services.h): the core derives
 * the snapshot's extra build steps, the names of that snapshot and its
 * sandboxes, and the run command's wrapping from them, in one place, so
 * two different seed sets never share a snapshot or a sandbox, and one
 * set named in another order is the same snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tmpfiles.h"
#include "services.h"
#include "support_fake.h"

static char dir[] = "/tmp/dval-unit-services-XXXXXX";

static const char *seed(const char *name, const char *text)
{
    return tmp_put(dir, name, text);
}

static void cleanup(void)
{
    tmp_remove(dir);
}

static void load(dval__svcset *s, const char *const *svc,
                 const char *const *seeds)
{
    char msg[512] = "";
    int rc = dval__svcset_load(s, svc, seeds, msg, sizeof msg);
    if (rc)
        th_fail(__FILE__, __LINE__, "load: %d %s", rc, msg);
}

TEST(test_services__different_seeds_different_names_same_set_same_name)
{
    const char *a = seed("a.sql", "CREATE TABLE t (x int);\n");
    const char *b = seed("b.sql", "CREATE TABLE t (y int);\n");
    const char *pg_sq[] = {"postgres", "sqlite", NULL};
    const char *sq_pg[] = {"sqlite", "postgres", "sqlite", NULL};
    const char *sa[] = {a, NULL}, *sb[] = {b, NULL};
    dval__svcset s1, s2, s3;
    load(&s1, pg_sq, sa);
    load(&s2, sq_pg, sa);
    load(&s3, pg_sq, sb);
    CHECK_STR(s1.tag, s2.tag);        /* the order of the names: no matter */
    CHECK(strcmp(s1.tag, s3.tag) != 0); /* another seed: another snapshot */
    CHECK_INT((int)s2.n, 2);           /* named twice is once */
    char n1[DVAL_ID_MAX], n3[DVAL_ID_MAX];
    dval__svcset_name(&s1, "validation-snapshot-java-1234", n1, sizeof n1);
    dval__svcset_name(&s3, "validation-snapshot-java-1234", n3, sizeof n3);
    CHECK(!strncmp(n1, "validation-snapshot-java-1234-db", 32));
    CHECK_INT((int)strlen(n1), 32 + 16);
    CHECK(strcmp(n1, n3) != 0);
    dval__svcset_name(NULL, "x", n1, sizeof n1);
    CHECK_STR(n1, "x");
    dval__svcset_free(&s1);
    dval__svcset_free(&s2);
    dval__svcset_free(&s3);
    cleanup();
}

/* The build order: the profile's steps, installs, seed files, inits. */
TEST(test_services__steps_follow_the_profiles_in_order)
{
    const char *a = seed("schema one.sql", "CREATE TABLE t (x int);\n");
    const char *svc[] = {"sqlite", "postgres", NULL}, *seeds[] = {a, NULL};
    dval__svcset s;
    load(&s, svc, seeds);
    CHECK(dval__svcset_starts(&s)); /* postgres has a process */
    const char *const base[] = {"echo profile", NULL};
    dval_snapshot_spec spec;
    dval_snapshot_spec_init(&spec, sizeof spec);
    spec.name = "snap";
    spec.build_commands = base;
    dval__spec_hold hold;
    CHECK_INT(dval__svcset_apply(&s, &spec, &hold), DVAL_OK);
    const char *const *st = spec.build_commands;
    CHECK_STR(st[0], "echo profile");
    CHECK_CONTAINS(st[1], "/opt/dval-svc");        /* postgres' files */
    CHECK_CONTAINS(st[2], "postgres/install.sh");
    CHECK_CONTAINS(st[3], "/etc/dval/services/postgres");
    CHECK_CONTAINS(st[5], "sqlite/install.sh");
    CHECK_CONTAINS(st[6], "/var/lib/dval/seeds/01-schema_one.sql");
    CHECK_CONTAINS(st[7], "postgres/init.sh");
    CHECK_CONTAINS(st[8], "sqlite/init.sh");
    CHECK_STR(st[9], "rm -rf /var/lib/dval/seeds");
    CHECK(st[10] == NULL);
    CHECK(spec.name == hold.name);
    CHECK(!strncmp(hold.name, "snap-db", 7));
    dval__free(hold.steps);
    dval__svcset_free(&s);
    cleanup();
}

/* A seed larger than one step can carry is cut into steps each under
 * the kernel's limit for one argument, and decodes to the same bytes. */
TEST(test_services__a_large_seed_survives_the_steps)
{
    size_t n = 300 * 1024;
    char *text = malloc(n + 1);
    CHECK(text != NULL);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + (i * 7 + i / 1000) % 26);
    text[n] = 0;
    const char *p = seed("big.sql", text);
    const char *seeds[] = {p, seed("empty.sql", ""), NULL};
    char **steps = NULL, msg[256];
    CHECK_INT(dval__seed_steps(seeds, &steps, msg, sizeof msg), DVAL_OK);
    char out[700], cmd[4000];
    snprintf(out, sizeof out, "%s/out", dir);
    int k = 0;
    for (; steps[k]; k++) {
        CHECK(strlen(steps[k]) < 128 * 1024);
        char *sh = malloc(strlen(steps[k]) + 1024);
        snprintf(sh, 1024, "D='%s'; ", out);
        /* the same step, into a directory of the test's */
        const char *s = steps[k];
        size_t o = strlen(sh);
        for (const char *q; (q = strstr(s, "/var/lib/dval/seeds"));) {
            memcpy(sh + o, s, (size_t)(q - s));
            o += (size_t)(q - s);
            memcpy(sh + o, "$D", 2);
            o += 2;
            s = q + strlen("/var/lib/dval/seeds");
        }
        strcpy(sh + o, s);
        FILE *f = popen("sh", "w");
        fputs(sh, f);
        CHECK_INT(pclose(f), 0);
        free(sh);
        dval__free(steps[k]);
    }
    dval__free(steps);
    CHECK(k >= 4);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s/01-big.sql' && "
             "test -f '%s/02-empty.sql' && ! test -s '%s/02-empty.sql'",
             p, out, out, out);
    CHECK_INT(system(cmd), 0);
    free(text);
    cleanup();
}

TEST(test_services__what_the_request_gets_wrong)
{
    dval__svcset s;
    char msg[512];
    const char *bad[] = {"mongodb", NULL}, *pg[] = {"postgres", NULL};
    CHECK_INT(dval__svcset_load(&s, bad, NULL, msg, sizeof msg), DVAL_EINVAL);
    CHECK_CONTAINS(msg, "unknown service \"mongodb\" (there are: postgres, "
                        "sqlite)");
    const char *seeds[] = {seed("s.sql", "select 1;"), NULL};
    CHECK_INT(dval__svcset_load(&s, NULL, seeds, msg, sizeof msg), DVAL_EINVAL);
    CHECK_CONTAINS(msg, "seeds need a service");
    const char *missing[] = {"/nonexistent/seed.sql", NULL};
    CHECK_INT(dval__svcset_load(&s, pg, missing, msg, sizeof msg), DVAL_EIO);
    CHECK_CONTAINS(msg, "seed /nonexistent/seed.sql: No such file");
    char *big = malloc(DVAL__SEEDS_MAX_BYTES / 2 + 2);
    memset(big, 'x', DVAL__SEEDS_MAX_BYTES / 2 + 1);
    big[DVAL__SEEDS_MAX_BYTES / 2 + 1] = 0;
    const char *two[] = {seed("h1.sql", big), seed("h2.sql", big), NULL};
    free(big);
    CHECK_INT(dval__svcset_load(&s, pg, two, msg, sizeof msg), DVAL_ETOOBIG);
    CHECK_CONTAINS(msg, "over 1048576 bytes");
    CHECK_INT(dval__svcset_load(&s, NULL, NULL, msg, sizeof msg), DVAL_OK);
    CHECK_INT((int)s.n, 0);
    dval__svcset_free(&s);
    cleanup();
}

/* Through dval_validate: the snapshot and the sandbox carry the set's
 * tag, the services' start is sent, and the run command runs under the
 * services' wraps, the first named first (its connection is DVAL_DB_*). */
TEST(test_services__a_validation_names_and_wraps_by_its_set)
{
    fake f;
    fake_init(&f);
    f.mkdir_ok = 1;
    dval_client *c = fake_client(&f, 0);
    const char *svc[] = {"sqlite", "postgres", NULL};
    const char *seeds[] = {seed("x.sql", "CREATE TABLE x (a int);"), NULL};
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    char empty[] = "/tmp/dval-unit-services-src-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    v.profile = "shell";
    v.source_dir = empty;
    v.run_command = "echo hi";
    v.allow_missing_results = 1;
    v.services = svc;
    v.seeds = seeds;
    char *sum = NULL;
    int rc = dval_validate(c, &v, NULL, NULL, &sum);
    if (rc)
        th_fail(__FILE__, __LINE__, "%s", dval_client_errmsg(c));
    dval__svcset s;
    load(&s, svc, seeds);
    char want[DVAL_ID_MAX];
    dval__svcset_name(&s, dval_profile_find("shell")->snapshot_name, want,
                      sizeof want);
    CHECK_STR(f.snap.name, want);
    dval__svcset_name(&s, dval_profile_find("shell")->sandbox_name, want,
                      sizeof want);
    CHECK_STR(f.sb.name, want);
    /* the wraps are the program, the run command their sh's */
    CHECK_CONTAINS(f.all_started, "\nsh /opt/dval-svc/sqlite/provision "
                   "perl /opt/dval-svc/postgres/provision sh -c echo hi\n");
    /* where no init starts services, the core does, before the run */
    CHECK_CONTAINS(f.all_started, "for f in /etc/dval/services/*");
    CHECK(strstr(f.all_started, "/etc/dval/services/*") <
          strstr(f.all_started, "provision"));
    dval__svcset_free(&s);
    dval_free(sum);
    dval_client_free(c);
    rmdir(empty);
    cleanup();
}

static int starts_sent(const fake *f)
{
    int n = 0;
    for (const char *p = f->all_started;
         (p = strstr(p, "for f in /etc/dval/services/*")); p++)
        n++;
    return n;
}

/* Where no init restarts a failed service (Daytona), the core's start
 * command is what does: sent once per sandbox, and again right after a
 * validation's service wrapper said its service failed (exit 70). */
TEST(test_services__a_failed_service_is_started_again)
{
    char empty[] = "/tmp/dval-unit-services-src-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    const char *svc[] = {"postgres", NULL};
    for (int failed = 0; failed < 2; failed++) {
        fake f;
        fake_init(&f);
        f.mkdir_ok = 1;
        f.exit_code = failed ? 70 : 0;
        dval_client *c = fake_client(&f, 0);
        dval_validation v;
        dval_validation_init(&v, sizeof v);
        v.profile = "shell";
        v.source_dir = empty;
        v.sandbox_name = failed ? "restart-failed" : "restart-ok";
        v.run_command = "true";
        v.allow_missing_results = 1;
        v.services = svc;
        for (int i = 0; i < 3; i++) {
            char *sum = NULL;
            CHECK_INT(dval_validate(c, &v, NULL, NULL, &sum), DVAL_OK);
            dval_free(sum);
        }
        CHECK_INT(starts_sent(&f), failed ? 3 : 1);
        dval_client_free(c);
    }
    rmdir(empty);
    cleanup();
}

/* A profile's services and seeds (a profile file's "services" and
 * "seeds") are a validation's when its request names none, and a pool's
 * when its options name none; a request that names its own keeps them. */
TEST(test_services__a_profile_s_services_when_the_request_names_none)
{
    const char *svc[] = {"sqlite", NULL};
    const char *seeds[] = {seed("p.sql", "CREATE TABLE p (a int);"), NULL};
    dval_profile p = *dval_profile_find("shell");
    p.name = "shell-with-db";
    p.services = svc;
    p.seeds = seeds;
    CHECK_INT(dval_profile_register(&p), DVAL_OK);
    dval__svcset s;
    load(&s, svc, seeds);
    char want[DVAL_ID_MAX];
    dval__svcset_name(&s, p.snapshot_name, want, sizeof want);
    char empty[] = "/tmp/dval-unit-services-src-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    for (int own = 0; own < 2; own++) {
        fake f;
        fake_init(&f);
        f.mkdir_ok = 1;
        dval_client *c = fake_client(&f, 0);
        dval_validation v;
        dval_validation_init(&v, sizeof v);
        v.profile = "shell-with-db";
        v.source_dir = empty;
        v.run_command = "echo hi";
        v.allow_missing_results = 1;
        const char *pg[] = {"postgres", NULL};
        v.services = own ? pg : NULL;
        char *sum = NULL;
        if (dval_validate(c, &v, NULL, NULL, &sum))
            th_fail(__FILE__, __LINE__, "%s", dval_client_errmsg(c));
        if (own) {
            CHECK(strcmp(f.snap.name, want) != 0);
            CHECK(strstr(f.all_started, "sqlite/provision") == NULL);
            CHECK_CONTAINS(f.all_started, "postgres/provision");
        } else {
            CHECK_STR(f.snap.name, want);
            CHECK_CONTAINS(f.all_started, "sh /opt/dval-svc/sqlite/"
                           "provision sh -c echo hi\n");
        }
        dval_free(sum);
        dval_client_free(c);
    }
    dval__svcset_free(&s);
    rmdir(empty);
    cleanup();
}
