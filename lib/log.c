/* The one logging funnel (level filter, bounded message, an optional
 * scrub of the text before it leaves: the daytona executor removes its
 * credentials there). */
#include "internal.h"

void dval__vlog(dval_log_fn fn, void *ud, int max_level, int level,
                void (*scrub)(void *scrub_ud, char *msg), void *scrub_ud,
                const char *fmt, va_list ap)
{
    if (!fn || level > (max_level ? max_level : DVAL_LOG_INFO))
        return;
    char msg[1024];
    dval__vfmt(msg, sizeof msg, fmt, ap);
    if (scrub)
        scrub(scrub_ud, msg);
    fn(level, msg, ud);
}

void dval__log(dval_log_fn fn, void *ud, int max_level, int level,
               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dval__vlog(fn, ud, max_level, level, NULL, NULL, fmt, ap);
    va_end(ap);
}
