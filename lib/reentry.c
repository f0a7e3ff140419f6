/* Reentrancy: while the library runs a host callback on this thread, calls
 * on the same client's handle tree (other than getters, messages and
 * dval_session_cancel) return DVAL_EREENTRANT instead of, say, deleting
 * the sandbox whose command is streaming. Thread-local on purpose: it
 * describes what this thread is doing right now, not an error state. */
#include "core.h"

static _Thread_local const dval_client *in_callback_of;

const dval_client *dval__cb_enter(const dval_client *c)
{
    const dval_client *prev = in_callback_of;
    in_callback_of = c;
    return prev;
}

void dval__cb_leave(const dval_client *prev)
{
    in_callback_of = prev;
}

int dval__reentered(const dval_client *c)
{
    return c && in_callback_of == c;
}

int dval__cb_data(const dval_client *c, dval_data_fn fn, const char *data,
                  size_t len, void *ud)
{
    const dval_client *prev = dval__cb_enter(c);
    int stop = fn(data, len, ud);
    dval__cb_leave(prev);
    return stop;
}
