/* Client creation from the common options, and the mapping from library
 * status codes to the CLI's documented exit statuses. */
#include <string.h>

#include "cli.h"

int cli_client(dval_client **out, const cli_common *co, int *status)
{
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = co->executor;
    o.state_dir = co->state_dir;
    if (co->verbose) {
        o.log_fn = term_log;
        o.log_level = DVAL_LOG_INFO;
    }
    int rc = dval_client_new(out, &o);
    if (status)
        *status = rc;
    if (rc) {
        /* no client, so no errmsg: explain the usual causes ourselves,
         * never echoing credentials */
        if (rc == DVAL_EAUTH)
            cli_err("the daytona executor needs credentials: set "
                    "DAYTONA_API_KEY (or DAYTONA_JWT_TOKEN)");
        else
            cli_err("cannot create a client (%s executor): %s",
                    co->executor ? co->executor : "default",
                    dval_strerror(rc));
        return cli_exit_for(rc);
    }
    return 0;
}

int cli_exit_for(int status)
{
    switch (status) {
    case DVAL_OK:
        return 0;
    case DVAL_EINVAL:
    case DVAL_EABI:
        return CLI_EX_USAGE;
    case DVAL_EIO:
        return CLI_EX_NOINPUT;
    case DVAL_ERESULTS:
        return CLI_EX_RESULTS;
    case DVAL_EAUTH:
    case DVAL_EFORBIDDEN:
    case DVAL_EUNSUPPORTED:
    case DVAL_EISOLATION:
        return CLI_EX_UNAVAILABLE;
    case DVAL_EABORTED:
    case DVAL_ECANCELED:
        return CLI_EX_INTERRUPTED;
    default:
        return CLI_EX_INFRA;
    }
}
