/* dval_validate's progress events (phases, build logs, sandbox states,
 * program output) and its errors: "<phase>: <detail>" on the client, and
 * the summary's "errors" list. */
#include <string.h>

#include "validate.h"

int dval__validate_emit(dval__vctx *v, dval_event *ev)
{
    if (!v->on_event || v->aborted)
        return v->aborted;
    ev->struct_size = sizeof *ev;
    const dval_client *prev = dval__cb_enter(v->client);
    if (v->on_event(ev, v->ud))
        v->aborted = 1;
    dval__cb_leave(prev);
    return v->aborted;
}

int dval__validate_phase_start(dval__vctx *v, const char *phase, int64_t *t0)
{
    *t0 = v->phase_end ? v->phase_end : dval__now_ms();
    dval_event ev = {0};
    ev.type = DVAL_EVENT_PHASE;
    ev.phase = phase;
    return dval__validate_emit(v, &ev) ? DVAL_EABORTED : DVAL_OK;
}

int dval__validate_phase_done(dval__vctx *v, const char *phase, int64_t t0,
                              int status, const char *detail)
{
    v->phase_end = dval__now_ms();
    int64_t ms = v->phase_end - t0;
    json_object_set_new(v->timings, phase, json_integer(ms));
    dval_event ev = {0};
    ev.type = DVAL_EVENT_PHASE;
    ev.phase = phase;
    ev.done = 1;
    ev.status = status;
    ev.elapsed_ms = ms;
    ev.detail = detail;
    if (dval__validate_emit(v, &ev) && status == DVAL_OK)
        return DVAL_EABORTED;
    return status;
}

/* A chunk of bytes as an event: build logs and program output alike. */
static int emit_data(dval__vctx *v, int type, const char *phase, int stream,
                     const char *channel, const char *data, size_t len)
{
    dval_event ev = {0};
    ev.type = type;
    ev.phase = phase;
    ev.stream = stream;
    ev.channel = channel;
    ev.data = data;
    ev.len = len;
    return dval__validate_emit(v, &ev);
}

int dval__validate_on_build_log(const char *data, size_t len, void *ud)
{
    return emit_data(ud, DVAL_EVENT_BUILD_LOG, "snapshot", 0, NULL, data,
                     len);
}

/* The phase's own copy of its output, up to DVAL__CAPTURE_MAX a stream:
 * what the verdict reads (diagnostics, a runtime's own words) and the
 * summary shows. */
static void capture(dval__phase *p, int stream, const char *data, size_t len)
{
    dval__buf *b = stream == DVAL_STDERR ? &p->err : &p->out;
    size_t room = b->len < DVAL__CAPTURE_MAX ? DVAL__CAPTURE_MAX - b->len : 0;
    if (len > room)
        p->truncated = 1;
    if (room && dval__buf_append(b, data, len < room ? len : room))
        p->truncated = 1;
}

/* Past the output limit: what fits is kept and shown, then the phase
 * is stopped (run_phase_command words it). 1: stop now. */
static int over_limit(dval__vctx *v, size_t *len)
{
    dval__phase *p = v->cur;
    int64_t lim = v->req.output_bytes;
    if (!p || lim <= 0)
        return 0;
    int64_t room = lim > p->printed ? lim - p->printed : 0;
    p->printed += (int64_t)*len;
    if (p->printed <= lim)
        return 0;
    p->over_output = 1;
    *len = (size_t)room;
    return 1;
}

int dval__validate_on_output(int stream, const char *channel,
                             const char *data, size_t len, void *ud)
{
    dval__vctx *v = ud;
    int over = over_limit(v, &len);
    if (v->cur)
        capture(v->cur, stream, data, len);
    int stop = len ? emit_data(v, DVAL_EVENT_OUTPUT, v->cur ? v->cur->name
                               : "run", stream, channel, data, len) : 0;
    return stop || over;
}

void dval__validate_on_state(const char *name, int state, void *ud)
{
    dval_event ev = {0};
    ev.type = DVAL_EVENT_STATE;
    ev.phase = "sandbox";
    ev.state = state;
    ev.detail = name;
    dval__validate_emit(ud, &ev);
}

int dval__validate_fail(dval__vctx *v, int rc, const char *phase,
                        const char *detail)
{
    char copy[DVAL_ERRMSG_MAX];
    /* detail may point into the client's own errmsg buffer */
    dval__strlcpy(copy, detail && *detail ? detail : dval_strerror(rc),
                  sizeof copy);
    if (rc == DVAL_EABORTED && v->aborted)
        dval__strlcpy(copy, "stopped by the event callback", sizeof copy);
    dval__client_seterr(v->client, "%s: %s", phase, copy);
    return rc;
}

/* Notes carry names the program chose (its results files): a control
 * byte would reach the terminal of whoever prints the message, and
 * invalid UTF-8 would make the note vanish (json_string refuses it). */
static void printable(char *msg)
{
    for (unsigned char *p = (unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (!dval__utf8_valid(msg, strlen(msg)))
        for (unsigned char *p = (unsigned char *)msg; *p; p++)
            if (*p >= 0x80)
                *p = '?';
}

void dval__validate_note(dval__vctx *v, const char *fmt, const char *a,
                         const char *b)
{
    char msg[DVAL_ERRMSG_MAX];
    dval__fmt(msg, sizeof msg, fmt, a, b);
    printable(msg);
    json_array_append_new(v->errors, json_string(msg));
}
