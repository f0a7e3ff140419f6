/* The backoff table: exact without jitter, bounded with it. */
#include "harness.h"
#include "support_fake.h"

#include "core.h"

TEST(backoff__table_without_jitter)
{
    fake f;
    fake_init(&f);
    dval_client *c = fake_client(&f, 0);
    int64_t want[] = { 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000 };
    for (int i = 0; i < 8; i++)
        CHECK_INT(dval__backoff_ms(c, i + 1, -1), want[i]);
    CHECK_INT(dval__backoff_ms(c, 3, 1500), 1500); /* server hint first */
    CHECK_INT(dval__backoff_ms(c, 3, 0), 0);
    /* a hint is honoured up to a day: a deadline added to it never wraps */
    CHECK(dval__backoff_ms(c, 3, INT64_MAX) == DVAL__RETRY_AFTER_MAX_MS);
    dval_client_free(c);
}

TEST(backoff__full_jitter_stays_in_bounds)
{
    fake f;
    fake_init(&f);
    dval_client *c = fake_client(&f, 1);
    for (int attempt = 1; attempt <= 4; attempt++) {
        int64_t cap = 1000LL << (attempt - 1), lo = cap, hi = 0;
        for (int i = 0; i < 2000; i++) {
            int64_t d = dval__backoff_ms(c, attempt, -1);
            CHECK(d >= 0 && d <= cap);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        CHECK(lo < cap / 4 && hi > cap * 3 / 4); /* really spread out */
    }
    CHECK_INT(dval__backoff_ms(c, 2, 700), 700);
    dval_client_free(c);
}

TEST(backoff__options_change_the_table)
{
    fake f;
    fake_init(&f);
    struct dval_executor ex;
    dval_executor_init(&ex, sizeof ex);
    ex.userdata = &f;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.custom_executor = &ex;
    o.retry_base_ms = 500;
    o.retry_factor = 3;
    o.retry_cap_ms = 10000;
    dval_client *c;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    CHECK_INT(dval__backoff_ms(c, 1, -1), 500);
    CHECK_INT(dval__backoff_ms(c, 2, -1), 1500);
    CHECK_INT(dval__backoff_ms(c, 3, -1), 4500);
    CHECK_INT(dval__backoff_ms(c, 4, -1), 10000);
    dval_client_free(c);
}
