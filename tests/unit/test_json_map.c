/* Request bodies the daytona executor builds from resolved options. */
#include "harness.h"
#include "executor/daytona/json_map.h"

static char *create_body(int32_t auto_stop, int32_t auto_delete)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "val-sbx-1";
    o.snapshot = "validator-snap-v1";
    o.auto_stop_minutes = auto_stop; /* as resolved by the core */
    o.auto_delete_minutes = auto_delete;
    char *body = NULL;
    CHECK_INT(dt_json_sandbox_create(&body, &o, "us"), DVAL_OK);
    return body;
}

TEST(json_map__auto_stop_is_sent_as_resolved_by_the_core)
{
    /* the core turns the default into 60 and "never" (-1) into 0 */
    char *b = create_body(60, 0);
    CHECK_CONTAINS(b, "\"autoStopInterval\":60");
    free(b);
    b = create_body(0, 0);
    CHECK_CONTAINS(b, "\"autoStopInterval\":0");
    free(b);
    b = create_body(15, 30);
    CHECK_CONTAINS(b, "\"autoStopInterval\":15");
    CHECK_CONTAINS(b, "\"autoDeleteInterval\":30");
    CHECK_CONTAINS(b, "\"snapshot\":\"validator-snap-v1\"");
    CHECK_CONTAINS(b, "\"target\":\"us\"");
    CHECK(!strstr(b, "\"cpu\"")); /* never resources with a snapshot */
    free(b);
}

/* The archive interval and the TTL go out only when set */
TEST(json_map__archive_interval_and_ttl_only_when_set)
{
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "val-sbx-1";
    o.snapshot = "validator-snap-v1";
    char *b = NULL;
    CHECK_INT(dt_json_sandbox_create(&b, &o, NULL), DVAL_OK);
    CHECK(!strstr(b, "autoArchiveInterval"));
    CHECK(!strstr(b, "ttlMinutes"));
    free(b);
    o.auto_archive_minutes = 90;
    o.ttl_minutes = 1440;
    CHECK_INT(dt_json_sandbox_create(&b, &o, NULL), DVAL_OK);
    CHECK_CONTAINS(b, "\"autoArchiveInterval\":90");
    CHECK_CONTAINS(b, "\"ttlMinutes\":1440");
    free(b);
}
