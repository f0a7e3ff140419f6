/* Starts the java snapshot's compile service (lib/javac_service.h) in a
 * started sandbox whose root has it, before the sandbox runs a command:
 * the executor starts it, as DVAL_JAVAC_UID (no validation's uid), in a
 * pid namespace of its own (helper "exec"), inside the sandbox's cgroups.
 * A validation therefore can neither start, signal nor replace it; it can
 * only connect to the socket, whose directory the service's uid owns.
 *
 * Best effort: when it is absent, starting or gone, the run command falls
 * back to plain javac. Its helper is a child of this process, so it lives
 * as long as the thread that started it (pdeathsig); a later command
 * starts it again (at most LX_JAVAC_TRIES times per sandbox init). */
#include "local.h"
#include "sandbox_ids.h"
#include "protocol.h"
#include "javac_service.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

_Static_assert(DVAL_JAVAC_UID == LX_UID_DEFAULT + LX_UID_SLOTS,
               "the service's uid is the first above the commands' range");

#define LX_JAVAC_SLOTS 16
#define LX_JAVAC_TRIES 3

static struct svc {
    pid_t init;                 /* the sandbox's init (0: free slot) */
    pid_t helper;               /* running helper, 0 when none */
    int tries;
} svcs[LX_JAVAC_SLOTS];
static pthread_mutex_t svc_lock = PTHREAD_MUTEX_INITIALIZER;

static int helper_alive(struct svc *s);

static struct svc *slot_for(pid_t init)
{
    struct svc *free_slot = NULL;
    for (int i = 0; i < LX_JAVAC_SLOTS; i++) {
        if (svcs[i].init == init)
            return &svcs[i];
        if (svcs[i].init > 0 && kill(svcs[i].init, 0) < 0 &&
            errno == ESRCH && !helper_alive(&svcs[i]))
            svcs[i].init = 0; /* that sandbox's init is gone: reaped */
        if (!free_slot && svcs[i].init == 0)
            free_slot = &svcs[i];
    }
    if (free_slot)
        *free_slot = (struct svc){ init, 0, 0 };
    return free_slot;
}

/* 1 when the helper still runs; reaps it otherwise. */
static int helper_alive(struct svc *s)
{
    if (s->helper <= 0)
        return 0;
    if (waitpid(s->helper, NULL, WNOHANG) == 0)
        return 1;
    s->helper = 0;
    return 0;
}

static int has_service(const lx_sb *sb)
{
    char p[256];
    dval__fmt(p, sizeof p, "/proc/%d/root" DVAL_JAVAC_DIR
              "/JavacService.class", (int)sb->pid);
    return access(p, R_OK) == 0;
}

static int spawn_service(lx *x, const lx_sb *sb, pid_t *helper)
{
    char *argv[64], pidbuf[32], root[4200], lim[3][32];
    int n = 1;
    lx_limits l;
    lx_sb_limits(x, sb, &l);
    dval__fmt(pidbuf, sizeof pidbuf, "%d", (int)sb->pid);
    dval__fmt(root, sizeof root, "%s/plain", sb->dir);
    argv[n++] = LX_VERB_EXEC;
    argv[n++] = pidbuf;
    argv[n++] = root;
    argv[n++] = "/";
    lx_limits_args(&l, argv, &n, lim);
    argv[n++] = LX_OPT_UID;
    argv[n++] = DVAL_JAVAC_UID_S;
    argv[n++] = LX_OPT_END;
    argv[n++] = DVAL_JAVAC_SERVICE_CMD;
    argv[n] = NULL;
    dval_call c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.cancel_fd = -1;
    int fds[4] = { -1, -1, -1, -1 };
    return lx_spawn(x, &c, argv, fds, helper, 1);
}

void lx_javac_service_ensure(lx *x, const lx_sb *sb)
{
    if (!sb->isolated || sb->pid <= 0 || geteuid() != 0 || !has_service(sb))
        return;
    pthread_mutex_lock(&svc_lock);
    struct svc *s = slot_for(sb->pid);
    if (s && !helper_alive(s) && s->tries < LX_JAVAC_TRIES) {
        s->tries++;
        if (spawn_service(x, sb, &s->helper) == DVAL_OK)
            LX_LOG(x, DVAL_LOG_DEBUG, "local: compile service started in "
                   "sandbox init %d (helper %d)", (int)sb->pid,
                   (int)s->helper);
        else
            s->helper = 0;
    }
    pthread_mutex_unlock(&svc_lock);
}
