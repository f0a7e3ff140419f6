/* Toolbox base URLs: rstrip(toolboxProxyUrl, "/") + "/" + sandbox id
 * (PROTOCOL 4.1), remembered from every Sandbox DTO we see, so toolbox
 * calls need no extra API round trip. Shared by threads: mutex. */
#include <pthread.h>
#include <string.h>

#include "dt.h"
#include "json_map.h"

#define TB_MAX 256   /* sandboxes remembered; oldest entry replaced */

typedef struct tb_entry {
    char *id;
    char *base;
} tb_entry;

struct dt_tbcache {
    pthread_mutex_t lock;
    tb_entry e[TB_MAX];
    int n, next;
};

int dt_tbcache_new(dt_tbcache **out)
{
    dt_tbcache *t = dval__calloc(1, sizeof *t);
    if (!t)
        return DVAL_ENOMEM;
    pthread_mutex_init(&t->lock, NULL);
    *out = t;
    return DVAL_OK;
}

void dt_tbcache_free(dt_tbcache *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++) {
        dval__free(t->e[i].id);
        dval__free(t->e[i].base);
    }
    pthread_mutex_destroy(&t->lock);
    dval__free(t);
}

static char *make_base(const char *proxy, const char *id)
{
    dval__buf b = {0};
    size_t l = strlen(proxy);
    while (l && proxy[l - 1] == '/')
        l--;
    if (dval__buf_append(&b, proxy, l) || dval__buf_append(&b, "/", 1) ||
        dt_url_escape(&b, id)) {
        dval__buf_free(&b);
        return NULL;
    }
    return b.data;
}

void dt_tb_remember(dt_exec *ex, const char *id, const char *proxy_url)
{
    dt_tbcache *t = ex->tb;
    char *base = make_base(proxy_url, id);
    char *idc = dval__strdup(id);
    if (!base || !idc) {
        dval__free(base);
        dval__free(idc);
        return;   /* only a cache: the fallback still works */
    }
    pthread_mutex_lock(&t->lock);
    int slot = -1;
    for (int i = 0; i < t->n && slot < 0; i++)
        if (strcmp(t->e[i].id, id) == 0)
            slot = i;
    if (slot < 0 && t->n < TB_MAX)
        slot = t->n++;
    if (slot < 0) {
        slot = t->next;
        t->next = (t->next + 1) % TB_MAX;
    }
    dval__free(t->e[slot].id);
    dval__free(t->e[slot].base);
    t->e[slot].id = idc;
    t->e[slot].base = base;
    pthread_mutex_unlock(&t->lock);
}

static int lookup(dt_tbcache *t, const char *id, dval__buf *b)
{
    int rc = DVAL_ENOTFOUND;
    pthread_mutex_lock(&t->lock);
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->e[i].id, id) == 0) {
            rc = dval__buf_append(b, t->e[i].base, strlen(t->e[i].base));
            break;
        }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int dt_tb_base(dt_exec *ex, dval_call *c, const char *id, dval__buf *b)
{
    if (!id || !id[0])
        return dval__call_fail(c, DVAL_EINVAL, "empty sandbox id");
    int rc = lookup(ex->tb, id, b);
    if (rc != DVAL_ENOTFOUND)
        return rc;
    /* not seen yet (e.g. a fresh client): ask the API */
    dval__buf url = {0}, proxy = {0};
    dt_req rq = {.method = "GET"};
    rc = dt_url(&url, ex->api_url, "/sandbox/%s/toolbox-proxy-url", id);
    rq.url = url.data;
    if (!rc)
        rc = dt_json_call(ex, c, &rq, dt_json_url, &proxy);
    if (!rc) {
        dt_tb_remember(ex, id, proxy.data);
        rc = lookup(ex->tb, id, b);
        if (rc == DVAL_ENOTFOUND)
            rc = dval__call_fail(c, DVAL_ENOMEM, "out of memory");
    }
    dval__buf_free(&url);
    dval__buf_free(&proxy);
    return rc;
}
