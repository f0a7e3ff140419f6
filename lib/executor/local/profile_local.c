/* Which profiles the local executor can run, answered from what it really
 * runs programs in: a sandbox's root is an overlay over one of its images
 * (image.c), so a profile whose image is not one of them cannot run here,
 * whatever the host has installed. Only where the sandbox sees the host's
 * own tools (the host-root opt-in, or unisolated execution) does the
 * profile's local_requires test, run on the host, tell anything. */
#include "profile_local.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static int unavailable(dval_call *c, const dval_profile *p, const char *why)
{
    if (p->local_unavailable_msg && *p->local_unavailable_msg)
        return dval__call_fail(c, DVAL_EUNSUPPORTED, "%s",
                               p->local_unavailable_msg);
    return dval__call_fail(c, DVAL_EUNSUPPORTED, "profile \"%s\" is "
                           "unavailable on the local executor (%s)", p->name,
                           why);
}

/* `sh -c test` on the host with no output; 0 when it exits 0.
 * posix_spawn keeps a multi-threaded host safe. */
static int host_test(const char *test)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"sh", "-c", (char *)test, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* 1 when sandboxes run unisolated (allowed, and the probe failed) */
static int unisolated(lx *x)
{
    int isolated = 1;
    return lx_isolation(x, NULL, &isolated) == DVAL_OK && !isolated;
}

/* 1 when the programs of a sandbox run over the host's system directories:
 * then, and only then, the host's tools are the sandbox's. */
static int sees_host_tools(lx *x)
{
    return lx_host_root_opt_in(x) || unisolated(x);
}

int lx_profile_prepare(void *ud, dval_call *c, const dval_profile *p,
                       const char *const **build_commands)
{
    lx *x = ud;
    *build_commands = NULL;
    lx_image img;
    dval_call why = {.struct_size = sizeof why};
    int rc = lx_image_parse(&why, p->image, &img);
    if (rc == DVAL_EUNSUPPORTED)
        return unavailable(c, p, why.errmsg);
    if (rc != DVAL_OK)
        return dval__call_fail(c, rc, "%s", why.errmsg);
    if (!sees_host_tools(x) && lx_image_can_build(x, &why, &img) != DVAL_OK)
        return unavailable(c, p, why.errmsg);
    if (p->local_requires && sees_host_tools(x) &&
        host_test(p->local_requires)) {
        char m[DVAL_ERRMSG_MAX];
        dval__fmt(m, sizeof m, "`%s` failed on the host, whose tools its "
                  "sandboxes use", p->local_requires);
        return unavailable(c, p, m);
    }
    /* unisolated, a sandbox runs on the host over no snapshot layer:
     * steps would only write to the host's own directories (/opt, /run).
     * No steps, not NULL (NULL keeps the profile's Daytona steps). */
    static const char *const no_steps[] = { NULL };
    *build_commands = unisolated(x) ? no_steps : p->local_build_commands;
    return DVAL_OK;
}

void lx_profile_install(struct dval_executor *ex)
{
    ex->profile_prepare = lx_profile_prepare;
}
