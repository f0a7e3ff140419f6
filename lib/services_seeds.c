/* The host's seed files carried into a snapshot build (carry.h), in
 * order, as DVAL__SEED_DIR/NN-<name>. The services' init steps load them
 * (service_spec.h); the files' contents and names are in the steps, so
 * they are in the snapshot's name too (services.c). */
#include <stdio.h>
#include <string.h>

#include "carry.h"
#include "service_spec.h"
#include "services.h"

/* "NN-<base name>", its characters those of a safe file name. */
static void seed_name(char *out, size_t cap, size_t i, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    dval__fmt(out, cap, "%02zu-%.100s", i + 1, base);
    for (char *p = out; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-", *p))
            *p = '_';
}

int dval__seed_steps(const char *const *seeds, char ***out, char *msg,
                     size_t cap)
{
    size_t n = 0;
    while (seeds && seeds[n])
        n++;
    dval__carried *f = dval__calloc(n + 1, sizeof *f);
    char (*to)[160] = dval__calloc(n + 1, sizeof *to);
    int rc = f && to ? DVAL_OK : DVAL_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        char name[128];
        seed_name(name, sizeof name, i, seeds[i]);
        dval__fmt(to[i], sizeof to[i], DVAL__SEED_DIR "/%s", name);
        f[i] = (dval__carried){ seeds[i], to[i], 0644 };
    }
    *out = NULL;
    if (rc)
        dval__fmt(msg, cap, "out of memory");
    else if (n)
        rc = dval__carry_steps(f, n, DVAL__SEEDS_MAX_BYTES, "seed", out, msg,
                               cap);
    dval__free(f);
    dval__free(to);
    return rc;
}
