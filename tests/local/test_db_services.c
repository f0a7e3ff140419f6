/* The database services for real (issue 41): each built-in service is
 * installed, seeded at snapshot build and provisioned per validation;
 * concurrent validations see only their own database; a service that
 * dies under a validation is reported as the infrastructure's failure and
 * the next validation gets it restarted; an isolation=sandbox validation
 * gets a service of its own. Programs are shell scripts using psql and
 * sqlite3, which the services put into the image. */
#include "db.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define Q "q() { psql \"$DVAL_DB_URL\" -XtAq -v ON_ERROR_STOP=1 -c \"$1\"; }\n"

#define PG_CHECKS                                                           \
    Q "set -e\n"                                                            \
    "echo \"db=$DVAL_DB_NAME\"\n"                                           \
    "[ \"$(q 'select current_user')\" = \"$DVAL_DB_USER\" ] && echo USER-OK\n" \
    "[ \"$(q 'select current_database()')\" = \"$DVAL_DB_NAME\" ] && "      \
    "echo NAME-OK\n"                                                        \
    "echo \"customers=$(q 'select count(*) from customers')\"\n"            \
    "echo \"owner=$(q \"select tableowner = current_user from pg_tables "   \
    "where tablename = 'orders'\")\"\n"                                     \
    "q \"insert into customers values (7, 'Alan', 'London')\" && "         \
    "echo WRITE-OK\n"                                                       \
    "q 'create table mine (x int)' && q 'alter table orders add note text' " \
    "&& echo OWNER-OK\n"                                                    \
    "u=$DVAL_DB_USER p=$DVAL_DB_PASSWORD h=$DVAL_DB_HOST o=$DVAL_DB_PORT "  \
    "n=$DVAL_DB_NAME\n"                                                     \
    "[ \"$DVAL_DB_JDBC\" = \"jdbc:postgresql://$h:$o/$n?user=$u&password=$p\" ] " \
    "&& echo JDBC-OK\n"                                                     \
    "[ \"$DVAL_DB_ADO\" = \"Host=$h;Port=$o;Database=$n;Username=$u;"       \
    "Password=$p\" ] && echo ADO-OK\n"                                      \
    "[ \"$DVAL_DB_URL\" = \"postgresql://$u:$p@$h:$o/$n\" ] && echo URL-OK\n" \
    "[ ${#p} -ge 32 ] && echo PASSWORD-OK\n"

TEST(test_db_services__postgres_started_seeded_provisioned_and_dropped)
{
    dval_client *c = db_client();
    db_fresh(c, "dbt-pg");
    db_req q = {.sandbox = "dbt-pg", .run = PG_CHECKS};
    db_run a, b;
    db_validate(c, &q, &a);
    CHECK_INT(a.exit_code, 0);
    const char *want[] = {"USER-OK", "NAME-OK", "customers=6\n", "owner=t\n",
                          "WRITE-OK", "OWNER-OK", "JDBC-OK", "ADO-OK", "URL-OK",
                          "PASSWORD-OK"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK_CONTAINS(a.out.data, want[i]);
    char first[64] = "", run[1200];
    sscanf(strstr(a.out.data, "db=") + 3, "%63[a-z0-9_]", first);
    CHECK(!strncmp(first, "v_", 2));
    /* the next validation: a database of its own, the seed as it was,
     * and the first one's database and role gone */
    snprintf(run, sizeof run, Q "echo \"db=$DVAL_DB_NAME\"\n"
             "echo \"customers=$(q 'select count(*) from customers')\"\n"
             "echo \"left=$(q \"select count(*) from pg_database where "
             "datname = '%s'\")/$(q \"select count(*) from pg_roles where "
             "rolname = '%s'\")\"\n", first, first);
    q.run = run;
    db_validate(c, &q, &b);
    CHECK_CONTAINS(b.out.data, "customers=6\n");
    CHECK_CONTAINS(b.out.data, "left=0/0\n");
    CHECK(strstr(b.out.data, first) == NULL);
    db_delete(c, a.sandbox);
    db_run_free(&a);
    db_run_free(&b);
    dval_client_free(c);
}

#define SQ_CHECKS                                                           \
    "set -e\n"                                                              \
    "case \"$DVAL_DB_NAME\" in \"$DVAL_WORKDIR\"/*) echo IN-WORKDIR;; esac\n" \
    "[ \"$DVAL_DB_URL\" = \"file:$DVAL_DB_NAME\" ] && echo URL-OK\n"        \
    "[ \"$DVAL_DB_JDBC\" = \"jdbc:sqlite:$DVAL_DB_NAME\" ] && echo JDBC-OK\n" \
    "[ \"$DVAL_DB_ADO\" = \"Data Source=$DVAL_DB_NAME\" ] && echo ADO-OK\n"  \
    "echo \"mode=$(stat -c %a \"$DVAL_DB_NAME\")\"\n"                       \
    "echo \"customers=$(sqlite3 \"$DVAL_DB_NAME\" 'select count(*) from "   \
    "customers')\"\n"                                                       \
    "sqlite3 \"$DVAL_DB_NAME\" \"insert into customers values (7, 'Alan', " \
    "'London')\" && echo WRITE-OK\n"                                        \
    "echo \"copy=$DVAL_DB_NAME\"\n"

TEST(test_db_services__sqlite_a_copy_per_validation_removed_after)
{
    dval_client *c = db_client();
    db_fresh(c, "dbt-sq");
    static const char *const sq[] = {"sqlite", "postgres", NULL};
    db_req q = {.sandbox = "dbt-sq", .run = SQ_CHECKS, .services = sq};
    for (int i = 0; i < 2; i++) { /* the second sees the seed unchanged */
        db_run a;
        db_validate(c, &q, &a);
        CHECK_INT(a.exit_code, 0);
        const char *want[] = {"IN-WORKDIR", "URL-OK", "JDBC-OK", "ADO-OK",
                              "mode=600\n", "customers=6\n", "WRITE-OK"};
        for (size_t k = 0; k < sizeof want / sizeof *want; k++)
            CHECK_CONTAINS(a.out.data, want[k]);
        char copy[600] = "";
        sscanf(strstr(a.out.data, "copy=") + 5, "%599s", copy);
        CHECK(!db_wait_file(a.sandbox, copy, 0));
        if (i)
            db_delete(c, a.sandbox);
        db_run_free(&a);
    }
    dval_client_free(c);
}

/* Two validations at once in one shared sandbox: each writes, waits until
 * the other has written, and reads: it sees its own row only. */
typedef struct conc {
    dval_client *c;
    char me[32], other[32], run[1200];
    db_run r;
} conc;

static void *conc_run(void *p)
{
    conc *k = p;
    snprintf(k->run, sizeof k->run, Q
             "q \"insert into customers values (100, '%s', 'X')\"\n"
             "touch /tmp/%s\n"
             "for i in $(seq 300); do [ -e /tmp/%s ] && break; sleep 0.05; "
             "done\n"
             "echo \"seen=$(q \"select string_agg(name, ',') from customers "
             "where id = 100\")\"\n"
             "echo \"total=$(q 'select count(*) from customers')\"\n"
             "touch /tmp/%s-done\n"
             "for i in $(seq 300); do [ -e /tmp/%s-done ] && break; "
             "sleep 0.05; done\n", k->me, k->me, k->other, k->me, k->other);
    db_req q = {.sandbox = "dbt-conc", .run = k->run};
    db_validate(k->c, &q, &k->r);
    return NULL;
}

TEST(test_db_services__concurrent_validations_each_see_only_their_own)
{
    dval_client *c = db_client();
    db_fresh(c, "dbt-conc");
    db_run w; /* the sandbox and its service up first */
    db_req q = {.sandbox = "dbt-conc", .run = "true"};
    db_validate(c, &q, &w);
    conc k[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        memset(&k[i], 0, sizeof k[i]);
        k[i].c = c;
        snprintf(k[i].me, sizeof k[i].me, "m%d-%d", (int)getpid(), i);
        snprintf(k[i].other, sizeof k[i].other, "m%d-%d", (int)getpid(),
                 1 - i);
    }
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, conc_run, &k[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        char want[64];
        snprintf(want, sizeof want, "seen=%s\n", k[i].me);
        CHECK_CONTAINS(k[i].r.out.data, want);
        CHECK_CONTAINS(k[i].r.out.data, "total=7\n");
        db_run_free(&k[i].r);
    }
    db_delete(c, w.sandbox);
    db_run_free(&w);
    dval_client_free(c);
}

typedef struct victim {
    dval_client *c;
    db_run r;
} victim;

static void *victim_run(void *p)
{
    victim *v = p;
    db_req q = {.sandbox = "dbt-die",
                .run = Q "q 'select 1' >/dev/null && touch /tmp/dbt-ready\n"
                       "sleep 30; echo SURVIVED\n"};
    db_validate(v->c, &q, &v->r);
    return NULL;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The server killed while a program uses it: the program is stopped and
 * the run command says the infrastructure failed (exit 70); the next
 * validation waits for the restarted service and runs. */
TEST(test_db_services__a_service_that_dies_is_infrastructures_fault)
{
    dval_client *c = db_client();
    db_fresh(c, "dbt-die");
    db_run w;
    db_req q = {.sandbox = "dbt-die", .run = "true"};
    db_validate(c, &q, &w);
    pid_t pm = db_service_pid(w.sandbox, "postgres");
    CHECK(pm > 0);
    victim v = {.c = c};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, victim_run, &v) == 0);
    CHECK(db_wait_file(w.sandbox, "/tmp/dbt-ready", 30000));
    int64_t t0 = now_ms();
    CHECK_INT(kill(pm, SIGKILL), 0);
    pthread_join(th, NULL);
    CHECK(now_ms() - t0 < 10000);
    CHECK_INT(v.r.exit_code, 70);
    CHECK_CONTAINS(v.r.err.data, "dval: infrastructure: postgres: ");
    CHECK(strstr(v.r.out.data, "SURVIVED") == NULL);
    db_run after;
    q.run = Q "echo \"customers=$(q 'select count(*) from customers')\"";
    db_validate(c, &q, &after);
    CHECK_INT(after.exit_code, 0);
    CHECK_CONTAINS(after.out.data, "customers=6\n");
    pid_t pm2 = db_service_pid(w.sandbox, "postgres");
    CHECK(pm2 > 0 && pm2 != pm);
    db_delete(c, w.sandbox);
    db_run_free(&w);
    db_run_free(&v.r);
    db_run_free(&after);
    dval_client_free(c);
}

/* isolation=sandbox: a sandbox, and so a service, of its own: the only
 * validation role that can log in is this one's. */
TEST(test_db_services__isolated_validation_has_the_service_alone)
{
    dval_client *c = db_client();
    db_fresh(c, "dbt-iso");
    db_req q = {.sandbox = "dbt-iso", .isolation = DVAL_ISOLATION_SANDBOX,
                .run = Q "echo \"logins=$(q \"select count(*) from pg_roles "
                       "where rolname like 'v\\_%' and rolcanlogin\")\"\n"
                       "echo \"customers=$(q 'select count(*) from "
                       "customers')\"\n"};
    db_run a;
    db_validate(c, &q, &a);
    CHECK_INT(a.exit_code, 0);
    CHECK_CONTAINS(a.out.data, "logins=1\n");
    CHECK_CONTAINS(a.out.data, "customers=6\n");
    CHECK(strstr(a.sandbox, "dbt-iso-db") == a.sandbox);
    db_run_free(&a);
    dval_client_free(c);
}

/* A pool of one isolation=sandbox slot with the services: its sandbox is
 * recycled between validations, and the service with it (a sandbox with
 * a service is reset the full way): the second validation's server is
 * not the first one's, and each sees only its own login role. */
static void pooled(dval_pool *p, db_run *r)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    char empty[] = "/tmp/dval-db-src-XXXXXX";
    CHECK(mkdtemp(empty) != NULL);
    v.source_dir = empty;
    v.isolation = DVAL_ISOLATION_SANDBOX;
    v.allow_missing_results = 1;
    v.run_command = Q "echo \"started=$(q 'select pg_postmaster_start_time()')\"\n"
                    "echo \"logins=$(q \"select count(*) from pg_roles where "
                    "rolname like 'v\\_%' and rolcanlogin\")\"\n";
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    CHECK_INT(dval_pool_validate(p, &v, db_on_event, r, &r->summary), DVAL_OK);
    dval__buf_append(&r->out, "", 0);
    rmdir(empty);
    CHECK_INT(r->exit_code, 0);
    CHECK_CONTAINS(r->out.data, "logins=1\n");
}

TEST(test_db_services__a_pool_recycles_the_service_with_its_sandbox)
{
    dval_client *c = db_client();
    static const char *const both[] = {"postgres", "sqlite", NULL};
    static const char *const seeds[] = {DB_SCHEMA, DB_DATA, NULL};
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.name = "dbt-pool";
    o.max_sandboxes = 1;
    o.services = both;
    o.seeds = seeds;
    o.release = DVAL_RELEASE_DELETE;
    dval_pool *p = NULL;
    CHECK_INT(dval_pool_new(&p, c, &o), DVAL_OK);
    db_run a, b;
    pooled(p, &a);
    pooled(p, &b);
    CHECK(strstr(a.sandbox, "dbt-pool-db") == a.sandbox);
    CHECK_STR(a.sandbox, b.sandbox); /* one sandbox, recycled */
    char sa[80] = "", sb[80] = "";
    sscanf(strstr(a.out.data, "started="), "started=%79[^\n]", sa);
    sscanf(strstr(b.out.data, "started="), "started=%79[^\n]", sb);
    CHECK(sa[0] && sb[0] && strcmp(sa, sb) != 0);
    db_run_free(&a);
    db_run_free(&b);
    dval_pool_free(p);
    dval_client_free(c);
}
