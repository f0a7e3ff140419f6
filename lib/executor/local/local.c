/* Placeholder until the local executor lands. */
#include "internal.h"

int dval__local_executor(struct dval_executor *out, const dval__config *cfg,
                         char *err, size_t errlen)
{
    (void)out;
    (void)cfg;
    dval__fmt(err, errlen, "the local executor is not built yet");
    return DVAL_EUNSUPPORTED;
}
