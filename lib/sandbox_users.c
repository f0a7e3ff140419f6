/* Which of a client's validations use which shared sandbox right now, so
 * that a release policy (stop, delete) applies when the last one using a
 * sandbox has ended, never under another: the first of five threads to
 * finish deleted the sandbox the other four still ran in. */
#include <string.h>

#include "core.h"

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
