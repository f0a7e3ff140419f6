/* Placeholder until the daytona executor lands. */
#include "internal.h"

int dval__daytona_executor(struct dval_executor *out, const dval__config *cfg,
                           char *err, size_t errlen)
{
    (void)out;
    (void)cfg;
    dval__fmt(err, errlen, "the daytona executor is not built yet");
    return DVAL_EUNSUPPORTED;
}
