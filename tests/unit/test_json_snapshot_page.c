/* The reply of GET /snapshots?page= (dt_json_snapshot_page): the items
 * in order, totalPages, and the ways a reply is not one. */
#include <string.h>

#include "harness.h"
#include "executor/daytona/json_map.h"

typedef struct got {
    int n, stop_at;
    char last[DVAL_ID_MAX];
    int last_state;
} got;

static int item(const dval_snapshot_info *info, void *ud)
{
    got *g = ud;
    g->n++;
    memcpy(g->last, info->name, sizeof g->last);
    g->last_state = info->state;
    return g->stop_at && g->n >= g->stop_at ? DVAL_EABORTED : 0;
}

static int parse(const char *body, got *g, int64_t *pages, char *err,
                 size_t cap)
{
    dt_snapshot_page pg = { .item = item, .ud = g };
    int rc = dt_json_snapshot_page(body, strlen(body), &pg, err, cap);
    *pages = pg.total_pages;
    return rc;
}

TEST(json_snapshot_page__items_and_total_pages)
{
    got g = { 0 };
    int64_t pages;
    char err[256] = "";
    CHECK_INT(parse("{\"items\":[{\"id\":\"a1\",\"name\":\"one\",\"state\":"
                    "\"active\"},{\"id\":\"b2\",\"name\":\"two\",\"state\":"
                    "\"build_failed\",\"errorReason\":\"x\"}],\"total\":2,"
                    "\"page\":1,\"totalPages\":3}", &g, &pages, err,
                    sizeof err), DVAL_OK);
    CHECK_INT(g.n, 2);
    CHECK_STR(g.last, "two");
    CHECK_INT(g.last_state, DVAL_SNAPSHOT_BUILD_FAILED);
    CHECK_INT((int)pages, 3);
    memset(&g, 0, sizeof g);
    CHECK_INT(parse("{\"items\":[]}", &g, &pages, err, sizeof err), DVAL_OK);
    CHECK_INT(g.n, 0);
    CHECK_INT((int)pages, 0);
}

TEST(json_snapshot_page__malformed_replies_named)
{
    got g = { 0 };
    int64_t pages;
    char err[256] = "";
    CHECK_INT(parse("{\"items\":{}}", &g, &pages, err, sizeof err),
              DVAL_EPROTOCOL);
    CHECK_CONTAINS(err, "\"items\"");
    CHECK_INT(parse("{\"items\":[],\"totalPages\":\"2\"}", &g, &pages, err,
                    sizeof err), DVAL_EPROTOCOL);
    CHECK_CONTAINS(err, "totalPages");
    CHECK_INT(parse("{\"items\":[],\"totalPages\":-1}", &g, &pages, err,
                    sizeof err), DVAL_EPROTOCOL);
    CHECK_INT(parse("{\"items\":[7]}", &g, &pages, err, sizeof err),
              DVAL_EPROTOCOL);
    CHECK_CONTAINS(err, "items[0]");
    CHECK_INT(parse("{\"items\":[{\"name\":\"no-id\"}]}", &g, &pages, err,
                    sizeof err), DVAL_EPROTOCOL);
    CHECK_INT(parse("<html>", &g, &pages, err, sizeof err), DVAL_EPROTOCOL);
}

TEST(json_snapshot_page__item_callback_stops)
{
    got g = { .stop_at = 1 };
    int64_t pages;
    char err[256] = "";
    CHECK_INT(parse("{\"items\":[{\"id\":\"a\"},{\"id\":\"b\"}],"
                    "\"totalPages\":1}", &g, &pages, err, sizeof err),
              DVAL_EABORTED);
    CHECK_INT(g.n, 1);
}
