/* The log WebSocket's handles, kept by the client between streams: a
 * connect-only easy handle with its constant options set once, the multi
 * handle that drives its connect, and the read buffer. Making and freeing
 * them per stream was a curl_easy_init, a multi (with its wake-up socket
 * pair) and a dozen options every time. Each stream still has its own
 * connection: curl never reuses a connect-only one, and dt_ws_put closes
 * it (curl_multi_remove_handle disconnects a connect-only transfer's
 * connection at once). */
#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "http_ws_int.h"

static void ws_free(dt_ws *ws)
{
    if (ws->added)
        curl_multi_remove_handle(ws->m, ws->e);
    if (ws->m)
        curl_multi_cleanup(ws->m);
    if (ws->e)
        curl_easy_cleanup(ws->e);
    dt_urlh_free(&ws->url);
    dval__free(ws);
}

static dt_ws *ws_new(dt_http *h)
{
    dt_ws *ws = dval__malloc(sizeof *ws);
    if (!ws)
        return NULL;
    memset(ws, 0, offsetof(dt_ws, buf));
    memset(&ws->http, 0, sizeof *ws - offsetof(dt_ws, http));
    ws->http = h;
    ws->e = curl_easy_init();
    ws->m = curl_multi_init();
    ws->timeout_ms = dt_easy_timeout(h, 0);
    CURL *e = ws->e;
    /* no TCP keep-alive: the stream's own pings (WS_PING_MS) keep it
     * alive, and the option was three setsockopts per connection; the
     * share (DNS, TLS sessions; not connections) spares each stream a
     * name lookup and a full TLS handshake */
    CURLcode r = e && ws->m && !dt_easy_common(h, e, 0, DT_EASY_SHARE)
                     ? CURLE_OK : CURLE_FAILED_INIT;
#define SET(o, v) if (r == CURLE_OK) r = curl_easy_setopt(e, o, v)
    SET(CURLOPT_CONNECT_ONLY, 1L);
    /* HTTP/1.1 so ALPN cannot pick h2; a proxy must tunnel, not relay */
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SET(CURLOPT_HTTPPROXYTUNNEL, 1L);
    SET(CURLOPT_ERRORBUFFER, ws->ebuf);
#undef SET
    if (r != CURLE_OK) {
        ws_free(ws);
        return NULL;
    }
    return ws;
}

dt_ws *dt_ws_get(dt_http *h)
{
    dt_ws *ws = NULL;
    pthread_mutex_lock(&h->pool_lock);
    if (h->nws > 0)
        ws = h->ws_idle[--h->nws];
    pthread_mutex_unlock(&h->pool_lock);
    if (!ws)
        return ws_new(h);
    /* nothing of the last stream: its state, buffered bytes, socket */
    memset(ws, 0, offsetof(dt_ws, buf));
    ws->ebuf[0] = '\0';
    return ws;
}

void dt_ws_put(dt_ws *ws)
{
    if (!ws)
        return;
    if (ws->added)
        curl_multi_remove_handle(ws->m, ws->e);   /* closes the connection */
    ws->added = 0;
    dt_http *h = ws->http;
    pthread_mutex_lock(&h->pool_lock);
    if (h->nws < DT_WS_POOL_MAX && !ws->spoiled) {
        h->ws_idle[h->nws++] = ws;
        ws = NULL;
    }
    pthread_mutex_unlock(&h->pool_lock);
    if (ws)
        ws_free(ws);
}

void dt_ws_pool_free(dt_http *h)
{
    for (int i = 0; i < h->nws; i++)
        ws_free(h->ws_idle[i]);
    h->nws = 0;
}
