#ifndef DVAL_MANAGED_LABELS_H
#define DVAL_MANAGED_LABELS_H
#include <stddef.h>
/* The labels of a sandbox this library creates: managed-by (what
 * `daytona-validate sandbox ls/rm/reap` find), dval.profile=<profile>
 * (written into profile_label, which must outlive the array), then the
 * caller's labels, then `also` unless NULL (a label of the library's
 * own for this create). NULL-terminated; dval__free it; NULL when out
 * of memory. */
const char **dval__managed_labels(const char *profile,
                                  const char *const *labels,
                                  const char *also, char *profile_label,
                                  size_t cap);
#endif
