/* One place for the labels every sandbox the library creates carries,
 * whether a validation or a pool's warm-up creates it. */
#include "managed_labels.h"
#include "internal.h"

const char **dval__managed_labels(const char *profile,
                                  const char *const *labels,
                                  const char *also, char *profile_label,
                                  size_t cap)
{
    size_t n = 0;
    while (labels && labels[n])
        n++;
    const char **out = dval__calloc(n + 4, sizeof *out);
    if (!out)
        return NULL;
    dval__fmt(profile_label, cap, "dval.profile=%s", profile);
    out[0] = "dval.managed-by=daytona-validate";
    out[1] = profile_label;
    for (size_t i = 0; i < n; i++)
        out[2 + i] = labels[i];
    out[2 + n] = also;
    return out;
}
