/* A profile's long-lived services (lib/profile_service.h: the java and
 * dotnet compile services) started by the core in a sandbox it acquired.
 *
 * Policy, the same on every executor (no executor is named): a profile
 * whose build steps install a service has a start command, and the core
 * sends it once per sandbox. The command is idempotent and cheap, so
 * sending it is always safe:
 *   - no service in the snapshot, or not root (the local executor's
 *     commands never are: its sandbox's init runs the service itself,
 *     libexec/dval-local-helper/service.c): it exits at once;
 *   - a service already runs: it holds a lock, the new one exits at once;
 *   - else it starts the service detached, as the service's own uid.
 * Not waited for: an async command in a session of its own, never polled,
 * never deleted (deleting a Daytona session kills what it started). The
 * validation that triggered it builds without the service if the service
 * is not up yet; later ones find it.
 *
 * "Once" is remembered per process by sandbox id and resent after
 * DVAL__SERVICE_RESEND_MS: a sandbox stopped and started behind this
 * process's back (auto-stop) gets its service again. */
#include <pthread.h>
#include <string.h>

#include "core.h"
#include "executor.h"
#include "profile_service.h"
#include "service_start.h"
#include "services.h"

#define SENT_SLOTS 64

static struct sent {
    char id[DVAL_ID_MAX];
    int64_t at_ms;              /* 0: free */
} sent[SENT_SLOTS];
static pthread_mutex_t sent_lock = PTHREAD_MUTEX_INITIALIZER;

static int installs_service(const char *const *steps)
{
    for (size_t i = 0; steps && steps[i]; i++)
        if (strstr(steps[i], DVAL_SERVICE_DIR))
            return 1;
    return 0;
}

const char *dval__service_start_command(const dval_profile *prof,
                                        const dval__svcset *svc)
{
    if (!dval__svcset_starts(svc) &&
        (!prof || (!installs_service(prof->build_commands) &&
                   !installs_service(prof->local_build_commands))))
        return NULL;
    return DVAL_SERVICE_START_ROOT;
}

/* 1 when id is due (recorded as sent now), 0 when sent recently. The
 * oldest entry makes room: forgetting one costs a resend, no more. */
static int claim(const char *id, int64_t now)
{
    struct sent *slot = &sent[0];
    int due = 1;
    pthread_mutex_lock(&sent_lock);
    for (int i = 0; i < SENT_SLOTS; i++) {
        if (sent[i].at_ms && !strcmp(sent[i].id, id)) {
            slot = &sent[i];
            due = now - sent[i].at_ms >= DVAL__SERVICE_RESEND_MS;
            break;
        }
        if (sent[i].at_ms < slot->at_ms)
            slot = &sent[i];
    }
    if (due) {
        dval__strlcpy(slot->id, id, sizeof slot->id);
        slot->at_ms = now > 0 ? now : 1;
    }
    pthread_mutex_unlock(&sent_lock);
    return due;
}

static void unclaim(const char *id)
{
    pthread_mutex_lock(&sent_lock);
    for (int i = 0; i < SENT_SLOTS; i++)
        if (sent[i].at_ms && !strcmp(sent[i].id, id))
            sent[i].at_ms = 0;
    pthread_mutex_unlock(&sent_lock);
}

/* The session and the command, started and left running. */
static int send_start(dval_client *c, const char *sbid, const char *sbname,
                      const char *cmd, char *msg, size_t cap)
{
    char sid[DVAL_ID_MAX], cmd_id[DVAL_ID_MAX];
    dval__service_session_name(sid, sizeof sid, sbname);
    dval__ex_cmd at = { sbid, sid, NULL };
    dval__ex_op op;
    dval__ex_op_init(&op, "create the service's session", DVAL__IDEMPOTENT |
                     DVAL__EXISTS_DONE, msg, cap);
    int rc = dval__ex_session_create(c, &op, &at);
    if (rc)
        return rc;
    dval__ex_op_init(&op, "start the service", 0, msg, cap);
    /* the sandbox's, not a validation's: services outlive validations */
    dval_command d = { .struct_size = sizeof d, .sandbox_id = sbid,
                       .session_id = sid, .text = cmd };
    return dval__ex_command_start(c, &op, &d, cmd_id);
}

void dval__service_start(dval_client *c, const dval_profile *prof,
                         const dval__svcset *svc, const dval_sandbox *sb)
{
    const char *cmd = dval__service_start_command(prof, svc);
    const char *id = sb ? dval_sandbox_id(sb) : NULL;
    if (!c || !cmd || !id || !*id || !claim(id, dval__now_ms()))
        return;
    const char *name = dval_sandbox_name(sb);
    char msg[DVAL_ERRMSG_MAX] = "";
    int rc = send_start(c, id, name && *name ? name : id, cmd, msg,
                        sizeof msg);
    if (rc == DVAL_EUNSUPPORTED) /* an executor without sessions: never */
        return;
    if (rc) {
        unclaim(id); /* the next validation tries again */
        DVAL__LOG(c, DVAL_LOG_INFO, "sandbox %s: %s (validations compile "
                  "without the service)", id, msg);
        return;
    }
    DVAL__LOG(c, DVAL_LOG_DEBUG, "sandbox %s: %s's service start sent", id,
              prof->name);
}

void dval__service_failed(const dval_sandbox *sb)
{
    const char *id = sb ? dval_sandbox_id(sb) : NULL;
    if (id && *id)
        unclaim(id);
}
