/* An unisolated sandbox (allow_unisolated, no namespaces) is the
 * directory <sandbox dir>/plain on the host, and its commands run on the
 * host: a sandbox path the library hands a command must be given as the
 * host path below that directory, or it would name the host's own
 * /sandbox. The paths are those of the call (the cwd, environment values
 * under /sandbox); what a program writes in its own text is its own. */
#include "local.h"

#include <string.h>

static int under_sandbox(const char *p)
{
    return !strncmp(p, "/sandbox", 8) && (p[8] == 0 || p[8] == '/');
}

static char *on_host(const char *sbdir, const char *path)
{
    dval__buf b = { 0 };
    if (dval__buf_appendf(&b, "%s/plain%s", sbdir, path) != DVAL_OK) {
        dval__buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* NAME=value with value under /sandbox as NAME=<host path>, else a copy */
static char *env_on_host(const char *sbdir, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || !under_sandbox(eq + 1))
        return dval__strdup(kv);
    dval__buf b = { 0 };
    if (dval__buf_appendf(&b, "%.*s=%s/plain%s", (int)(eq - kv), kv, sbdir,
                          eq + 1) != DVAL_OK) {
        dval__buf_free(&b);
        return NULL;
    }
    return b.data;
}

int lx_host_paths_map(const char *sbdir, const char *cwd,
                      const char *const *env, lx_host_paths *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (; env && env[n]; n++)
        ;
    int bad = cwd && cwd[0] == '/' && !(out->cwd = on_host(sbdir, cwd));
    if (!bad && env) {
        out->env = dval__calloc(n + 1, sizeof *out->env);
        bad = !out->env;
        for (size_t i = 0; i < n && !bad; i++)
            bad = !(out->env[i] = env_on_host(sbdir, env[i]));
    }
    if (bad) {
        lx_host_paths_free(out);
        return DVAL_ENOMEM;
    }
    return DVAL_OK;
}

void lx_host_paths_free(lx_host_paths *p)
{
    for (size_t i = 0; p->env && p->env[i]; i++)
        dval__free(p->env[i]);
    dval__free(p->env);
    dval__free(p->cwd);
    memset(p, 0, sizeof *p);
}
