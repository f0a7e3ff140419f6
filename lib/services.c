/* A validation's services and seeds, resolved (services.h). The core
 * derives from them, in one place: the snapshot's extra build steps
 * (each service's install steps in the built-in table's order, the seed
 * files, each service's init step), the tag that ends the names of that
 * snapshot and of its sandboxes (a hash of every added step: seeds and
 * scripts included, so two different sets never share either), and the
 * run command's wrapping. */
#include <stdint.h>
#include <string.h>

#include "profile_service.h"
#include "services.h"

static int add_service(dval__svcset *s, const char *name, char *msg,
                       size_t cap)
{
    const dval__service *sv = dval__service_find(name);
    if (!sv) {
        const char *const *known = NULL;
        dval_service_names(&known);
        dval__fmt(msg, cap, "unknown service \"%s\" (there are: %s%s%s)",
                  name ? name : "", known[0], known[1] ? ", " : "",
                  known[1] ? known[1] : "");
        return DVAL_EINVAL;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->svc[i] == sv)
            return DVAL_OK; /* named twice: once is what it means */
    if (s->n == DVAL__SERVICES_MAX) {
        dval__fmt(msg, cap, "more than %d services", DVAL__SERVICES_MAX);
        return DVAL_EINVAL;
    }
    s->svc[s->n++] = sv;
    return DVAL_OK;
}

static size_t count(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* The build order: installs by rank (not as the request names them, so
 * one set named in another order is the same snapshot), the seed files,
 * inits by rank. */
static int order_steps(dval__svcset *s)
{
    const dval__service *r[DVAL__SERVICES_MAX];
    memcpy(r, s->svc, s->n * sizeof *r);
    for (size_t i = 1; i < s->n; i++)
        for (size_t j = i; j > 0 && dval__service_rank(r[j]) <
                                    dval__service_rank(r[j - 1]); j--) {
            const dval__service *t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    size_t n = count((const char *const *)s->owned) + 1;
    for (size_t i = 0; i < s->n; i++)
        n += count(r[i]->install) + 1;
    s->added = dval__calloc(n + 1, sizeof *s->added);
    if (!s->added)
        return DVAL_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; r[i]->install[j]; j++)
            s->added[k++] = r[i]->install[j];
    for (size_t j = 0; s->owned && s->owned[j]; j++)
        s->added[k++] = s->owned[j];
    for (size_t i = 0; i < s->n; i++)
        if (r[i]->init)
            s->added[k++] = r[i]->init;
    if (s->owned)
        s->added[k++] = "rm -rf " DVAL__SEED_DIR;
    return DVAL_OK;
}

static void make_tag(dval__svcset *s)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a: a stamp, not a MAC */
    for (size_t i = 0; s->added[i]; i++) {
        for (const char *p = s->added[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
    }
    dval__fmt(s->tag, sizeof s->tag, "-db%016llx", (unsigned long long)h);
}

static int takes_seeds(const dval__svcset *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->svc[i]->init)
            return 1;
    return 0;
}

int dval__svcset_load(dval__svcset *s, const char *const *services,
                      const char *const *seeds, char *msg, size_t cap)
{
    memset(s, 0, sizeof *s);
    int rc = DVAL_OK;
    for (size_t i = 0; !rc && services && services[i]; i++)
        rc = add_service(s, services[i], msg, cap);
    if (!rc && seeds && seeds[0] && !takes_seeds(s)) {
        dval__fmt(msg, cap, "seeds need a service that loads them "
                  "(services: postgres, sqlite)");
        rc = DVAL_EINVAL;
    }
    if (!rc && s->n && seeds && seeds[0])
        rc = dval__seed_steps(seeds, &s->owned, msg, cap);
    if (!rc && s->n && (rc = order_steps(s)) == DVAL_ENOMEM)
        dval__fmt(msg, cap, "out of memory");
    if (!rc && s->n)
        make_tag(s);
    if (rc)
        dval__svcset_free(s);
    return rc;
}

void dval__svcset_free(dval__svcset *s)
{
    for (size_t i = 0; s->owned && s->owned[i]; i++)
        dval__free(s->owned[i]);
    dval__free(s->owned);
    dval__free(s->added);
    memset(s, 0, sizeof *s);
}

void dval__svcset_name(const dval__svcset *s, const char *base, char *out,
                       size_t cap)
{
    dval__fmt(out, cap, "%s%s", base ? base : "", s && s->n ? s->tag : "");
}

int dval__svcset_apply(const dval__svcset *s, dval_snapshot_spec *spec,
                       dval__spec_hold *hold)
{
    hold->steps = NULL;
    if (!s || !s->n)
        return DVAL_OK;
    size_t nb = count(spec->build_commands), na = count(s->added);
    hold->steps = dval__calloc(nb + na + 1, sizeof *hold->steps);
    if (!hold->steps)
        return DVAL_ENOMEM;
    for (size_t i = 0; i < nb; i++)
        hold->steps[i] = spec->build_commands[i];
    memcpy(hold->steps + nb, s->added, na * sizeof *hold->steps);
    spec->build_commands = hold->steps;
    dval__svcset_name(s, spec->name, hold->name, sizeof hold->name);
    spec->name = hold->name;
    return DVAL_OK;
}

int dval__svcset_starts(const dval__svcset *s)
{
    for (size_t i = 0; s && s->added && s->added[i]; i++)
        if (strstr(s->added[i], DVAL_SERVICE_DIR))
            return 1;
    return 0;
}
