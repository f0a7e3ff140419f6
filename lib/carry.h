/* Host files carried into a snapshot by its build steps: each file's
 * bytes travel in the steps themselves (base64), so the same steps serve
 * a local build and a Daytona image build, and the files' contents are
 * part of what names the snapshot. Used for services' seed files and for
 * profile files' "files". */
#ifndef DVAL_CARRY_H
#define DVAL_CARRY_H

#include <stddef.h>

typedef struct dval__carried {
    const char *from;        /* host path of a regular file */
    const char *to;          /* absolute path in the snapshot */
    unsigned mode;           /* its mode there, e.g. 0644 */
} dval__carried;

/* Steps (NULL-terminated, owned: free each and the array) that write the
 * n files, creating their directories, as root. DVAL_EIO (a file
 * unreadable), DVAL_ETOOBIG (over max bytes together), DVAL_ENOMEM; msg
 * says which (what: "seed", "profile file"). */
int dval__carry_steps(const dval__carried *files, size_t n, size_t max,
                      const char *what, char ***steps, char *msg,
                      size_t cap);

#endif
