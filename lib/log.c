/* The one logging funnel (level filter, bounded message). */
#include "internal.h"

void dval__log(dval_log_fn fn, void *ud, int max_level, int level,
               const char *fmt, ...)
{
    if (!fn || level > (max_level ? max_level : DVAL_LOG_INFO))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    dval__vfmt(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn(level, msg, ud);
}
