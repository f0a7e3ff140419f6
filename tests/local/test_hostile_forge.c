/* Verdict integrity: a concurrent honest run and a later honest run of the
 * same profile keep their honest results while an attacker run rewrites
 * every results directory it can find (by glob, and by the honest runs'
 * thread ids: /sandbox is not listable), signals every process it sees
 * and replaces /bin/sh. */
#include "hostile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run {
    hx *h;
    const char *tid, *script;
    int rc;
    char *json;
    char err[DVAL_ERRMSG_MAX];   /* the client's message on this thread */
} run;

static void *run_thread(void *p)
{
    run *r = p;
    r->rc = hx_validate(r->h, "sb", r->tid, r->script, &r->json);
    snprintf(r->err, sizeof r->err, "%s", dval_client_errmsg(r->h->client));
    return NULL;
}

#define ATTACK                                                              \
    "i=0; while [ $i -lt 30 ]; do\n"                                        \
    "  for d in /sandbox/*/results /sandbox/*/*/results "                  \
    "/sandbox/honest-a/results /sandbox/warm/results; do\n"                \
    "    [ \"$d\" = \"$DVAL_RESULTS_DIR\" ] && continue\n"                  \
    "    echo '{\"v\":\"forged\"}' > \"$d/r.json\" 2>/dev/null\n"           \
    "    chmod -R a-w \"$d\" 2>/dev/null\n"                                 \
    "  done\n"                                                              \
    "  i=$((i+1)); sleep 0.1\n"                                             \
    "done\n"                                                                \
    "printf '#!/bin/dash\\necho forged-sh\\nmkdir -p results\\n"            \
    "echo {\\\\\"v\\\\\":\\\\\"forged\\\\\"} > results/r.json\\n' "         \
    "> /tmp/fakesh && chmod 755 /tmp/fakesh\n"                              \
    "for s in /bin/sh /usr/bin/sh; do rm -f $s; cp /tmp/fakesh $s; done\n"  \
    "echo '{\"v\":\"attacker\"}' > results/r.json\n"                        \
    "for p in $(ls /proc | grep -E '^[0-9]+$'); do\n"                       \
    "  [ $p -ne $$ ] && [ $p -ne 1 ] && kill -9 $p 2>/dev/null\n"           \
    "done; exit 0\n"

TEST(test_hostile_forge__honest_runs_keep_their_results)
{
    hx h;
    hx_open(&h, "forge");
    char *json = NULL;
    CHECK_INT(hx_validate(&h, "sb", "warm", "echo '{}' > results/w.json\n",
                          &json), DVAL_OK);
    dval_free(json);
    run honest = { &h, "honest-a", "touch started; sleep 1.5; "
                   "echo '{\"v\":\"honest-a\"}' > results/r.json; "
                   "sleep 2.5; exit 0\n", 0, NULL, "" };
    run evil = { &h, "evil", ATTACK, 0, NULL, "" };
    pthread_t ta, te;
    CHECK(pthread_create(&ta, NULL, run_thread, &honest) == 0);
    char p[1200];
    hx_inside(&h, "sb", "/sandbox/honest-a/started", p, sizeof p);
    for (int i = 0; i < 3000 && access(p, F_OK) != 0; i++)
        usleep(10000);
    CHECK(pthread_create(&te, NULL, run_thread, &evil) == 0);
    pthread_join(te, NULL);
    pthread_join(ta, NULL);
    dval_free(evil.json);
    if (honest.rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "honest run: %s: %s",
                dval_strerror(honest.rc), honest.err);
    CHECK_CONTAINS(honest.json, "\"exit_code\":0");
    CHECK_CONTAINS(honest.json, "\"r.json\":{\"v\":\"honest-a\"}");
    CHECK(!strstr(honest.json, "forged"));
    dval_free(honest.json);
    /* a later run of the same profile runs its own program, with the
     * real /bin/sh */
    int rc = hx_validate(&h, "sb", "honest-b", "echo '{\"v\":\"honest-b\"}' "
                         "> results/r.json\n", &json);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "later run: %s: %s", dval_strerror(rc),
                dval_client_errmsg(h.client));
    CHECK_CONTAINS(json, "\"exit_code\":0");
    CHECK_CONTAINS(json, "\"r.json\":{\"v\":\"honest-b\"}");
    CHECK(!strstr(json, "forged"));
    dval_free(json);
    hx_close(&h);
}
