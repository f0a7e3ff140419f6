/* An isolation=sandbox sandbox belongs to the process that creates it:
 * nobody else uses it, and it must not outlive that process (a caller
 * SIGKILLed mid-run never deletes it). Its init removes it once that
 * process is gone (helper init_owner.c, init -o). Before the init runs
 * and after the delete has killed it, the marker
 * sandboxes/.own-<name> -> <pid> stands for it: the next creation of an
 * owned sandbox in the state directory deletes those of dead owners. */
#include "local.h"
#include "protocol.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lx_owned(const dval_sandbox_options *o)
{
    for (const char *const *l = o->labels; l && *l; l++)
        if (!strcmp(*l, "dval.isolation=sandbox")) /* lib/validate_sandbox.c */
            return 1;
    return 0;
}

static void mark_path(const lx *x, const char *name, char *p, size_t cap)
{
    dval__fmt(p, cap, "%s/sandboxes/" LX_OWNER_MARK "%s", x->state_dir, name);
}

int lx_owner_mark(const lx *x, const char *name)
{
    char p[4200], pid[24];
    mark_path(x, name, p, sizeof p);
    dval__fmt(pid, sizeof pid, "%d", (int)getpid());
    return symlink(pid, p) == 0;
}

void lx_owner_unmark(const lx *x, const char *name)
{
    char p[4200];
    mark_path(x, name, p, sizeof p);
    unlink(p);
}

/* 1 when the marker's process is gone */
static int orphaned(const char *mark)
{
    char pid[24];
    ssize_t n = readlink(mark, pid, sizeof pid - 1);
    if (n <= 0)
        return 0;
    pid[n] = 0;
    return kill((pid_t)atoi(pid), 0) < 0 && errno == ESRCH;
}

void lx_owner_sweep(lx *x)
{
    char dir[4200], p[4500];
    dval__fmt(dir, sizeof dir, "%s/sandboxes", x->state_dir);
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = strlen(LX_OWNER_MARK);
    while (d && (e = readdir(d))) {
        dval__fmt(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strncmp(e->d_name, LX_OWNER_MARK, n) || !orphaned(p))
            continue;
        LX_LOG(x, DVAL_LOG_INFO, "local executor: deleting sandbox %s, "
               "whose creator is gone", e->d_name + n);
        lx_sandbox_delete(x, NULL, e->d_name + n);
        unlink(p); /* also when there was no sandbox any more */
    }
    if (d)
        closedir(d);
}
