/* Where a sandbox's cgroup is, from the cgroup.procs file its init joins
 * (limits.c): v1 "<root>/daytona-validate/<key>/cgroup.procs", v2 the same
 * with the init in a leaf, ".../<key>/sandbox/cgroup.procs", the
 * commands' own cgroups beside it (cmd_cgroup.c). Shared by the library
 * and the helper, whose init removes the sandbox's cgroup when its owner
 * ends (init_owner.c). */
#ifndef DVAL_LOCAL_CGROUP_PATH_H
#define DVAL_LOCAL_CGROUP_PATH_H

#include <stdio.h>
#include <string.h>

/* The hierarchy's root into root and the sandbox's cgroup below it,
 * "daytona-validate/<key>", into rel (never the v2 leaf: what is removed
 * is the sandbox's cgroup with all below it). 0, or -1 when procs is no
 * such path or a part does not fit. */
static inline int lx_cg_split(const char *procs, char *root, size_t rcap,
                              char *rel, size_t relcap)
{
    static const char dv[] = "/daytona-validate/", file[] = "/cgroup.procs";
    const char *d = strstr(procs, dv);
    size_t n = strlen(procs), f = sizeof file - 1;
    if (!d || d == procs || n < f || strcmp(procs + n - f, file))
        return -1;
    const char *key = d + sizeof dv - 1, *end = procs + n - f;
    const char *slash = key < end ? memchr(key, '/', (size_t)(end - key)) : 0;
    if (slash && ((size_t)(end - slash) != 8 || memcmp(slash, "/sandbox", 8)))
        return -1;
    int klen = (int)((slash ? slash : end) - key);
    if (klen <= 0 || klen >= (int)relcap)
        return -1;
    int r = snprintf(root, rcap, "%.*s", (int)(d - procs), procs);
    int k = snprintf(rel, relcap, "%.*s", (int)(end - d - 1) - (slash ? 8 : 0),
                     d + 1);
    return r < 0 || (size_t)r >= rcap || k < 0 || (size_t)k >= relcap ? -1
                                                                       : 0;
}

#endif
