/* profile_prepare, the executor member that says whether it can run a
 * profile and with which build steps: dval_validate asks it before the
 * snapshot, follows its answer, and without it uses the profile as it is,
 * whatever the executor is called (the core compares no names). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"

typedef struct rec {
    int mode;                       /* what profile_prepare answers */
    int prepares, gets, creates;
    const dval_profile *seen;
    const char *const *steps;       /* the spec's build steps, as created */
} rec;

enum { ANSWER_STEPS, ANSWER_NULL, REFUSE, PASSTHROUGH };

static const char *const custom_steps[] = {"echo custom", NULL};

static int prepare(void *ud, dval_call *c, const dval_profile *p,
                   const char *const **build)
{
    rec *r = ud;
    r->prepares++;
    r->seen = p;
    switch (r->mode) {
    case ANSWER_STEPS:
        *build = custom_steps;
        return DVAL_OK;
    case ANSWER_NULL:
        *build = NULL;
        return DVAL_OK;
    case REFUSE:
        snprintf(c->errmsg, sizeof c->errmsg, "no %s runtime here", p->name);
        return DVAL_EUNSUPPORTED;
    default:
        return DVAL_EPASSTHROUGH;
    }
}

static int snap_get(void *ud, dval_call *c, const char *name,
                    dval_snapshot_info *out)
{
    (void)name;
    (void)out;
    ((rec *)ud)->gets++;
    snprintf(c->errmsg, sizeof c->errmsg, "no snapshot");
    return DVAL_ENOTFOUND;
}

/* Records the steps and stops the validation there (a permanent
 * refusal, so nothing is retried). */
static int snap_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log, void *lud)
{
    (void)out;
    (void)log;
    (void)lud;
    rec *r = ud;
    r->creates++;
    r->steps = s->build_commands;
    snprintf(c->errmsg, sizeof c->errmsg, "recorded");
    return DVAL_EFORBIDDEN;
}

/* A client on the recording executor named name; with_member 0: an
 * executor built before profile_prepare existed (its struct ends at
 * workdir_release). */
static dval_client *client_on(rec *r, const char *name, int with_member)
{
    struct dval_executor ex;
    size_t size = with_member ? sizeof ex
                              : offsetof(struct dval_executor,
                                         profile_prepare);
    CHECK_INT(dval_executor_init(&ex, size), DVAL_OK);
    ex.name = name;
    ex.userdata = r;
    ex.snapshot_get = snap_get;
    ex.snapshot_create = snap_create;
    if (with_member)
        ex.profile_prepare = prepare;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    o.retry_attempts = 1;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    return c;
}

static int validate(dval_client *c, const char *profile)
{
    dval_validation v;
    dval_validation_init(&v, sizeof v);
    v.profile = profile;
    v.source_dir = "/tmp";
    return dval_validate(c, &v, NULL, NULL, NULL);
}

TEST(test_profile_prepare__its_build_steps_reach_the_snapshot)
{
    rec r = {.mode = ANSWER_STEPS};
    dval_client *c = client_on(&r, "mine", 1);
    CHECK_INT(validate(c, "java"), DVAL_EFORBIDDEN);
    CHECK_INT(r.prepares, 1);
    CHECK(r.seen == dval_profile_find("java"));
    CHECK_INT(r.creates, 1);
    CHECK(r.steps == custom_steps);
    dval_client_free(c);
}

TEST(test_profile_prepare__null_steps_or_passthrough_keep_the_profiles)
{
    const dval_profile *java = dval_profile_find("java");
    const int modes[] = {ANSWER_NULL, PASSTHROUGH};
    for (int i = 0; i < 2; i++) {
        rec r = {.mode = modes[i]};
        dval_client *c = client_on(&r, "mine", 1);
        CHECK_INT(validate(c, "java"), DVAL_EFORBIDDEN);
        CHECK_INT(r.prepares, 1);
        CHECK(r.steps == java->build_commands);
        dval_client_free(c);
    }
}

TEST(test_profile_prepare__a_refusal_fails_the_snapshot_phase_before_any_call)
{
    rec r = {.mode = REFUSE};
    dval_client *c = client_on(&r, "mine", 1);
    CHECK_INT(validate(c, "shell"), DVAL_EUNSUPPORTED);
    CHECK_STR(dval_client_errmsg(c), "snapshot: no shell runtime here");
    CHECK_INT(r.gets + r.creates, 0);
    dval_client_free(c);
}

/* An executor called "local" without the member (an older struct, read as
 * having none) gets the profile's build_commands, not
 * local_build_commands: only the local executor's own profile_prepare
 * picks those. */
TEST(test_profile_prepare__no_member_means_the_profile_as_it_is)
{
    const dval_profile *java = dval_profile_find("java");
    CHECK(java->local_build_commands != java->build_commands);
    rec r = {.mode = REFUSE};
    dval_client *c = client_on(&r, "local", 0);
    CHECK_INT(validate(c, "java"), DVAL_EFORBIDDEN);
    CHECK_INT(r.prepares, 0);
    CHECK(r.steps == java->build_commands);
    dval_client_free(c);
}

/* dval_profile_snapshot_ensure builds what dval_validate would build, and
 * is refused the same way (the CLI's `snapshot ensure` relies on it). */
TEST(test_profile_prepare__profile_snapshot_ensure_follows_the_executor)
{
    const dval_profile *java = dval_profile_find("java");
    rec r = {.mode = ANSWER_STEPS};
    dval_client *c = client_on(&r, "mine", 1);
    dval_snapshot *snap = (dval_snapshot *)&r;  /* must come back NULL */
    CHECK_INT(dval_profile_snapshot_ensure(&snap, c, java, NULL, NULL),
              DVAL_EFORBIDDEN);
    CHECK(snap == NULL);
    CHECK_INT(r.prepares, 1);
    CHECK(r.steps == custom_steps);
    dval_client_free(c);

    rec q = {.mode = REFUSE};
    c = client_on(&q, "mine", 1);
    CHECK_INT(dval_profile_snapshot_ensure(&snap, c, java, NULL, NULL),
              DVAL_EUNSUPPORTED);
    CHECK_STR(dval_client_errmsg(c), "no java runtime here");
    CHECK_INT(q.gets + q.creates, 0);
    CHECK_INT(dval_profile_snapshot_ensure(NULL, c, java, NULL, NULL),
              DVAL_EINVAL);
    CHECK_INT(dval_profile_snapshot_ensure(&snap, c, NULL, NULL, NULL),
              DVAL_EINVAL);
    dval_profile nameless = *java;
    nameless.snapshot_name = "";
    CHECK_INT(dval_profile_snapshot_ensure(&snap, c, &nameless, NULL, NULL),
              DVAL_EINVAL);
    dval_client_free(c);
}
