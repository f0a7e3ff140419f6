/* A validation's run command under its services' wraps (service_spec.h):
 * WRAP1... WRAP2... sh -c RUN, as the program and its arguments, or as
 * shell text for an executor that takes one. Each wrap provisions its
 * service's database, exports the connection, runs the rest and gives
 * the database back. */
#include <string.h>

#include "services.h"

static size_t words_of(const char *w, char *store, char **argv)
{
    size_t n = 0;
    for (const char *p = w; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        if (argv) {
            memcpy(store, p, len);
            store[len] = 0;
            argv[n] = store;
            store += len + 1;
        }
        n++;
        p += len;
    }
    return n;
}

int dval__svcset_wrap_argv(const dval__svcset *s, const char *run,
                           char ***out)
{
    size_t n = 3, bytes = 0;
    for (size_t i = 0; i < s->n; i++) {
        n += words_of(s->svc[i]->wrap, NULL, NULL);
        bytes += strlen(s->svc[i]->wrap) + 1;
    }
    char **argv = dval__malloc((n + 1) * sizeof *argv + bytes);
    if (!argv)
        return DVAL_ENOMEM;
    char *store = (char *)(argv + n + 1);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t w = words_of(s->svc[i]->wrap, store, argv + k);
        for (size_t j = 0; j < w; j++)
            store += strlen(argv[k + j]) + 1;
        k += w;
    }
    argv[k++] = "sh";
    argv[k++] = "-c";
    argv[k++] = (char *)run;
    argv[k] = NULL;
    *out = argv;
    return DVAL_OK;
}
