/* Temporary stubs: each is replaced by its module as it lands. */
#include "internal.h"

DVAL_API int dval_snapshot_spec_init(dval_snapshot_spec *spec, size_t size)
{
    (void)spec;
    (void)size;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_snapshot_ensure(dval_snapshot **out, dval_client *client, const dval_snapshot_spec *spec, dval_data_fn on_build_log, void *userdata)
{
    (void)out;
    (void)client;
    (void)spec;
    (void)on_build_log;
    (void)userdata;
    return DVAL_EUNSUPPORTED;
}

DVAL_API const char * dval_snapshot_name(const dval_snapshot *snap)
{
    (void)snap;
    return NULL;
}

DVAL_API const char * dval_snapshot_id(const dval_snapshot *snap)
{
    (void)snap;
    return NULL;
}

DVAL_API int dval_snapshot_state(const dval_snapshot *snap)
{
    (void)snap;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_snapshot_delete(dval_snapshot *snap)
{
    (void)snap;
    return DVAL_EUNSUPPORTED;
}

DVAL_API void dval_snapshot_free(dval_snapshot *snap)
{
    (void)snap;
}

DVAL_API int dval_sandbox_options_init(dval_sandbox_options *opts, size_t size)
{
    (void)opts;
    (void)size;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_acquire(dval_sandbox **out, dval_client *client, const dval_sandbox_options *opts)
{
    (void)out;
    (void)client;
    (void)opts;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_refresh(dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_state(const dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API const char * dval_sandbox_id(const dval_sandbox *sb)
{
    (void)sb;
    return NULL;
}

DVAL_API const char * dval_sandbox_name(const dval_sandbox *sb)
{
    (void)sb;
    return NULL;
}

DVAL_API const char * dval_sandbox_errmsg(const dval_sandbox *sb)
{
    (void)sb;
    return NULL;
}

DVAL_API int dval_sandbox_start(dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_stop(dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_delete(dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_release(dval_sandbox *sb)
{
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API void dval_sandbox_free(dval_sandbox *sb)
{
    (void)sb;
}

DVAL_API int dval_sandbox_upload(dval_sandbox *sb, const char *remote_path, const void *data, size_t len)
{
    (void)sb;
    (void)remote_path;
    (void)data;
    (void)len;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_upload_file(dval_sandbox *sb, const char *remote_path, const char *local_path)
{
    (void)sb;
    (void)remote_path;
    (void)local_path;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_download(dval_sandbox *sb, const char *remote_path, char **data, size_t *len)
{
    (void)sb;
    (void)remote_path;
    (void)data;
    (void)len;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_download_to(dval_sandbox *sb, const char *remote_path, dval_data_fn sink, void *userdata)
{
    (void)sb;
    (void)remote_path;
    (void)sink;
    (void)userdata;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_download_file(dval_sandbox *sb, const char *remote_path, const char *local_path)
{
    (void)sb;
    (void)remote_path;
    (void)local_path;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_download_json(dval_sandbox *sb, const char *remote_path, char **json)
{
    (void)sb;
    (void)remote_path;
    (void)json;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_mkdir(dval_sandbox *sb, const char *remote_path)
{
    (void)sb;
    (void)remote_path;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_sandbox_list(dval_client *client, const char *const *labels, dval_sandbox_list_fn each, void *userdata)
{
    (void)client;
    (void)labels;
    (void)each;
    (void)userdata;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_session_open(dval_session **out, dval_sandbox *sb)
{
    (void)out;
    (void)sb;
    return DVAL_EUNSUPPORTED;
}

DVAL_API const char * dval_session_id(const dval_session *s)
{
    (void)s;
    return NULL;
}

DVAL_API const char * dval_session_errmsg(const dval_session *s)
{
    (void)s;
    return NULL;
}

DVAL_API int dval_exec_options_init(dval_exec_options *opts, size_t size)
{
    (void)opts;
    (void)size;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_session_exec(dval_session *s, const char *command, const dval_exec_options *opts, dval_output_fn on_output, void *userdata, int *exit_code)
{
    (void)s;
    (void)command;
    (void)opts;
    (void)on_output;
    (void)userdata;
    (void)exit_code;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_session_cancel(dval_session *s)
{
    (void)s;
    return DVAL_EUNSUPPORTED;
}

DVAL_API int dval_session_close(dval_session *s)
{
    (void)s;
    return DVAL_EUNSUPPORTED;
}

DVAL_API void dval_session_free(dval_session *s)
{
    (void)s;
}
