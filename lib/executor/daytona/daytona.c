/* The daytona executor: configuration and the vtable. Each member does
 * exactly one remote operation; every policy lives in the core. */
#include <string.h>

#include "dt.h"


static void dt_destroy(void *ud)
{
    dt_exec *ex = ud;
    if (!ex)
        return;
    dt_http_free(ex->http);
    dt_tbcache_free(ex->tb);
    if (ex->token) /* do not leave the credential in freed memory */
        memset(ex->token, 0, strlen(ex->token));
    dval__free(ex->token);
    dval__free(ex->api_url);
    dval__free(ex->org_id);
    dval__free(ex->target);
    dval__free(ex);
}

static char *dup_opt(const char *s, int *oom)
{
    if (!s || !s[0])
        return NULL;
    char *d = dval__strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

/* Credentials: a JWT (with its organization) wins over an API key, as
 * in the official SDKs (PROTOCOL 1.1). */
static int config(dt_exec *ex, const dval__config *cfg,
                  const dval_daytona_options *d, char *err, size_t errlen)
{
    int oom = 0;
    dt_conf o;
    dt_conf_resolve(&o, d);
    if (strncmp(o.api_url, "http://", 7) && strncmp(o.api_url, "https://", 8)) {
        dval__fmt(err, errlen, "api_url must start with http:// or https://");
        return DVAL_EINVAL;
    }
    int jwt = o.jwt_token != NULL;
    if (!jwt && !o.api_key) {
        dval__fmt(err, errlen, "the daytona executor needs an API key or "
                  "a JWT (set DAYTONA_API_KEY)");
        return DVAL_EINVAL;
    }
    if (jwt && !o.organization_id) {
        dval__fmt(err, errlen, "JWT authentication needs an organization "
                  "id (set DAYTONA_ORGANIZATION_ID)");
        return DVAL_EINVAL;
    }
    ex->token = dup_opt(jwt ? o.jwt_token : o.api_key, &oom);
    ex->org_id = jwt ? dup_opt(o.organization_id, &oom) : NULL;
    ex->target = dup_opt(o.target, &oom);
    ex->api_url = dval__strdup(o.api_url);
    if (oom || !ex->api_url) {
        dval__fmt(err, errlen, "out of memory");
        return DVAL_ENOMEM;
    }
    size_t l = strlen(ex->api_url);
    while (l && ex->api_url[l - 1] == '/')
        ex->api_url[--l] = '\0';
    ex->max_download = cfg->max_download_bytes > 0 ? cfg->max_download_bytes
                                                   : (int64_t)64 << 20;
    ex->log_fn = cfg->log_fn;
    ex->log_ud = cfg->log_userdata;
    ex->log_level = cfg->log_level;
    return DVAL_OK;
}

static void members(struct dval_executor *out)
{
    out->snapshot_get = dt_snapshot_get;
    out->snapshot_create = dt_snapshot_create;
    out->snapshot_activate = dt_snapshot_activate;
    out->snapshot_delete = dt_snapshot_delete;
    out->snapshot_logs = dt_snapshot_logs;
    out->sandbox_get = dt_sandbox_get;
    out->sandbox_create = dt_sandbox_create;
    out->sandbox_start = dt_sandbox_start;
    out->sandbox_stop = dt_sandbox_stop;
    out->sandbox_delete = dt_sandbox_delete;
    out->sandbox_recover = dt_sandbox_recover;
    out->sandbox_list = dt_sandbox_list;
    out->session_create = dt_session_create;
    out->session_delete = dt_session_delete;
    out->sandbox_sessions = dt_sandbox_sessions;
    out->command_start = dt_command_start;
    out->command_status = dt_command_status;
    out->stream_open = dt_stream_open;
    out->stream_read = dt_stream_read;
    out->stream_close = dt_stream_close;
    out->command_logs = dt_command_logs;
    out->file_upload = dt_file_upload;
    out->file_download = dt_file_download;
    out->folder_create = dt_folder_create;
    out->file_list = dt_file_list;
    /* NULL: the core deletes the session to stop a command */
    out->command_cancel = NULL;
    out->snapshot_list = dt_snapshot_list;
}

int dval__daytona_executor(struct dval_executor *out, const dval__config *cfg,
                           const dval_daytona_options *opts, char *err,
                           size_t errlen)
{
    if (!out || !cfg || !opts) {
        dval__fmt(err, errlen, "daytona: missing configuration");
        return DVAL_EINVAL;
    }
    dt_exec *ex = dval__calloc(1, sizeof *ex);
    if (!ex) {
        dval__fmt(err, errlen, "out of memory");
        return DVAL_ENOMEM;
    }
    int rc = config(ex, cfg, opts, err, errlen);
    if (!rc)
        rc = dt_http_new(&ex->http, opts, err, errlen);
    if (!rc && (rc = dt_tbcache_new(&ex->tb)) != 0)
        dval__fmt(err, errlen, "out of memory");
    if (rc) {
        dt_destroy(ex);
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->name = "daytona";
    out->userdata = ex;
    out->destroy = dt_destroy;
    members(out);
    return DVAL_OK;
}
