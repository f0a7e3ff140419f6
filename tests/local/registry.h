/* A real registry for the pull tests (tests/local/registry.py): Debian's
 * docker-registry on 127.0.0.1 with a fault-injecting, request-logging
 * proxy in front. Pushes go to the registry, pulls through the proxy. */
#ifndef DVAL_LT_REGISTRY_H
#define DVAL_LT_REGISTRY_H

#include <stddef.h>
#include <sys/types.h>

#include "lt.h"

typedef struct lt_reg {
    char dir[600];              /* config, storage, requests.log */
    pid_t pid;                  /* registry.py, 0 when stopped */
    int port;                   /* the registry's */
    int proxy;                  /* the proxy's: what pulls name */
} lt_reg;

/* Skips the test when docker-registry, skopeo or umoci are missing
 * (tests/deps.sh installs them). */
void lt_reg_require(void);
/* Starts registry.py in dir (emptied) with args (its flags, "" for
 * none); it lives until lt_reg_stop, the test's end, or 120 s. */
void lt_reg_start(lt_reg *r, const char *dir, const char *args);
void lt_reg_stop(lt_reg *r);
/* skopeo copy oci:<src> docker://127.0.0.1:<port>/<dest> (extra: more
 * skopeo flags, e.g. "--all" or "--dest-creds u:p", or ""). */
void lt_reg_push(const lt_reg *r, const char *src, const char *dest,
                 const char *extra);
/* "127.0.0.1:<proxy>/<name>" into dst. */
void lt_reg_name(const lt_reg *r, const char *name, char *dst, size_t cap);
/* Lines of the proxy's request log that contain every one of the
 * needles (NULL-terminated list). */
int lt_reg_count(const lt_reg *r, const char *const *needles);
/* The contents of a small file (static buffer, "" when absent), trimmed
 * of its last newline. */
const char *lt_slurp(const char *path);

/* A pull test's fixture: the local executor (lt), a work directory
 * <lt_base>/<name>-work with the image cache of its own (so what a pull
 * caches is the test's to inspect) and a registry (lt_reg). */
typedef struct lt_pull_fx {
    lt t;
    lt_reg r;
    char w[600];                /* work directory */
    char cache[700];            /* DVAL_LOCAL_CACHE_DIR of the test */
    dval__buf log;              /* build-log lines of the last pull */
} lt_pull_fx;

/* lt_open, a fresh work directory and cache, a fast retry policy
 * (4 tries from 200 ms); the registry is started by lt_pull_registry. */
void lt_pull_open(lt_pull_fx *f, const char *name);
void lt_pull_registry(lt_pull_fx *f, const char *args);
void lt_pull_close(lt_pull_fx *f);
/* Snapshot name from image, its build log into f->log. */
int lt_pull_snapshot(lt_pull_fx *f, const char *name, const char *image);
/* An umoci image tagged tag in <w>/lay: lt_mini_root's files, then a
 * layer adding /hello ("hello from the registry"). */
void lt_pull_mini_image(lt_pull_fx *f, const char *tag);
/* lt_reg_push of <w>/lay:tag (lt_pull_mini_image's layout). */
void lt_pull_push(lt_pull_fx *f, const char *tag, const char *dest,
                  const char *extra);
/* Runs a host shell command, its stdout (trimmed) into dst. */
void lt_sh_out(const char *cmd, char *dst, size_t cap);
/* 1 when path exists. */
int lt_exists(const char *path);

#endif
