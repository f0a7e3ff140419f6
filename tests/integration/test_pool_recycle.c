/* The pool's fallback when an executor cannot guarantee a reset (issue 14
 * item 2, "recycled only after a reset the executor guarantees"): on the
 * emulator, through a wrapper of the Daytona executor's vtable, a pool of
 * one isolation=sandbox slot creates a fresh sandbox for every validation
 * and deletes it after when sandbox_reset is NULL or fails, and keeps one
 * sandbox across the validations (reset after each, deleted by
 * dval_pool_free) when it succeeds, never for two validations at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "harness.h"
#include "support_emulator.h"

enum { RESET_NULL, RESET_FAILS, RESET_OK };

static atomic_int resets;
static int reset_status;

static int fake_reset(void *ud, dval_call *c, const char *id)
{
    (void)ud, (void)id;
    atomic_fetch_add(&resets, 1);
    if (reset_status)
        dval__fmt(c->errmsg, sizeof c->errmsg, "the fake reset fails");
    return reset_status;
}

static int count(const char *id, const char *name, int state, void *ud)
{
    (void)id, (void)state;
    /* a deleted one lingers renamed DESTROYED_<name>_<ms>, as on Daytona */
    if (!strncmp(name, "rc-", 3))
        ++*(int *)ud;
    return 0;
}

typedef struct lane {
    dval_pool *pool;
    const char *dir;
    int rc;
} lane;

static void *validate_lane(void *p)
{
    lane *l = p;
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.source_dir = l->dir;
    r.isolation = DVAL_ISOLATION_SANDBOX;
    char *json = NULL;
    l->rc = dval_pool_validate(l->pool, &r, NULL, NULL, &json);
    dval_free(json);
    return NULL;
}

/* n validations on one isolation=sandbox slot (per_sb at once after the
 * first); returns how many sandboxes were created; *left: how many
 * remain after dval_pool_free. */
static int run_pool_per(int mode, int n, int per_sb, int *left)
{
    emu e;
    dval_client *base = emu_fast(&e);
    struct dval_executor wrap = base->ex;   /* the Daytona executor */
    wrap.destroy = NULL;                    /* base owns its userdata */
    wrap.sandbox_reset = mode == RESET_NULL ? NULL : fake_reset;
    reset_status = mode == RESET_FAILS ? DVAL_EIO : DVAL_OK;
    atomic_store(&resets, 0);
    dval_client_options co;
    dval_client_options_init(&co, sizeof co);
    co.custom_executor = &wrap;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &co), DVAL_OK);
    dval_pool_options o;
    dval_pool_options_init(&o, sizeof o);
    o.profile = "shell";
    o.name = "rc";
    o.max_sandboxes = 1;
    o.max_per_sandbox = per_sb;
    dval_pool *pool = NULL;
    CHECK_INT(dval_pool_new(&pool, c, &o), DVAL_OK);
    char dir[64];
    emu_program(dir, per_sb > 1 ? "sleep 0.5; echo '{\"ok\":1}' > "
                "results/r.json\n" : "echo '{\"ok\":1}' > results/r.json\n");
    /* the first alone (a slot's first validation is never shared), then
     * per_sb at a time */
    for (int i = 0; i < n; i += i ? per_sb : 1) {
        lane l[4];
        pthread_t th[4];
        int k = i ? per_sb : 1;
        for (int j = 0; j < k; j++) {
            l[j] = (lane){ pool, dir, -1 };
            CHECK(pthread_create(&th[j], NULL, validate_lane, &l[j]) == 0);
        }
        for (int j = 0; j < k; j++) {
            pthread_join(th[j], NULL);
            if (l[j].rc)
                th_fail(__FILE__, __LINE__, "validation %d: %s", i + j,
                        dval_status_name(l[j].rc));
        }
    }
    int created = emu_count(&e, "POST", "^/api/sandbox$");
    dval_pool_free(pool);
    *left = 0;
    CHECK_INT(dval_sandbox_list(c, NULL, count, left), DVAL_OK);
    emu_program_rm(dir);
    dval_client_free(c);
    dval_client_free(base);
    emu_stop(&e);
    return created;
}

static int run_pool(int mode, int n, int *left)
{
    return run_pool_per(mode, n, 1, left);
}

TEST(test_pool_recycle__null_member_deletes_and_creates)
{
    int left = -1;
    CHECK_INT(run_pool(RESET_NULL, 3, &left), 3);
    CHECK_INT(atomic_load(&resets), 0);
    CHECK_INT(left, 0);
}

TEST(test_pool_recycle__failed_reset_deletes_and_creates)
{
    int left = -1;
    CHECK_INT(run_pool(RESET_FAILS, 3, &left), 3);
    CHECK_INT(atomic_load(&resets), 3);   /* tried after each */
    CHECK_INT(left, 0);
}

TEST(test_pool_recycle__guaranteed_reset_keeps_one_sandbox)
{
    int left = -1;
    CHECK_INT(run_pool(RESET_OK, 3, &left), 1);
    CHECK_INT(atomic_load(&resets), 3);   /* right after each validation */
    CHECK_INT(left, 0);                    /* dval_pool_free deleted it */
}


/* max_per_sandbox 2: two validations on the slot at once; the slot's
 * sandbox serves one of them, the other gets a fresh one of its own,
 * deleted after it (never the recycled one while it is in use). */
TEST(test_pool_recycle__never_two_validations_on_one_sandbox)
{
    int left = -1;
    /* 1 alone (creates the slot's), then 2 × 2 at once: one fresh each */
    CHECK_INT(run_pool_per(RESET_OK, 5, 2, &left), 3);
    CHECK_INT(atomic_load(&resets), 3);   /* only the slot's own, each time */
    CHECK_INT(left, 0);
}
