/* Client creation from the common options, and the mapping from library
 * status codes to the CLI's documented exit statuses. */
#include <string.h>

#include "cli.h"

int cli_client_pb(dval_client **out, const cli_common *co, cli_problem *pb,
                  int *status)
{
    *out = NULL;
    if (check_executor(co->executor, pb))
        return pb->exit_status;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = co->executor;
    dval_local_options lo; /* --state-dir; Daytona reads DAYTONA_* */
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = co->state_dir;
    o.local = &lo;
    /* warnings carry the retries a terminal shows as a live line */
    if (term_wants_log()) {
        o.log_fn = term_log;
        o.log_level = co->verbose ? DVAL_LOG_INFO : DVAL_LOG_WARN;
    }
    int rc = dval_client_new(out, &o);
    if (status)
        *status = rc;
    if (!rc)
        return 0;
    /* no client, so no errmsg: explain the usual causes ourselves, never
     * echoing credentials */
    memset(pb, 0, sizeof *pb);
    pb->exit_status = rc == DVAL_EBUSY ? CLI_EX_BUSY : cli_exit_for(rc);
    const char *ex = co->executor ? co->executor : "default";
    if (rc == DVAL_EAUTH) {
        snprintf(pb->message, sizeof pb->message, "the daytona executor "
                 "needs credentials, and none are set");
        snprintf(pb->hint, sizeof pb->hint, "set DAYTONA_API_KEY (or "
                 "DAYTONA_JWT_TOKEN and DAYTONA_ORGANIZATION_ID), or use "
                 "--executor local");
    } else if (rc == DVAL_EISOLATION) {
        snprintf(pb->message, sizeof pb->message, "the local executor "
                 "cannot isolate programs on this machine");
        snprintf(pb->hint, sizeof pb->hint, "run as root (or enable user "
                 "namespaces), or use --executor daytona with "
                 "DAYTONA_API_KEY");
    } else {
        snprintf(pb->message, sizeof pb->message, "cannot set up the %s "
                 "executor: %s", ex, dval_strerror(rc));
        snprintf(pb->hint, sizeof pb->hint, "check --executor, --state-dir "
                 "and the DAYTONA_* variables");
    }
    return pb->exit_status;
}

int cli_client(dval_client **out, const cli_common *co, int *status)
{
    cli_problem pb;
    int ex = cli_client_pb(out, co, &pb, status);
    if (ex)
        term_problem(pb.message, pb.hint);
    return ex;
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
    case DVAL_EBUSY:
        return CLI_EX_BUSY;
    case DVAL_EABORTED:
    case DVAL_ECANCELED:
        return CLI_EX_INTERRUPTED;
    default:
        return CLI_EX_INFRA;
    }
}
