/* A profile's snapshot, built the way dval_validate builds it: the build
 * steps are the ones the executor chooses for the profile
 * (profile_prepare), so a host tool such as the CLI's `snapshot ensure`
 * never has to ask which executor it is talking to. */
#include "core.h"
#include "services.h"

DVAL_API int dval_profile_snapshot_ensure(dval_snapshot **out,
                                          dval_client *client,
                                          const dval_profile *profile,
                                          dval_data_fn on_build_log,
                                          void *userdata)
{
    if (out)
        *out = NULL;
    if (!out || !client || !profile) {
        if (client)
            dval__client_seterr(client,
                                "dval_profile_snapshot_ensure: NULL argument");
        return DVAL_EINVAL;
    }
    DVAL__NO_REENTRY(client);
    if (!profile->snapshot_name || !profile->snapshot_name[0]) {
        dval__client_seterr(client, "profile %s has no snapshot name",
                            profile->name ? profile->name : "(unnamed)");
        return DVAL_EINVAL;
    }
    dval_snapshot_spec spec;
    dval__spec_hold hold;
    int rc = dval__profile_snapshot_spec(client, profile, NULL, NULL, &spec,
                                         &hold);
    if (rc)
        return rc;
    return dval_snapshot_ensure(out, client, &spec, on_build_log, userdata);
}
