/* Support for the database service suites (test_db_*.c): real
 * validations through the public API on the local executor, with the
 * services and the samples' seed (examples/validation/db), in one state
 * directory that keeps its snapshots across tests and runs (the sandboxes
 * are each test's own and deleted): a snapshot with the services costs an
 * apt-get of PostgreSQL, built once. */
#ifndef DVAL_TEST_DB_H
#define DVAL_TEST_DB_H

#include <sys/types.h>

#include "harness.h"
#include "internal.h"

#define DB_SCHEMA "examples/validation/db/schema.sql"
#define DB_DATA "examples/validation/db/data.sql"

typedef struct db_req {
    const char *profile;          /* NULL: shell */
    const char *sandbox;          /* sandbox_name (NULL: the profile's) */
    const char *run;              /* run_command (NULL: the profile's) */
    const char *build;            /* build_command with an own run */
    const char *dir;              /* source_dir (NULL: an empty one) */
    const char *const *services;  /* NULL: postgres, then sqlite */
    int isolation;
    int disk_gib;
    int64_t timeout_ms;
} db_req;

typedef struct db_run {
    int rc;                       /* dval_validate's */
    int exit_code;                /* -1: the program did not run */
    dval__buf out, err;           /* its output */
    char *summary;                /* dval_free; NULL on failure */
    char sandbox[DVAL_ID_MAX];    /* the sandbox it ran in */
} db_run;

/* A client on the suites' state directory; skips unless root. Extends the
 * test's alarm to cover a snapshot build. */
dval_client *db_client(void);
/* One validation; fails the test when dval_validate fails (the
 * program's own exit code is the test's to check). */
void db_validate(dval_client *c, const db_req *r, db_run *out);
/* The same; a failure is left in out->rc for the test to check. */
void db_try(dval_client *c, const db_req *r, db_run *out);
void db_run_free(db_run *r);
/* The dval_event_fn that fills a db_run (userdata): output, sandbox,
 * exit code. */
int db_on_event(const dval_event *ev, void *ud);
/* The results file results.json of the summary, as JSON text (static). */
const char *db_result(const db_run *r);
/* Deletes sandbox name (absent is fine). */
void db_delete(dval_client *c, const char *name);
/* Deletes what a failed earlier run left: every sandbox whose name is
 * base with a services tag ("<base>-db..."). */
void db_fresh(dval_client *c, const char *base);
/* Host pid of the oldest process named comm in sandbox name's pid
 * namespace (its postmaster for "postgres"), or -1. */
pid_t db_service_pid(const char *sandbox, const char *comm);
/* Waits up to ms for path (absolute, in sandbox name's root) to exist. */
int db_wait_file(const char *sandbox, const char *path, int ms);

#endif
