/* The target of dval_daytona_options is read by the daytona executor
 * alone (the core keeps no copy): it is the region of every snapshot and
 * sandbox the client creates whose own options name none, on the
 * emulator. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

/* Recorded POSTs to path (exact) whose JSON body has member = value. */
static int posts_with(emu *e, const char *path, const char *member,
                      const char *value)
{
    char *text = emu_get(e, "/_emu/requests");
    CHECK(text != NULL);
    json_t *all = json_loads(text, 0, NULL);
    free(text);
    CHECK(json_is_array(all));
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r) {
        const char *m = json_string_value(json_object_get(r, "method"));
        const char *p = json_string_value(json_object_get(r, "path"));
        const char *b = json_string_value(json_object_get(r, "body"));
        if (!m || strcmp(m, "POST") || !p || strcmp(p, path) || !b)
            continue;
        json_t *body = json_loads(b, 0, NULL);
        const char *v = json_string_value(json_object_get(body, member));
        n += v && !strcmp(v, value);
        json_decref(body);
    }
    json_decref(all);
    return n;
}

static dval_client *client_in(emu *e, const char *target)
{
    dval_daytona_options d;
    dval_daytona_options_init(&d, sizeof d);
    d.api_url = e->api;
    d.api_key = "dtn_test-key";
    d.target = target;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "daytona";
    o.retry_base_ms = 20;
    o.daytona = &d;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    d.target = "changed"; /* read during dval_client_new only */
    return c;
}

TEST(daytona_options_target_is_the_region_of_creates)
{
    emu e;
    emu_start(&e);
    CHECK_INT(emu_post(&e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client *c = client_in(&e, "eu");
    dval_snapshot_spec s;
    dval_snapshot_spec_init(&s, sizeof s);
    s.name = "snap-eu";
    s.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    CHECK_INT(dval_snapshot_ensure(&snap, c, &s, NULL, NULL), DVAL_OK);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb-eu";
    so.snapshot = "snap-eu";
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, c, &so);
    if (rc)
        th_fail(__FILE__, __LINE__, "acquire: %s", dval_client_errmsg(c));
    CHECK_INT(posts_with(&e, "/api/snapshots", "regionId", "eu"), 1);
    CHECK_INT(posts_with(&e, "/api/sandbox", "target", "eu"), 1);
    /* a sandbox's own target wins (the emulator then refuses it: the
     * snapshot lives in eu only) */
    dval_sandbox *other = NULL;
    so.name = "sb-us";
    so.target = "us";
    CHECK(dval_sandbox_acquire(&other, c, &so) != DVAL_OK);
    CHECK_INT(posts_with(&e, "/api/sandbox", "target", "us"), 1);
    dval_sandbox_free(sb);
    dval_snapshot_free(snap);
    dval_client_free(c);
    emu_stop(&e);
}
