/* Hostile programs against the database services (issue 41), each
 * running the real attack and checking it fails: reaching another
 * validation's database (at the same time, in the same sandbox), the
 * seeded template, or the service's superuser; leaving a connection or an
 * object (a table, a function, a role, a large object, a prepared
 * transaction, an event trigger, settings, comments, a publication) that
 * a later validation sees; filling the host's disk through the service.
 * Every attempt prints NAME-REFUSED when refused and NAME-IN when it got
 * through. */
#include "db.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define Q "q() { psql \"$DVAL_DB_URL\" -XtAq -v ON_ERROR_STOP=1 -c \"$1\"; }\n"
/* try NAME CMD...: refused when the command fails */
#define TRY                                                                 \
    "try() { n=$1; shift; if \"$@\" >/dev/null 2>&1; then echo \"$n-IN\"; " \
    "else echo \"$n-REFUSED\"; fi; }\n"
#define PSQL "psql -XtAq -v ON_ERROR_STOP=1 "

static void refused(const char *out, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "%s-REFUSED\n", names[i]);
        if (!strstr(out, want))
            th_fail(__FILE__, __LINE__, "%s was not refused:\n%s", names[i],
                    out);
    }
    CHECK(strstr(out, "-IN\n") == NULL);
}

/* The victim: a secret row, its names published in /tmp, then it waits
 * for the attacker and checks its data. */
#define VICTIM                                                              \
    Q "q \"insert into customers values (99, 'SECRET', 'X')\"\n"            \
    "q 'select pg_sleep(30)' >/dev/null 2>&1 & sl=$!; sleep 0.5\n"          \
    "echo \"$DVAL_DB_NAME\" > /tmp/dbh-victim.tmp\n"                        \
    "ls -d \"$DVAL_WORKDIR\"/.dval-sqlite.*/db.sqlite >> /tmp/dbh-victim.tmp\n" \
    "chmod 644 /tmp/dbh-victim.tmp && mv /tmp/dbh-victim.tmp /tmp/dbh-victim\n" \
    "for i in $(seq 600); do [ -e /tmp/dbh-attacked ] && break; sleep 0.05; " \
    "done\n"                                                                \
    "kill -0 $sl && echo SLEEPER-ALIVE; kill $sl\n"                         \
    "[ \"$(q \"select name from customers where id = 99\")\" = SECRET ] && " \
    "[ \"$(q 'select count(*) from customers')\" = 7 ] && echo VICTIM-INTACT\n"

#define ATTACKER                                                            \
    Q TRY                                                                   \
    "for i in $(seq 600); do [ -e /tmp/dbh-victim ] && break; sleep 0.05; " \
    "done\n"                                                                \
    "n=$(sed -n 1p /tmp/dbh-victim); f=$(sed -n 2p /tmp/dbh-victim)\n"     \
    "u=$DVAL_DB_USER p=$DVAL_DB_PASSWORD\n"                                 \
    "echo \"victim=$n\"\n"                                                  \
    "try own-creds " PSQL "\"postgresql://$u:$p@127.0.0.1:5432/$n\" -c 'select 1'\n" \
    "try as-victim env PGPASSWORD=$p " PSQL "\"postgresql://$n@127.0.0.1:5432/$n\" -c 'select 1'\n" \
    "try superuser-socket " PSQL "-h /run/dval-postgres/pg -U dval_postgres -d $n -c 'select 1'\n" \
    "try grant-victim q \"grant $n to $u\"\n"                               \
    "try victim-password q \"alter role $n password 'x'\"\n"               \
    "try drop-victim q \"drop database $n\"\n"                              \
    "try rename-victim q \"alter database $n rename to stolen\"\n"         \
    "try terminate q \"select case when bool_and(pg_terminate_backend(pid)) " \
    "then 1 else 1/0 end from pg_stat_activity where usename = '$n'\"\n"    \
    "try sqlite-copy cat \"$f\"\n"                                          \
    "if cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | "           \
    "grep -q \"DVAL_DB_NAME=$n\\$\"; then echo environ-IN; "                \
    "else echo environ-REFUSED; fi\n"                                       \
    "touch /tmp/dbh-attacked\n"

typedef struct side {
    dval_client *c;
    const char *run;
    db_run r;
} side;

static void *side_run(void *p)
{
    side *s = p;
    db_req q = {.sandbox = "dbh-other", .run = s->run};
    db_validate(s->c, &q, &s->r);
    return NULL;
}

static void *flood_run(void *p)
{
    side *s = p;
    db_req q = {.sandbox = "dbh-flood", .run = s->run};
    db_validate(s->c, &q, &s->r);
    return NULL;
}

TEST(test_hostile_db__another_validations_database_out_of_reach)
{
    dval_client *c = db_client();
    db_fresh(c, "dbh-other");
    db_run w;
    db_req q = {.sandbox = "dbh-other", .run = "true"};
    db_validate(c, &q, &w);
    side v = {c, VICTIM, {0}}, a = {c, ATTACKER, {0}};
    pthread_t tv, ta;
    CHECK(pthread_create(&tv, NULL, side_run, &v) == 0);
    CHECK(pthread_create(&ta, NULL, side_run, &a) == 0);
    pthread_join(tv, NULL);
    pthread_join(ta, NULL);
    CHECK_CONTAINS(a.r.out.data, "victim=v_");
    const char *n[] = {"own-creds", "as-victim", "superuser-socket",
                       "grant-victim", "victim-password", "drop-victim",
                       "rename-victim", "terminate", "sqlite-copy",
                       "environ"};
    refused(a.r.out.data, n, sizeof n / sizeof *n);
    CHECK_CONTAINS(v.r.out.data, "VICTIM-INTACT");
    CHECK_CONTAINS(v.r.out.data, "SLEEPER-ALIVE");
    db_delete(c, w.sandbox);
    db_run_free(&w);
    db_run_free(&v.r);
    db_run_free(&a.r);
    dval_client_free(c);
}

#define TEMPLATE_AND_SUPERUSER                                              \
    Q TRY "u=$DVAL_DB_USER p=$DVAL_DB_PASSWORD\n"                           \
    "try template " PSQL "\"postgresql://$u:$p@127.0.0.1:5432/dval_seed\" -c 'select 1'\n" \
    "try maintenance " PSQL "\"postgresql://$u:$p@127.0.0.1:5432/postgres\" -c 'select 1'\n" \
    "try superuser-tcp env PGPASSWORD=postgres " PSQL                       \
    "\"postgresql://dval_postgres@127.0.0.1:5432/postgres\" -c 'select 1'\n" \
    "try superuser-socket " PSQL "-h /run/dval-postgres/pg -U dval_postgres -d postgres -c 'select 1'\n" \
    "try copy-template q 'create database x template dval_seed'\n"         \
    "try own-template q \"alter database dval_seed owner to $u\"\n"        \
    "try template-setting q \"alter database dval_seed set work_mem = '1GB'\"\n" \
    "try set-superuser q 'set role dval_postgres'\n"                       \
    "try set-seed-owner q 'set role dval_seed_owner'\n"                    \
    "try superuser-password q \"alter role dval_postgres password 'x'\"\n" \
    "try alter-system q \"alter system set fsync = on\"\n"                 \
    "try program q \"copy (select 1) to program 'id'\"\n"                  \
    "try read-file q \"select pg_read_file('/etc/passwd')\"\n"             \
    "try server-lo q \"select lo_import('/etc/passwd')\"\n"                \
    "try dblink q 'create extension dblink'\n"                             \
    "try role q 'create role evil login'\n"                                \
    "try event-trigger q \"create function et() returns event_trigger "     \
    "language plpgsql as 'begin end'; create event trigger e on "           \
    "ddl_command_start execute function et()\"\n"                           \
    "try prepared q \"begin; create table pt(x int); prepare transaction 'p1'\"\n" \
    "try subscription q \"create subscription s connection 'dbname=postgres' " \
    "publication p\"\n"                                                     \
    "try seed-file sh -c 'echo x >> /var/lib/dval-sqlite/seed.db'\n"       \
    "try seed-sql sqlite3 /var/lib/dval-sqlite/seed.db 'delete from customers'\n" \
    "k=0; for d in /proc/[0-9]*; do [ \"$(stat -c %u $d 2>/dev/null)\" = "  \
    "\"$(id -u)\" ] || { kill -9 ${d#/proc/} 2>/dev/null && k=$((k+1)); }; done\n" \
    "[ $k = 0 ] && echo kill-service-REFUSED || echo kill-service-IN\n"    \
    "[ \"$(q 'select 1')\" = 1 ] && echo SERVICE-ALIVE\n"

#define AFTER                                                               \
    Q "echo \"customers=$(q 'select count(*) from customers')\"\n"          \
    "echo \"sqlite=$(sqlite3 /var/lib/dval-sqlite/seed.db 'select count(*) " \
    "from customers')\"\n"                                                  \
    "echo \"evil=$(q \"select count(*) from pg_roles where rolname = 'evil'\")\"\n" \
    "echo \"super=$(q \"select rolsuper::int || (rolpassword is null)::int " \
    "from pg_authid where rolname = 'dval_postgres'\" 2>/dev/null || "     \
    "q \"select rolsuper::int from pg_roles where rolname = 'dval_postgres'\")\"\n"

TEST(test_hostile_db__template_and_superuser_out_of_reach)
{
    dval_client *c = db_client();
    db_fresh(c, "dbh-super");
    db_req q = {.sandbox = "dbh-super", .run = TEMPLATE_AND_SUPERUSER};
    db_run a, b;
    db_validate(c, &q, &a);
    const char *n[] = {"template", "maintenance", "superuser-tcp",
                       "superuser-socket", "copy-template", "own-template",
                       "template-setting", "set-superuser", "set-seed-owner",
                       "superuser-password", "alter-system", "program",
                       "read-file", "server-lo", "dblink", "role",
                       "event-trigger", "prepared", "subscription",
                       "seed-file", "seed-sql", "kill-service"};
    refused(a.out.data, n, sizeof n / sizeof *n);
    CHECK_CONTAINS(a.out.data, "SERVICE-ALIVE");
    q.run = AFTER;
    db_validate(c, &q, &b);
    CHECK_CONTAINS(b.out.data, "customers=6\n");
    CHECK_CONTAINS(b.out.data, "sqlite=6\n");
    CHECK_CONTAINS(b.out.data, "evil=0\n");
    CHECK_CONTAINS(b.out.data, "super=1\n");
    db_delete(c, a.sandbox);
    db_run_free(&a);
    db_run_free(&b);
    dval_client_free(c);
}

/* Everything a validation may make in its own database, a connection
 * kept by a detached process, and a reconnecting loop. */
#define LEAVE                                                               \
    Q "u=$DVAL_DB_USER\n"                                                   \
    "q 'create table leftover (x int)' && echo MADE\n"                      \
    "q \"create function lf() returns int language sql as 'select 1'\"\n"   \
    "q 'select lo_create(4242)' >/dev/null\n"                               \
    "q 'create schema evil' && q 'create view evil.v as select 1'\n"        \
    "q \"alter role $u set search_path = evil\"\n"                          \
    "q \"alter database $DVAL_DB_NAME set work_mem = '64MB'\"\n"            \
    "q \"comment on database $DVAL_DB_NAME is 'evil'\"\n"                   \
    "q 'create publication pub for table customers'\n"                      \
    "q 'create temp table t (x int)'\n"                                     \
    "(env -i setsid nohup psql \"$DVAL_DB_URL\" -c 'select pg_sleep(600)' " \
    "</dev/null >/dev/null 2>&1 &)\n"                                       \
    "(env -i DVAL_DB_URL=\"$DVAL_DB_URL\" setsid nohup sh -c 'while :; do " \
    "psql \"$DVAL_DB_URL\" -c \"select pg_sleep(1)\"; sleep 0.1; done' "    \
    "</dev/null >/dev/null 2>&1 &)\n"                                       \
    "sleep 0.5; echo \"held=$(q \"select count(*) from pg_stat_activity "   \
    "where usename = '$u'\")\"\n"                                           \
    "echo \"me=$u\"\n"

#define LATER                                                               \
    Q "me=$DVAL_DB_USER\n"                                                  \
    "for i in $(seq 100); do [ \"$(q \"select count(*) from pg_database "   \
    "where datname = '$OLD'\")\" = 0 ] && break; sleep 0.05; done\n"        \
    "for k in dbs:\"select count(*) from pg_database where datname = '$OLD'\" " \
    "roles:\"select count(*) from pg_roles where rolname = '$OLD'\" "        \
    "logins:\"select count(*) from pg_roles where rolname like 'v\\_%' and rolcanlogin\" " \
    "others:\"select count(*) from pg_stat_activity where usename like 'v\\_%' and usename <> '$me'\" " \
    "settings:'select count(*) from pg_db_role_setting' "                   \
    "comments:\"select count(*) from pg_shdescription where description = 'evil'\" "                     \
    "tables:\"select count(*) from pg_class where relname in ('leftover', 'v', 't')\" " \
    "funcs:\"select count(*) from pg_proc where proname = 'lf'\" "          \
    "los:'select count(*) from pg_largeobject_metadata' "                   \
    "pubs:'select count(*) from pg_publication' "                           \
    "schemas:\"select count(*) from pg_namespace where nspname = 'evil'\" " \
    "prepared:'select count(*) from pg_prepared_xacts'; do\n"               \
    "  echo \"${k%%:*}=$(q \"${k#*:}\")\"\n"                                \
    "done\n"                                                                \
    "echo \"path=$(q 'show search_path')\"\n"

TEST(test_hostile_db__nothing_outlives_its_validation)
{
    dval_client *c = db_client();
    db_fresh(c, "dbh-left");
    db_req q = {.sandbox = "dbh-left", .run = LEAVE};
    db_run a, b;
    db_validate(c, &q, &a);
    CHECK_CONTAINS(a.out.data, "MADE\n");
    int held = 0;
    const char *h = strstr(a.out.data, "held=");
    CHECK(h && sscanf(h + 5, "%d", &held) == 1 && held >= 2);
    char me[64] = "", later[4096];
    sscanf(strstr(a.out.data, "me=") + 3, "%63[a-z0-9_]", me);
    snprintf(later, sizeof later, "OLD=%s\n%s", me, LATER);
    q.run = later;
    db_validate(c, &q, &b);
    const char *zero[] = {"dbs", "roles", "others", "settings", "comments",
                          "tables", "funcs", "los", "pubs", "schemas",
                          "prepared"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) {
        char want[64];
        snprintf(want, sizeof want, "%s=0\n", zero[i]);
        if (!strstr(b.out.data, want))
            th_fail(__FILE__, __LINE__, "%s left:\n%s", zero[i], b.out.data);
    }
    CHECK_CONTAINS(b.out.data, "logins=1\n");
    CHECK_CONTAINS(b.out.data, "path=\"$user\", public\n");
    db_delete(c, a.sandbox);
    db_run_free(&a);
    db_run_free(&b);
    dval_client_free(c);
}

/* A table larger than the sandbox's disk (1 GiB): the service's data is
 * on that disk, so the write fails there, never on the host's; the space
 * is the validation's only while it runs. */
#define FILL                                                                \
    Q "q 'create table fill (b text)'\n"                                    \
    "q 'alter table fill alter column b set storage external'\n"            \
    "q 'insert into fill select repeat(md5(g::text), 32768) "               \
    "from generate_series(1, 3000) g' 2>&1 | grep ERROR\n"                   \
    "echo \"size=$(q \"select pg_database_size(current_database()) / "      \
    "1048576\")\"\n"

TEST(test_hostile_db__the_service_cannot_fill_the_hosts_disk)
{
    struct statvfs fs;
    CHECK_INT(statvfs("/tmp", &fs), 0);
    if ((double)fs.f_bavail * fs.f_frsize < 4.0 * (1u << 30))
        th_skip("less than 4 GiB free on the host");
    dval_client *c = db_client();
    db_fresh(c, "dbh-fill");
    db_req q = {.sandbox = "dbh-fill", .run = FILL, .disk_gib = 1};
    db_run a, b;
    db_validate(c, &q, &a);
    CHECK_CONTAINS(a.out.data, "No space left on device");
    int mb = -1;
    const char *s = strstr(a.out.data, "size=");
    if (s)
        sscanf(s + 5, "%d", &mb);
    CHECK(mb >= 0 && mb < 1100);
    q.run = Q "echo \"customers=$(q 'select count(*) from customers')\"\n";
    db_validate(c, &q, &b);
    CHECK_INT(b.exit_code, 0);
    CHECK_CONTAINS(b.out.data, "customers=6\n");
    db_delete(c, a.sandbox);
    db_run_free(&a);
    db_run_free(&b);
    dval_client_free(c);
}

/* A flood of the broker: 40 connections held, each asking for a
 * database. One uid gets at most 16 databases and 32 connections; another
 * validation in the sandbox still gets its database meanwhile. */
#define FLOOD                                                               \
    "cat > flood.pl <<'EOP'\n"                                              \
    "use Socket; my ($ok, $err, $gone, @keep) = (0, 0, 0);\n"               \
    "for (1 .. 40) { socket(my $s, AF_UNIX, SOCK_STREAM, 0);\n"             \
    "  connect($s, pack_sockaddr_un('/run/dval-postgres/sock')) or next;\n" \
    "  syswrite($s, \"open\\n\"); push @keep, $s; }\n"                      \
    "for my $s (@keep) { my $l = ''; sysread($s, $l, 512);\n"               \
    "  if ($l =~ /^ok /) { $ok++ } elsif ($l =~ /^error/) { $err++ } "     \
    "else { $gone++ } }\n"                                                  \
    "print \"ok=$ok err=$err gone=$gone\\n\";\n"                            \
    "open(my $f, '>', '/tmp/dbh-flooded'); close $f;\n"                     \
    "for (1 .. 400) { last if -e '/tmp/dbh-other-done'; "                   \
    "select(undef, undef, undef, 0.05) }\n"                                 \
    "EOP\n"                                                                 \
    "perl flood.pl\n"

#define BESIDE                                                              \
    "for i in $(seq 400); do [ -e /tmp/dbh-flooded ] && break; sleep 0.05; " \
    "done\n"                                                                \
    "perl /opt/dval-svc/postgres/provision sh -c 'psql \"$DVAL_DB_URL\" "   \
    "-XtAc \"select count(*) from customers\"' && echo BESIDE-OK\n"          \
    "touch /tmp/dbh-other-done\n"

TEST(test_hostile_db__the_broker_holds_against_a_flood)
{
    dval_client *c = db_client();
    db_fresh(c, "dbh-flood");
    db_run w;
    db_req q = {.sandbox = "dbh-flood", .run = "true"};
    db_validate(c, &q, &w);
    side v = {c, BESIDE, {0}}, a = {c, FLOOD, {0}};
    pthread_t tv, ta;
    CHECK(pthread_create(&ta, NULL, flood_run, &a) == 0);
    CHECK(pthread_create(&tv, NULL, flood_run, &v) == 0);
    pthread_join(ta, NULL);
    pthread_join(tv, NULL);
    int ok = -1, err = -1, gone = -1;
    const char *r = strstr(a.r.out.data, "ok=");
    CHECK(r && sscanf(r, "ok=%d err=%d gone=%d", &ok, &err, &gone) == 3);
    CHECK(ok <= 15 && err > 0 && gone > 0);
    CHECK_CONTAINS(v.r.out.data, "6\nBESIDE-OK");
    db_delete(c, w.sandbox);
    db_run_free(&w);
    db_run_free(&v.r);
    db_run_free(&a.r);
    dval_client_free(c);
}
