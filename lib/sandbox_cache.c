/* The client's cache of known sandboxes (sandbox_cache.h). A list: it
 * holds a pool's slots and the sandboxes validations have in use right
 * now, a handful, and a validation's own sandbox leaves it at close. */
#include <string.h>

#include "sandbox_cache.h"

typedef struct entry {
    struct entry *next;
    dval_sandbox_info info;
} entry;

static entry **find(dval_client *c, const char *name)
{
    entry **e = (entry **)&c->sbcache;
    while (*e && strcmp((*e)->info.name, name))
        e = &(*e)->next;
    return e;
}

int dval__sbcache_put(dval_client *c, const dval_sandbox_info *info)
{
    pthread_mutex_lock(&c->sbcache_lock);
    entry **e = find(c, info->name);
    if (!*e)
        *e = dval__calloc(1, sizeof **e);
    int rc = *e ? DVAL_OK : DVAL_ENOMEM;
    if (*e)
        (*e)->info = *info;
    pthread_mutex_unlock(&c->sbcache_lock);
    return rc;
}

int dval__sbcache_get(dval_client *c, const char *name,
                      dval_sandbox_info *out)
{
    pthread_mutex_lock(&c->sbcache_lock);
    entry **e = find(c, name);
    int known = *e != NULL;
    if (known)
        *out = (*e)->info;
    pthread_mutex_unlock(&c->sbcache_lock);
    return known;
}

void dval__sbcache_forget(dval_client *c, const char *name)
{
    pthread_mutex_lock(&c->sbcache_lock);
    entry **e = find(c, name);
    if (*e) {
        entry *gone = *e;
        *e = gone->next;
        dval__free(gone);
    }
    pthread_mutex_unlock(&c->sbcache_lock);
}

void dval__sbcache_init(dval_client *c)
{
    pthread_mutex_init(&c->sbcache_lock, NULL);
    c->sbcache = NULL;
}

void dval__sbcache_free(dval_client *c)
{
    for (entry *e = c->sbcache, *next; e; e = next) {
        next = e->next;
        dval__free(e);
    }
    c->sbcache = NULL;
    pthread_mutex_destroy(&c->sbcache_lock);
}
