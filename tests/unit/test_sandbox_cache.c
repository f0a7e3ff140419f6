/* The client's cache of known sandboxes (lib/sandbox_cache.h): an entry
 * replaced by a newer one, gone once forgotten, and consistent under
 * threads that put, read and forget at once (a pool's validations). */
#include <pthread.h>
#include <string.h>

#include "harness.h"
#include "sandbox_cache.h"
#include "support_fake.h"

static fake F;

static dval_sandbox_info info(const char *name, const char *id, int state)
{
    dval_sandbox_info i = { .struct_size = sizeof i };
    snprintf(i.name, sizeof i.name, "%s", name);
    snprintf(i.id, sizeof i.id, "%s", id);
    i.state = state;
    return i;
}

TEST(sandbox_cache__put_replaces_and_forget_removes)
{
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    dval_sandbox_info got, a = info("pool-0", "id-1", DVAL_SANDBOX_STARTED);
    CHECK_INT(dval__sbcache_get(c, "pool-0", &got), 0);
    CHECK_INT(dval__sbcache_put(c, &a), DVAL_OK);
    a = info("pool-1", "", DVAL_SANDBOX_UNKNOWN);   /* tried, not known */
    CHECK_INT(dval__sbcache_put(c, &a), DVAL_OK);
    CHECK_INT(dval__sbcache_get(c, "pool-0", &got), 1);
    CHECK_STR(got.id, "id-1");
    a = info("pool-0", "id-2", DVAL_SANDBOX_STARTED); /* made again */
    CHECK_INT(dval__sbcache_put(c, &a), DVAL_OK);
    CHECK_INT(dval__sbcache_get(c, "pool-0", &got), 1);
    CHECK_STR(got.id, "id-2");
    CHECK_INT(dval__sbcache_get(c, "pool-1", &got), 1);
    CHECK_STR(got.id, "");
    dval__sbcache_forget(c, "pool-0");
    dval__sbcache_forget(c, "pool-9");              /* unknown: nothing */
    CHECK_INT(dval__sbcache_get(c, "pool-0", &got), 0);
    CHECK_INT(dval__sbcache_get(c, "pool-1", &got), 1);
    dval_client_free(c);                            /* frees what is left */
}

#define THREADS 8
#define ROUNDS 2000

typedef struct lane {
    dval_client *c;
    int k, torn;
} lane;

/* Each thread puts, reads and forgets its own name and a shared one; an
 * entry read is always one that was put whole (its id matches its
 * name's writer). */
static void *churn(void *arg)
{
    lane *l = arg;
    char own[32], id[32];
    snprintf(own, sizeof own, "own-%d", l->k);
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(id, sizeof id, "%d-%d", l->k, r);
        dval_sandbox_info a = info(r % 2 ? own : "shared", id,
                                   DVAL_SANDBOX_STARTED), got;
        dval__sbcache_put(l->c, &a);
        if (dval__sbcache_get(l->c, own, &got) &&
            strncmp(got.id, id, strchr(id, '-') - id + 1))
            l->torn++;
        if (dval__sbcache_get(l->c, "shared", &got) &&
            (got.state != DVAL_SANDBOX_STARTED || !strchr(got.id, '-')))
            l->torn++;
        if (r % 3 == 0)
            dval__sbcache_forget(l->c, r % 2 ? own : "shared");
    }
    return NULL;
}

TEST(sandbox_cache__threads_see_whole_entries)
{
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    CHECK(c);
    pthread_t t[THREADS];
    lane l[THREADS];
    for (int i = 0; i < THREADS; i++) {
        l[i] = (lane){ c, i, 0 };
        CHECK_INT(pthread_create(&t[i], NULL, churn, &l[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(l[i].torn, 0);
    }
    dval_client_free(c);
}
