/* dval_snapshot_list on the local executor: the snapshots made through
 * the API are listed (names as given, state, runtime), a deleted one is
 * not, and a directory that is no snapshot is left out. */
#include "lt.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct seen {
    int n, a, b;
    int state_b;
} seen;

static int on_snap(const dval_snapshot_info *info, void *ud)
{
    seen *s = ud;
    s->n++;
    if (!strcmp(info->name, "list-a"))
        s->a++;
    if (!strcmp(info->name, "py/list:b")) {
        s->b++;
        s->state_b = info->state;
    }
    return 0;
}

static void ensure(dval_client *c, const char *name, const char *step)
{
    const char *steps[] = { step, NULL };
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = name;
    s.image = "debian:12";
    s.build_commands = step ? steps : NULL;
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, c, &s, NULL, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(c));
    if (rc)
        fprintf(stderr, "ensure %s: %s\n", name, dval_client_errmsg(c));
    CHECK_INT(rc, DVAL_OK);
    dval_snapshot_free(snap);
}

TEST(test_snapshot_list__two_ensured_snapshots_listed)
{
    lt t;
    lt_open(&t, "snaplist");
    dval_client *c = lt_client(&t);
    seen s = {0};
    CHECK_INT(dval_snapshot_list(c, on_snap, &s), DVAL_OK);
    CHECK_INT(s.n, 0);
    ensure(c, "list-a", NULL);
    ensure(c, "py/list:b", "echo built > /opt/built");
    char stray[700];
    snprintf(stray, sizeof stray, "%s/snapshots/not-a-snapshot", t.dir);
    CHECK_INT(mkdir(stray, 0755), 0);
    CHECK_INT(dval_snapshot_list(c, on_snap, &s), DVAL_OK);
    CHECK_INT(s.n, 2);
    CHECK_INT(s.a, 1);
    CHECK_INT(s.b, 1);
    CHECK_INT(s.state_b, DVAL_SNAPSHOT_ACTIVE);

    dval_snapshot *snap = NULL;
    CHECK_INT(dval_snapshot_get(&snap, c, "list-a"), DVAL_OK);
    CHECK_INT(dval_snapshot_delete(snap), DVAL_OK);
    dval_snapshot_free(snap);
    memset(&s, 0, sizeof s);
    CHECK_INT(dval_snapshot_list(c, on_snap, &s), DVAL_OK);
    CHECK_INT(s.n, 1);
    CHECK_INT(s.b, 1);
    CHECK_INT(s.a, 0);
    dval_client_free(c);
    lt_close(&t);
}

static int stop_now(const dval_snapshot_info *info, void *ud)
{
    (void)info;
    ++*(int *)ud;
    return 1;
}

TEST(test_snapshot_list__callback_stops_listing)
{
    lt t;
    lt_open(&t, "snaplist-stop");
    dval_client *c = lt_client(&t);
    ensure(c, "stop-a", NULL);
    ensure(c, "stop-b", NULL);
    int calls = 0;
    CHECK_INT(dval_snapshot_list(c, stop_now, &calls), DVAL_EABORTED);
    CHECK_INT(calls, 1);
    CHECK(strstr(dval_client_errmsg(c), "list snapshots") != NULL);
    CHECK_INT(dval_snapshot_list(c, NULL, NULL), DVAL_EINVAL);
    dval_client_free(c);
    lt_close(&t);
}
