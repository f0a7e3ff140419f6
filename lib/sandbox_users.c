/* Which of a client's validations use which shared sandbox right now, so
 * that a release policy (stop, delete) applies when the last one using a
 * sandbox has ended, never under another: the first of five threads to
 * finish deleted the sandbox the other four still ran in. Other clients
 * (another process, another host) are seen through the executor: the
 * sessions open in the sandbox. */
#include <string.h>

#include "executor.h"

typedef struct user {
    struct user *next;
    int n;
    char name[];
} user;

static user **find(dval_client *c, const char *name)
{
    user **u = (user **)&c->users;
    while (*u && strcmp((*u)->name, name))
        u = &(*u)->next;
    return u;
}

int dval__users_enter(dval_client *c, const char *name)
{
    pthread_mutex_lock(&c->users_lock);
    user **u = find(c, name);
    if (!*u && (*u = dval__calloc(1, sizeof **u + strlen(name) + 1)))
        strcpy((*u)->name, name);
    int rc = *u ? ((*u)->n++, DVAL_OK) : DVAL_ENOMEM;
    pthread_mutex_unlock(&c->users_lock);
    return rc;
}

int dval__users_leave(dval_client *c, const char *name)
{
    pthread_mutex_lock(&c->users_lock);
    user **u = find(c, name);
    int others = 0;
    if (*u && --(*u)->n == 0) {
        user *gone = *u;
        *u = gone->next;
        dval__free(gone);
    } else if (*u) {
        others = (*u)->n;
    }
    pthread_mutex_unlock(&c->users_lock);
    return others;
}

void dval__users_free(dval_client *c)
{
    for (user *u = c->users, *next; u; u = next) {
        next = u->next;
        dval__free(u);
    }
    c->users = NULL;
}

/* The caller has closed its own session. Only validations' sessions
 * count: a service's stays open for the sandbox's life. A failed ask
 * keeps the sandbox: one left running is stopped by its auto-stop or a
 * reap, a validation killed under its program is lost. */
int dval__sandbox_used_elsewhere(dval_client *c, dval_sandbox *sb)
{
    /* a sandbox not running has no sessions (they end with it) */
    if (!DVAL__EX_HAS(c, sandbox_sessions) ||
        sb->info.state != DVAL_SANDBOX_STARTED)
        return 0;
    char msg[DVAL_ERRMSG_MAX], prefix[DVAL_ID_MAX];
    dval__session_prefix(prefix, sizeof prefix, sb->opts.name);
    dval__ex_op op;
    dval__ex_op_init(&op, "list sessions of sandbox", DVAL__IDEMPOTENT, msg,
                     sizeof msg);
    op.subject = sb->info.name;
    int n = 0;
    int rc = dval__ex_sandbox_sessions(c, &op, sb->info.id, prefix, &n);
    if (rc == DVAL_ENOTFOUND)
        return 0;
    if (rc)
        DVAL__LOG(c, DVAL_LOG_WARN, "%s; keeping the sandbox", msg);
    else if (n > 0)
        DVAL__LOG(c, DVAL_LOG_INFO, "sandbox %s: %d validation%s of other "
                  "runs still in it; the last of them releases it",
                  sb->info.name, n, n == 1 ? "" : "s");
    return rc || n > 0;
}
