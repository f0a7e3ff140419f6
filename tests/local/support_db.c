/* Support for the database service suites (db.h). */
#include "db.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lt.h"
#include "services.h"

static char state[600];

static const char *state_dir(void)
{
    snprintf(state, sizeof state, "%s/db", lt_base());
    return state;
}

/* Snapshots of earlier seeds or scripts (another tag) would pile up in
 * the kept state directory, hundreds of MB each: removed. */
static void prune(dval_client *c)
{
    static const char *const svc[] = {"postgres", "sqlite", NULL};
    static const char *const seeds[] = {DB_SCHEMA, DB_DATA, NULL};
    dval__svcset s;
    char msg[256], p[700];
    CHECK_INT(dval__svcset_load(&s, svc, seeds, msg, sizeof msg), DVAL_OK);
    snprintf(p, sizeof p, "%s/snapshots", state);
    DIR *d = opendir(p);
    for (struct dirent *e; d && (e = readdir(d));) {
        dval_snapshot *snap = NULL;
        if (strstr(e->d_name, "-db") && !strstr(e->d_name, s.tag) &&
            dval_snapshot_get(&snap, c, e->d_name) == DVAL_OK)
            dval_snapshot_delete(snap);
        dval_snapshot_free(snap);
    }
    if (d)
        closedir(d);
    dval__svcset_free(&s);
}

dval_client *db_client(void)
{
    if (getenv("DVAL_VALGRIND")) /* the uploads need openat2 */
        th_skip("valgrind has no openat2, which a validation's upload needs");
    if (geteuid() != 0)
        th_skip("the database services run only where sandboxes can "
                "switch to the services' uid (root)");
    /* a first run builds the snapshot: an apt-get of PostgreSQL */
    alarm(420);
    mkdir(lt_base(), 0755);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = state_dir();
    o.local = &lo;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    prune(c);
    return c;
}

int db_on_event(const dval_event *ev, void *ud)
{
    db_run *r = ud;
    if (ev->type == DVAL_EVENT_OUTPUT)
        dval__buf_append(ev->stream == DVAL_STDERR ? &r->err : &r->out,
                         ev->data, ev->len);
    else if (ev->type == DVAL_EVENT_PHASE && ev->done && !ev->status &&
             !strcmp(ev->phase, "sandbox") && ev->detail)
        snprintf(r->sandbox, sizeof r->sandbox, "%.*s",
                 (int)strcspn(ev->detail, " "), ev->detail);
    else if (ev->type == DVAL_EVENT_PHASE && ev->done && !ev->status &&
             !strcmp(ev->phase, "run") && ev->detail)
        sscanf(ev->detail, "exit code %d", &r->exit_code);
    return 0;
}

void db_try(dval_client *c, const db_req *q, db_run *r)
{
    static const char *const both[] = {"postgres", "sqlite", NULL};
    static const char *const seeds[] = {DB_SCHEMA, DB_DATA, NULL};
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    char empty[] = "/tmp/dval-db-src-XXXXXX";
    CHECK(q->dir || mkdtemp(empty));
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = q->profile ? q->profile : "shell";
    v.sandbox_name = q->sandbox;
    v.run_command = q->run;
    v.build_command = q->build;
    v.source_dir = q->dir ? q->dir : empty;
    v.services = q->services ? q->services : both;
    v.seeds = seeds;
    v.isolation = q->isolation;
    v.disk_gib = q->disk_gib;
    v.timeout_ms = q->timeout_ms ? q->timeout_ms : 120000;
    v.allow_missing_results = 1;
    r->rc = dval_validate(c, &v, db_on_event, r, &r->summary);
    if (!q->dir)
        rmdir(empty);
    dval__buf_append(&r->out, "", 0);
    dval__buf_append(&r->err, "", 0);
}

void db_validate(dval_client *c, const db_req *q, db_run *r)
{
    db_try(c, q, r);
    if (r->rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "validate: %s\n%s%s",
                dval_client_errmsg(c), r->out.data, r->err.data);
}

void db_run_free(db_run *r)
{
    dval__buf_free(&r->out);
    dval__buf_free(&r->err);
    dval_free(r->summary);
    r->summary = NULL;
}

const char *db_result(const db_run *r)
{
    static char text[65536];
    text[0] = 0;
    json_t *j = r->summary ? json_loads(r->summary, 0, NULL) : NULL;
    json_t *res = json_object_get(json_object_get(j, "results"),
                                  "results.json");
    char *s = res ? json_dumps(res, JSON_COMPACT) : NULL;
    snprintf(text, sizeof text, "%s", s ? s : "");
    free(s);
    json_decref(j);
    return text;
}

void db_delete(dval_client *c, const char *name)
{
    dval_sandbox *sb = NULL;
    if (dval_sandbox_get(&sb, c, name) == DVAL_OK)
        dval_sandbox_delete(sb);
    dval_sandbox_free(sb);
}

void db_fresh(dval_client *c, const char *base)
{
    char p[700], pre[300];
    snprintf(p, sizeof p, "%s/sandboxes", state);
    snprintf(pre, sizeof pre, "%s-db", base);
    DIR *d = opendir(p);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, pre, strlen(pre)))
            db_delete(c, e->d_name);
    if (d)
        closedir(d);
}

/* The host pid of sandbox name's init, or -1. */
static pid_t init_pid(const char *name)
{
    char p[1400], line[300];
    snprintf(p, sizeof p, "%s/sandboxes/%s/state", state, name);
    FILE *f = fopen(p, "r");
    pid_t pid = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "pid=", 4))
            pid = (pid_t)atoi(line + 4);
    if (f)
        fclose(f);
    return pid;
}

static int same_ns(pid_t a, pid_t b)
{
    char pa[64], pb[64], la[128] = "", lb[128] = "";
    snprintf(pa, sizeof pa, "/proc/%d/ns/pid", (int)a);
    snprintf(pb, sizeof pb, "/proc/%d/ns/pid", (int)b);
    return readlink(pa, la, sizeof la - 1) > 0 &&
           readlink(pb, lb, sizeof lb - 1) > 0 && !strcmp(la, lb);
}

pid_t db_service_pid(const char *sandbox, const char *comm)
{
    pid_t init = init_pid(sandbox), found = -1;
    DIR *d = opendir("/proc");
    for (struct dirent *e; init > 0 && d && (e = readdir(d));) {
        pid_t pid = (pid_t)atoi(e->d_name);
        char p[64], name[64] = "";
        snprintf(p, sizeof p, "/proc/%d/comm", (int)pid);
        FILE *f = pid > 0 ? fopen(p, "r") : NULL;
        if (f && fgets(name, sizeof name, f))
            name[strcspn(name, "\n")] = 0;
        if (f)
            fclose(f);
        if (!strcmp(name, comm) && same_ns(init, pid) &&
            (found < 0 || pid < found))
            found = pid;
    }
    if (d)
        closedir(d);
    return found;
}

int db_wait_file(const char *sandbox, const char *path, int ms)
{
    char p[1200];
    snprintf(p, sizeof p, "/proc/%d/root%s", (int)init_pid(sandbox), path);
    for (int t = 0; t < ms; t += 20) {
        if (access(p, F_OK) == 0)
            return 1;
        usleep(20000);
    }
    return 0;
}
