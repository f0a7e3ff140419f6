/* Public status codes and state names (strerror, status and state names,
 * parsing) and the version numbers. */
#include <string.h>

#include "internal.h"

static const struct { int code; const char *name, *text; } statuses[] = {
    { DVAL_OK, "DVAL_OK", "success" },
    { DVAL_ERROR, "DVAL_ERROR", "unspecified error" },
    { DVAL_ENOMEM, "DVAL_ENOMEM", "out of memory" },
    { DVAL_EINVAL, "DVAL_EINVAL", "invalid argument" },
    { DVAL_EABI, "DVAL_EABI", "unknown struct size or non-zero unknown fields" },
    { DVAL_ENOTFOUND, "DVAL_ENOTFOUND", "not found" },
    { DVAL_EEXISTS, "DVAL_EEXISTS", "already exists" },
    { DVAL_EAUTH, "DVAL_EAUTH", "authentication failed" },
    { DVAL_EFORBIDDEN, "DVAL_EFORBIDDEN", "permission denied" },
    { DVAL_ETIMEOUT, "DVAL_ETIMEOUT", "timed out" },
    { DVAL_ENETWORK, "DVAL_ENETWORK", "network error" },
    { DVAL_EPROTOCOL, "DVAL_EPROTOCOL", "unexpected server response" },
    { DVAL_ESERVER, "DVAL_ESERVER", "server error" },
    { DVAL_ERATELIMIT, "DVAL_ERATELIMIT", "rate limited" },
    { DVAL_ECONFLICT, "DVAL_ECONFLICT", "state change in progress" },
    { DVAL_ESTATE, "DVAL_ESTATE", "invalid state for this operation" },
    { DVAL_EABORTED, "DVAL_EABORTED", "aborted by a callback" },
    { DVAL_ECANCELED, "DVAL_ECANCELED", "canceled" },
    { DVAL_EREENTRANT, "DVAL_EREENTRANT", "called from inside a callback" },
    { DVAL_EEXEC, "DVAL_EEXEC", "executor failure" },
    { DVAL_EPASSTHROUGH, "DVAL_EPASSTHROUGH", "use the built-in behaviour" },
    { DVAL_EUNSUPPORTED, "DVAL_EUNSUPPORTED", "not supported" },
    { DVAL_EISOLATION, "DVAL_EISOLATION", "isolation unavailable" },
    { DVAL_EBUILD, "DVAL_EBUILD", "snapshot build failed" },
    { DVAL_ETOOBIG, "DVAL_ETOOBIG", "over the size limit" },
    { DVAL_EIO, "DVAL_EIO", "local I/O error" },
    { DVAL_ERESULTS, "DVAL_ERESULTS", "results missing or invalid" },
    { DVAL_EBADREQUEST, "DVAL_EBADREQUEST", "request rejected by the server" },
    { DVAL_EBUSY, "DVAL_EBUSY", "in use by another run" },
    { DVAL_EGONE, "DVAL_EGONE", "sandbox vanished during the run" },
    { DVAL_EQUOTA, "DVAL_EQUOTA",
      "quota exhausted (organization, or the local host's disk)" },
};

DVAL_API const char *dval_strerror(int status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].code == status)
            return statuses[i].text;
    return "unknown status";
}

DVAL_API const char *dval_status_name(int status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].code == status)
            return statuses[i].name;
    return "DVAL_UNKNOWN";
}

static const char *const sandbox_states[] = {
    "unknown", "creating", "restoring", "destroyed", "destroying",
    "started", "stopped", "starting", "stopping", "error", "build_failed",
    "pending_build", "building_snapshot", "pulling_snapshot", "archived",
    "archiving", "resizing", "snapshotting", "forking", "paused", "pausing",
    "resuming",
};

static const char *const snapshot_states[] = {
    "unknown", "pending", "building", "pulling", "active", "error",
    "build_failed", "inactive", "removing", "snapshotting",
};

#define NSTATES(a) ((int)(sizeof a / sizeof *a))
_Static_assert(DVAL_SANDBOX_UNKNOWN == 0 && DVAL_SNAPSHOT_UNKNOWN == 0,
               "state_parse answers 0 for a name it does not know");

/* One table lookup for both state enums: index → wire name and back
 * (0, "unknown", for what is not in the table). */
static const char *state_name(const char *const *names, int n, int state)
{
    return state >= 0 && state < n ? names[state] : "unknown";
}

static int state_parse(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    return 0;
}

DVAL_API const char *dval_sandbox_state_name(int state)
{
    return state_name(sandbox_states, NSTATES(sandbox_states), state);
}

DVAL_API int dval_sandbox_state_parse(const char *name)
{
    return state_parse(sandbox_states, NSTATES(sandbox_states), name);
}

DVAL_API const char *dval_snapshot_state_name(int state)
{
    return state_name(snapshot_states, NSTATES(snapshot_states), state);
}

DVAL_API int dval_snapshot_state_parse(const char *name)
{
    return state_parse(snapshot_states, NSTATES(snapshot_states), name);
}

DVAL_API const char *dval_version(void)
{
    return DVAL_VERSION_STRING;
}

DVAL_API uint32_t dval_version_num(void)
{
    return DVAL_VERSION_NUM;
}
