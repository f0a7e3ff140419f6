#ifndef DVAL_MANAGED_LABELS_H
#define DVAL_MANAGED_LABELS_H
#include <stddef.h>
/* The labels of a sandbox this library creates: managed-by (what
 * `daytona-validate sandbox ls/rm/reap` find), dval.profile=<profile>
 * (written into profile_label, which must outlive the array), then the
 * caller's labels, then `spare` NULL slots for the caller to fill.
 * NULL-terminated; dval__free it; NULL when out of memory. */
const char **dval__managed_labels(const char *profile,
                                  const char *const *labels, size_t spare,
                                  char *profile_label, size_t cap);
#endif
