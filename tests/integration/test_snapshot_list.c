/* dval_snapshot_list on the daytona executor against the emulator: every
 * snapshot, following GET /snapshots page by page (200 a page). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define N_SNAPS 205     /* two pages of 200 */

typedef struct seen {
    int n, dups, stop_after;
    unsigned char hit[N_SNAPS];
} seen;

static int on_snap(const dval_snapshot_info *info, void *ud)
{
    seen *s = ud;
    int i = -1;
    if (sscanf(info->name, "list-%d", &i) == 1 && i >= 0 && i < N_SNAPS) {
        s->dups += s->hit[i];
        s->hit[i] = 1;
    }
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static size_t drop(char *p, size_t size, size_t n, void *ud)
{
    (void)p, (void)ud;
    return size * n;
}

/* POST /api/snapshots straight to the API: quicker than ensures. */
static long create(CURL *h, const char *url, const char *body)
{
    struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: "
                                              "application/json");
    hd = curl_slist_append(hd, "Authorization: Bearer dtn_test-key");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, drop);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
    long st = -1;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
    curl_slist_free_all(hd);
    return st;
}

static void make_snaps(emu *e, int n)
{
    char url[200];
    snprintf(url, sizeof url, "%s/snapshots", e->api);
    CURL *h = curl_easy_init();
    for (int i = 0; i < n; i++) {
        char body[128];
        snprintf(body, sizeof body, "{\"name\":\"list-%d\","
                 "\"imageName\":\"debian:12-slim\"}", i);
        long st = create(h, url, body);
        if (st != 200 && st != 201)
            th_fail(__FILE__, __LINE__, "create list-%d: HTTP %ld", i, st);
    }
    curl_easy_cleanup(h);
}

TEST(snapshot_list_follows_every_page)
{
    emu e;
    emu_start(&e);
    make_snaps(&e, N_SNAPS);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    seen s = {0};
    int rc = dval_snapshot_list(c, on_snap, &s);
    if (rc)
        th_fail(__FILE__, __LINE__, "list: %s: %s", dval_status_name(rc),
                dval_client_errmsg(c));
    CHECK_INT(s.n, N_SNAPS);
    CHECK_INT(s.dups, 0);
    CHECK_INT(emu_count(&e, "GET", "^/api/snapshots$"), 2);
    dval_client_free(c);
    emu_stop(&e);
}

TEST(snapshot_list_stopped_by_callback_and_bad_arguments)
{
    emu e;
    emu_start(&e);
    make_snaps(&e, 3);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    seen s = {.stop_after = 1};
    CHECK_INT(dval_snapshot_list(c, on_snap, &s), DVAL_EABORTED);
    CHECK_INT(s.n, 1);
    CHECK_INT(dval_snapshot_list(c, NULL, NULL), DVAL_EINVAL);
    CHECK_INT(dval_snapshot_list(NULL, on_snap, &s), DVAL_EINVAL);
    dval_client_free(c);
    emu_stop(&e);
}

TEST(snapshot_list_empty)
{
    emu e;
    emu_start(&e);
    dval_client *c = emu_client(&e, NULL, 20, NULL);
    seen s = {0};
    CHECK_INT(dval_snapshot_list(c, on_snap, &s), DVAL_OK);
    CHECK_INT(s.n, 0);
    dval_client_free(c);
    emu_stop(&e);
}
