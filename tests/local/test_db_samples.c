/* The samples that look like the design's programs (issue 41): one query
 * loop over the seeded shop as EF Core + LINQ and as Dapper (C#), and as
 * JDBC (its Java translation), each against PostgreSQL and SQLite, every
 * one through the profile's own run command with the services. All six
 * write the same results document, byte for byte, so a C# program and its
 * translation can be compared. */
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EX "examples/validation/"

static const char golden[] =
    "{\"customers_in_new_york\":[{\"id\":4,\"name\":\"Barbara\"},"
    "{\"id\":2,\"name\":\"Grace\"}],\"order_totals\":["
    "{\"order_id\":2,\"customer\":\"Grace\",\"total_cents\":39700},"
    "{\"order_id\":6,\"customer\":\"Grace\",\"total_cents\":21400},"
    "{\"order_id\":4,\"customer\":\"Ada\",\"total_cents\":18500},"
    "{\"order_id\":7,\"customer\":\"Edsger\",\"total_cents\":10000},"
    "{\"order_id\":3,\"customer\":\"Linus\",\"total_cents\":9900},"
    "{\"order_id\":1,\"customer\":\"Ada\",\"total_cents\":9500}],"
    "\"revenue_by_category\":["
    "{\"category\":\"books\",\"units\":6,\"revenue_cents\":15000},"
    "{\"category\":\"hardware\",\"units\":6,\"revenue_cents\":48000},"
    "{\"category\":\"software\",\"units\":3,\"revenue_cents\":14700}],"
    "\"customers_without_orders\":[\"Margaret\"],"
    "\"top_customer\":{\"name\":\"Grace\",\"orders\":2,\"total_cents\":61100},"
    "\"orders_before_insert\":7,\"orders_after_insert\":8,"
    "\"customers_without_orders_after_insert\":[]}";

/* The sample in dir through the profile's run command, with engine's
 * database first; then the results file's bytes, after "RAW:". A
 * request with its own run command names its build command too. */
static void sample(dval_client *c, const char *profile, const char *dir,
                   const char *engine, const char *sandbox)
{
    static const char *const pg[] = {"postgres", "sqlite", NULL};
    static const char *const sq[] = {"sqlite", "postgres", NULL};
    const dval_profile *p = dval_profile_find(profile);
    size_t n = strlen(p->run_command) + 200;
    char *run = malloc(n);
    snprintf(run, n, "echo \"engine=${DVAL_DB_URL%%%%:*}\"; (%s\n) && "
             "printf 'RAW:' && cat \"$DVAL_RESULTS_DIR/results.json\"",
             p->run_command);
    db_req q = {.profile = profile, .dir = dir, .run = run,
                .build = p->build_command,
                .sandbox = sandbox,
                .services = !strcmp(engine, "postgresql") ? pg : sq};
    db_run r;
    db_validate(c, &q, &r);
    if (r.exit_code != 0)
        th_fail(__FILE__, __LINE__, "%s on %s: exit %d\n%s%s", dir, engine,
                r.exit_code, r.out.data, r.err.data);
    char want[64];
    snprintf(want, sizeof want, "engine=%s\n", engine);
    CHECK_CONTAINS(r.out.data, want);
    CHECK_CONTAINS(r.out.data, "6 orders, top customer Grace\n");
    const char *raw = strstr(r.out.data, "RAW:");
    CHECK(raw != NULL);
    CHECK_STR(raw + 4, golden);
    CHECK_STR(db_result(&r), golden);
    db_run_free(&r);
    free(run);
}

TEST(test_db_samples__java_jdbc_on_both_engines)
{
    dval_client *c = db_client();
    db_fresh(c, "dbs-java");
    sample(c, "java", EX "java-jdbc-db", "postgresql", "dbs-java");
    sample(c, "java", EX "java-jdbc-db", "file", "dbs-java");
    db_fresh(c, "dbs-java");
    dval_client_free(c);
}

TEST(test_db_samples__csharp_efcore_and_dapper_on_both_engines)
{
    if (system("command -v dotnet >/dev/null 2>&1") != 0)
        th_skip("no .NET SDK on this host");
    dval_client *c = db_client();
    db_fresh(c, "dbs-dotnet");
    const char *dirs[] = {EX "dotnet-efcore-db", EX "dotnet-dapper-db"};
    for (int i = 0; i < 2; i++) {
        sample(c, "dotnet", dirs[i], "postgresql", "dbs-dotnet");
        sample(c, "dotnet", dirs[i], "file", "dbs-dotnet");
    }
    db_fresh(c, "dbs-dotnet");
    dval_client_free(c);
}
