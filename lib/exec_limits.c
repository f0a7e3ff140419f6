/* Per-command limits and usage around a session's exec: the executor
 * keeps the session's limits (session_limits) for the commands it starts
 * next, and tells what a finished command used (command_usage). An
 * executor without them measures nothing (the usage is unknown, -1) and
 * enforces none: a command that asks for limits there is refused. */
#include <string.h>

#include "core.h"
#include "executor.h"

static int zero_limits(const dval_limits *l)
{
    return !l || (!l->memory_bytes && !l->cpu_ms && !l->max_processes);
}

/* The caller's limits as this library knows them (a shorter struct from
 * an older header reads as zeros beyond it) */
static int copy_limits(dval_session *s, const dval_limits *in,
                       dval_limits *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (!in)
        return DVAL_OK;
    if (dval__opts_copy(out, sizeof *out, in, sizeof(size_t)) != DVAL_OK) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "limits: struct_size %zu not "
                  "supported", in->struct_size);
        return DVAL_EABI;
    }
    if (out->memory_bytes < 0 || out->cpu_ms < 0 || out->max_processes < 0) {
        dval__fmt(s->errmsg, sizeof s->errmsg, "limits: a negative limit");
        return DVAL_EINVAL;
    }
    return DVAL_OK;
}

int dval__exec_limits_enforced(dval_client *c)
{
    return DVAL__EX_HAS(c, session_limits);
}

int dval__exec_limits_apply(dval_session *s, const dval_exec_options *o)
{
    dval_client *c = s->sandbox->client;
    dval_limits lim;
    int rc = copy_limits(s, o->limits, &lim);
    int want = o->limits || o->usage;
    if (rc || (!want && !s->limited))
        return rc;
    if (!DVAL__EX_HAS(c, session_limits)) {
        if (zero_limits(o->limits))
            return DVAL_OK; /* usage only: unknown */
        /* asked-for limits are had or refused, never dropped */
        dval__fmt(s->errmsg, sizeof s->errmsg, "executor %s cannot limit a "
                  "command's own processes (memory, CPU time, processes): "
                  "leave those limits 0 here, or use an executor that "
                  "enforces them (local)", c->executor_name);
        return DVAL_EUNSUPPORTED;
    }
    dval__ex_op op;
    dval__ex_op_init(&op, "set the command's limits", DVAL__IDEMPOTENT,
                     s->errmsg, sizeof s->errmsg);
    dval__ex_cmd at = { s->sandbox->info.id, s->id, NULL };
    rc = dval__ex_session_limits(c, &op, &at, want ? &lim : NULL);
    if (rc == DVAL_OK)
        s->limited = want;
    return rc;
}

void dval__exec_usage(dval_session *s, const dval_exec_options *o,
                      const char *cmd_id, int64_t wall_ms)
{
    dval_usage u;
    memset(&u, 0xff, sizeof u); /* every field -1: unknown */
    u.struct_size = sizeof u;
    u.cpu_limit_hit = 0;
    dval_client *c = s->sandbox->client;
    if (DVAL__EX_HAS(c, command_usage)) {
        dval__ex_op op;
        dval__ex_op_init(&op, "read the command's usage", DVAL__IDEMPOTENT,
                         NULL, 0);
        dval__ex_cmd at = { s->sandbox->info.id, s->id, cmd_id };
        if (dval__ex_command_usage(c, &op, &at, &u) != DVAL_OK) {
            DVAL__LOG(c, DVAL_LOG_DEBUG, "command usage: %s",
                      op.call.errmsg);
            memset(&u, 0xff, sizeof u);
            u.cpu_limit_hit = 0;
        }
        u.struct_size = sizeof u;
    }
    u.wall_ms = wall_ms;
    size_t n = o->usage->struct_size < sizeof u ? o->usage->struct_size
                                                : sizeof u;
    if (n > sizeof(size_t))
        memcpy((char *)o->usage + sizeof(size_t),
               (const char *)&u + sizeof(size_t), n - sizeof(size_t));
}
