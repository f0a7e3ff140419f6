/* The daytona executor's own configuration: the caller's settings, then
 * the DAYTONA_* environment (as the official SDKs read it), then the
 * defaults; and the process-wide libcurl set-up. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

static const char *env_or(const char *v, const char *env)
{
    if (v && v[0])
        return v;
    const char *e = getenv(env);
    return e && *e ? e : NULL;
}

void dt_conf_resolve(dt_conf *o, const dval_daytona_options *d)
{
    o->api_url = env_or(d->api_url, "DAYTONA_API_URL");
    if (!o->api_url)
        o->api_url = env_or(NULL, "DAYTONA_SERVER_URL");
    if (!o->api_url)
        o->api_url = DEFAULT_API_URL;
    o->api_key = env_or(d->api_key, "DAYTONA_API_KEY");
    o->jwt_token = env_or(d->jwt_token, "DAYTONA_JWT_TOKEN");
    o->organization_id = env_or(d->organization_id,
                                "DAYTONA_ORGANIZATION_ID");
    o->target = env_or(d->target, "DAYTONA_TARGET");
}

int dval__daytona_configured(const dval_daytona_options *d)
{
    dt_conf o;
    dt_conf_resolve(&o, d);
    return o.api_key || o.jwt_token;
}

int dval__daytona_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? DVAL_OK
                                                             : DVAL_ERROR;
}

void dval__daytona_global_cleanup(void)
{
    curl_global_cleanup();
}
