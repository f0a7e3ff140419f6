/* The internal acquire's hints (lib/sandbox_acquire.h), on a scripted
 * executor: a name the caller made for this acquire alone is created with
 * no lookup first (and a taken one still ends in the lookup, PROTOCOL
 * 9.2); a sandbox the caller saw started becomes a handle with no request
 * at all, while a known one in another state goes through the ladder. The
 * label dval.isolation=sandbox decides nothing. */
#include <string.h>

#include "harness.h"
#include "sandbox_acquire.h"
#include "support_fake.h"

static fake F;

static dval_client *setup(void)
{
    fakeclock_install();
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    return c;
}

static void options(dval_sandbox_options *o)
{
    dval_sandbox_options_init(o, sizeof *o);
    o->name = "shell-sandbox-0123abcd4567";
    o->snapshot = "validation-snapshot-shell";
    o->release = DVAL_RELEASE_DELETE;
}

static int states_seen;

static void on_state(const char *name, int state, void *ud)
{
    (void)name;
    (void)ud;
    if (state == DVAL_SANDBOX_STARTED)
        states_seen++;
}

TEST(acquire_hint__fresh_name_is_created_without_a_lookup)
{
    dval_client *c = setup();
    dval_sandbox_options o;
    options(&o);
    dval__acquire_hint h = { 1, NULL, NULL };
    dval_sandbox *sb = NULL;
    CHECK_INT(dval__sandbox_acquire(&sb, c, &o, &h), DVAL_OK);
    CHECK_STR(F.trace, "sb_create ");
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(acquire_hint__fresh_name_taken_after_all_is_looked_up)
{
    dval_client *c = setup();
    F.sb_exists = 1;
    snprintf(F.sb.id, sizeof F.sb.id, "id-taken");
    snprintf(F.sb.name, sizeof F.sb.name, "shell-sandbox-0123abcd4567");
    F.sb.state = DVAL_SANDBOX_STARTED;
    dval_sandbox_options o;
    options(&o);
    dval__acquire_hint h = { 1, NULL, NULL };
    dval_sandbox *sb = NULL;
    CHECK_INT(dval__sandbox_acquire(&sb, c, &o, &h), DVAL_OK);
    CHECK_STR(F.trace, "sb_create sb_get ");
    CHECK_STR(dval_sandbox_id(sb), "id-taken");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(acquire_hint__isolation_label_alone_still_looks_up)
{
    dval_client *c = setup();
    dval_sandbox_options o;
    options(&o);
    const char *labels[] = { "dval.isolation=sandbox", NULL };
    o.labels = labels;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_create ");
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(acquire_hint__known_started_sandbox_needs_no_request)
{
    dval_client *c = setup();
    dval_sandbox_options o;
    options(&o);
    o.name = "pool-shell-0";
    o.on_state = on_state;
    dval_sandbox_info known;
    memset(&known, 0, sizeof known);
    known.struct_size = sizeof known;
    snprintf(known.id, sizeof known.id, "id-pool-0");
    known.state = DVAL_SANDBOX_STARTED;
    dval__acquire_hint h = { 0, &known, NULL };
    dval_sandbox *sb = NULL;
    states_seen = 0;
    CHECK_INT(dval__sandbox_acquire(&sb, c, &o, &h), DVAL_OK);
    CHECK_STR(F.trace, "");
    CHECK_STR(dval_sandbox_id(sb), "id-pool-0");
    CHECK_STR(dval_sandbox_name(sb), "pool-shell-0");
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    CHECK_INT(states_seen, 1);   /* reported as an acquire's would be */
    dval_sandbox_free(sb);
    dval_client_free(c);
}

TEST(acquire_hint__known_but_not_started_goes_through_the_ladder)
{
    dval_client *c = setup();
    F.sb_exists = 1;
    snprintf(F.sb.id, sizeof F.sb.id, "id-pool-0");
    snprintf(F.sb.name, sizeof F.sb.name, "pool-shell-0");
    F.sb.state = DVAL_SANDBOX_STOPPED;
    int seq[] = { DVAL_SANDBOX_STOPPED };   /* what the lookup sees */
    fake_sb_seq(&F, 1, seq);
    dval_sandbox_options o;
    options(&o);
    o.name = "pool-shell-0";
    dval_sandbox_info known = F.sb;
    dval__acquire_hint h = { 0, &known, NULL };
    dval_sandbox *sb = NULL;
    CHECK_INT(dval__sandbox_acquire(&sb, c, &o, &h), DVAL_OK);
    CHECK_STR(F.trace, "sb_get sb_start ");
    CHECK_INT(dval_sandbox_state(sb), DVAL_SANDBOX_STARTED);
    dval_sandbox_free(sb);
    dval_client_free(c);
}
