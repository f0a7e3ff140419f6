/* The emulator's counters (GET <base>/_emu/stats) for the bench clients
 * (dvbench.c, poolbench.c), read on a connection of their own so the
 * library's connections are not touched. Header-only; needs libcurl and
 * jansson. */
#ifndef DVAL_BENCH_EMUSTATS_H
#define DVAL_BENCH_EMUSTATS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

typedef struct emu_stats {
    long conns, reqs, ws, created;  /* created: sandboxes_created */
} emu_stats;

static size_t emu_stats_grow(char *p, size_t s, size_t n, void *ud)
{
    char **b = ud;
    size_t old = *b ? strlen(*b) : 0;
    char *nb = realloc(*b, old + s * n + 1);
    if (!nb)
        return 0;
    memcpy(nb + old, p, s * n);
    nb[old + s * n] = 0;
    *b = nb;
    return s * n;
}

/* All -1 without an emulator (base NULL or empty) or on failure. */
static emu_stats emu_stats_get(const char *base)
{
    emu_stats st = {-1, -1, -1, -1};
    if (!base || !*base)
        return st;
    char url[300], *body = NULL;
    snprintf(url, sizeof url, "%s/_emu/stats", base);
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, emu_stats_grow);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
    if (curl_easy_perform(e) == CURLE_OK && body) {
        json_t *j = json_loads(body, 0, NULL);
        st.conns = (long)json_integer_value(json_object_get(j, "connections"));
        st.reqs = (long)json_integer_value(json_object_get(j, "requests"));
        st.ws = (long)json_integer_value(json_object_get(j, "websockets"));
        st.created = (long)json_integer_value(json_object_get(j,
                                              "sandboxes_created"));
        json_decref(j);
    }
    free(body);
    curl_easy_cleanup(e);
    return st;
}

#endif
