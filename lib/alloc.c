/* All library allocations go through here so tests can fail the Nth one
 * (jansson's test_chaos / curl's torture model). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static atomic_long fail_at;   /* 0 = off; else countdown to the failure */
static atomic_long count;

void dval__alloc_fail_at(long n)
{
    atomic_store(&count, 0);
    atomic_store(&fail_at, n);
}

long dval__alloc_count(void)
{
    return atomic_load(&count);
}

static int should_fail(void)
{
    atomic_fetch_add(&count, 1);
    long f = atomic_load(&fail_at);
    if (f <= 0)
        return 0;
    if (atomic_fetch_sub(&fail_at, 1) == 1)
        return 1;
    return 0;
}

void *dval__malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return malloc(n ? n : 1);
}

void *dval__calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *dval__realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    return realloc(p, n ? n : 1);
}

void dval__free(void *p)
{
    free(p);
}

char *dval__strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    char *d = dval__malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *dval__strdup(const char *s)
{
    return s ? dval__strndup(s, strlen(s)) : NULL;
}

DVAL_API void dval_free(void *ptr)
{
    free(ptr);
}
