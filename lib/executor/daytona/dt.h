/* Daytona executor: declarations shared by its files (not by the core).
 * Layering: members (api_*.c) → transport (http*.c; with config.c, which
 * only calls curl_global_init/cleanup, this executor's curl users) and
 * JSON mapping (json_map.c, json_list.c, envelope.c: its jansson users);
 * pure codecs (ws_frame.c, multipart.c, sha1.c, url.c, demux.c) do no
 * I/O; sha1.c is its one libcrypto user.
 * Outside this directory curl is also used by the local executor's
 * pull_http.c, and jansson by the core and the local executor
 * (lib/README.md has the list).
 * From the core it takes only the helpers of internal.h (dval__call_fail,
 * dval__vlog, dval__check_remote_path, dval__config: logging, retries
 * and the download cap); a download's size
 * goes back through dval_call.size_hint like any executor's. */
#ifndef DVAL_DT_H
#define DVAL_DT_H

#include <pthread.h>

#include "internal.h"

#define DT_SDK_SOURCE "sdk-c"
/* The protocol level we speak; >= 0.167.0 selects raw logs (PROTOCOL 5.6) */
#define DT_SDK_VERSION "0.190.0"
/* A level in [0.27.0, 0.167.0): the non-follow log comes as the raw log
 * file, byte for byte (text/plain), not as JSON strings, which replace
 * invalid UTF-8 (PROTOCOL 5.6) */
#define DT_SDK_VERSION_RAW_LOG "0.166.0"
#define DT_JSON_MAX ((int64_t)8 << 20)   /* largest JSON reply we buffer */
#define DT_ERRBODY_MAX 65536             /* kept of an error body */

typedef struct dt_http dt_http;          /* http.c: share handle + pool */
typedef struct dt_tbcache dt_tbcache;    /* toolbox.c: id → base URL */

/* config.c: the settings in effect (borrowed from the caller's
 * dval_daytona_options or the environment; valid during the
 * constructor). */
#define DEFAULT_API_URL "https://app.daytona.io/api"
typedef struct dt_conf {
    const char *api_url;
    const char *api_key;
    const char *jwt_token;
    const char *organization_id;
    const char *target;
} dt_conf;
void dt_conf_resolve(dt_conf *o, const dval_daytona_options *opts);

typedef struct dt_exec {
    char *api_url;        /* without trailing '/' */
    char *token;          /* API key or JWT */
    char *org_id;         /* only with a JWT */
    char *target;
    int64_t max_download;
    dval_log_fn log_fn;
    void *log_ud;
    int log_level;
    dt_http *http;
    dt_tbcache *tb;
} dt_exec;

/* ---- http.c: one request, one remote operation, no retries */

/* Receives a 2xx body as it arrives; returns 0 or a negative status
 * (the transfer stops and that status is returned). */
typedef int (*dt_sink_fn)(const char *p, size_t n, void *ud);

typedef struct dt_req {
    const char *method;       /* GET POST DELETE */
    const char *url;
    const char *accept;       /* NULL → application/json */
    const char *sdk_version;  /* NULL → DT_SDK_VERSION (it selects response
                                 shapes, PROTOCOL 5.6) */
    const char *json;         /* JSON request body or NULL */
    int create;               /* 409 → DVAL_EEXISTS instead of ECONFLICT */
    int64_t max_body;         /* 0 → DT_JSON_MAX */
    dt_sink_fn sink;          /* NULL: buffer the 2xx body in resp.body */
    void *sink_ud;
    /* multipart bulk-upload body: files[0].path then files[0].file */
    const char *up_path;
    dval_read_fn up_src;
    void *up_ud;
    int64_t up_size;          /* -1 unknown */
} dt_req;

typedef struct dt_resp {
    long status;
    char content_type[256];
    int64_t content_length;   /* of the 2xx body; -1 when not announced */
    dval__buf body;           /* 2xx body (no sink) or the error body */
} dt_resp;

int dt_http_new(dt_http **out, const dval_daytona_options *opts, char *err,
                size_t errlen);
void dt_http_free(dt_http *h);
/* DVAL_OK on 2xx; otherwise a mapped status with c->errmsg and
 * retry_after_ms filled (the HTTP status is rs->status). rs->body is
 * freed by dt_resp_free. */
int dt_http_do(dt_exec *ex, dval_call *c, const dt_req *rq, dt_resp *rs);
void dt_resp_free(dt_resp *rs);

/* ---- http_status.c (pure): HTTP status → dval status */
int dt_map_status(long http, int create, const char *msg);
/* Maps a non-2xx reply: c->errmsg = the server's message (JSON message,
 * fallback error, else the status line, with "(HTTP <status>)") without
 * the credentials. Returns the status. */
int dt_fail_http(dt_exec *ex, dval_call *c, long http, int create,
                 const char *ctype, const char *status_line,
                 const char *body, size_t len);
/* Replaces every occurrence of the token in msg by "***". */
void dt_scrub(const dt_exec *ex, char *msg);
/* Sets c->failure (enum dval_failure) when the core's dval_call has it. */
void dt_classify(dval_call *c, int failure);
/* ---- envelope.c: the structured error envelope (PROTOCOL 10.1) and
 * quota errors. Returns the status for a failed reply whose mapped status
 * is rc (classifying c and wording quota errors). */
int dt_envelope_map(dval_call *c, const char *body, size_t len,
                    const char *msg, int rc);
int dt_is_quota_message(const char *msg);

/* ---- url.c (pure) */
/* Appends s percent-encoded (everything but RFC 3986 unreserved). */
int dt_url_escape(dval__buf *b, const char *s);
/* Builds base + printf-ish path where each %s argument is escaped. */
int dt_url(dval__buf *b, const char *base, const char *fmt, ...);

/* ---- toolbox.c: per-sandbox toolbox base URL */
int dt_tbcache_new(dt_tbcache **out);
void dt_tbcache_free(dt_tbcache *t);
void dt_tb_remember(dt_exec *ex, const char *id, const char *proxy_url);
/* Writes the toolbox base for sandbox id into b (cache, else asks the
 * API for toolbox-proxy-url). */
int dt_tb_base(dt_exec *ex, dval_call *c, const char *id, dval__buf *b);

/* ---- request helpers (api_common.c) */
/* Runs rq and parses a JSON object reply through parse(). */
int dt_json_call(dt_exec *ex, dval_call *c, dt_req *rq,
                 int (*parse)(const char *, size_t, void *, char *, size_t),
                 void *out);
/* Sandbox call: parses the Sandbox DTO into *out and caches its toolbox
 * URL. */
int dt_sandbox_call(dt_exec *ex, dval_call *c, dt_req *rq,
                    dval_sandbox_info *out);
void dt_log(dt_exec *ex, dval_call *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- http_ws.c: RFC 6455 client over a CONNECT_ONLY connection */
typedef struct dt_ws dt_ws;
/* url is the http(s) URL; the upgrade carries the usual headers. */
int dt_ws_open(dt_exec *ex, dval_call *c, const char *url, dt_ws **out);
/* Delivers binary/text payload bytes to sink (a non-zero status from it
 * fails the read with that status); otherwise the semantics of the
 * stream_read member. */
int dt_ws_read(dt_exec *ex, dval_call *c, dt_ws *ws, dt_sink_fn sink,
               void *sink_ud, int *closed);
void dt_ws_close(dt_ws *ws);

/* ---- member entry points (api_*.c) */
int dt_snapshot_get(void *ud, dval_call *c, const char *name,
                    dval_snapshot_info *out);
int dt_snapshot_create(void *ud, dval_call *c, const dval_snapshot_spec *s,
                       dval_snapshot_info *out, dval_chunk_fn log,
                       void *log_ud);
int dt_snapshot_activate(void *ud, dval_call *c, const char *id,
                         dval_snapshot_info *out);
int dt_snapshot_delete(void *ud, dval_call *c, const char *id);
/* Every snapshot, following the pages (GET /snapshots?page=). */
int dt_snapshot_list(void *ud, dval_call *c, dval_snapshot_info_fn each,
                     void *each_ud);
int dt_snapshot_logs(void *ud, dval_call *c, const char *id, uint64_t from,
                     dval_chunk_fn log, void *log_ud);
int dt_sandbox_get(void *ud, dval_call *c, const char *name,
                   dval_sandbox_info *out);
int dt_sandbox_create(void *ud, dval_call *c, const dval_sandbox_options *o,
                      dval_sandbox_info *out);
int dt_sandbox_start(void *ud, dval_call *c, const char *id,
                     dval_sandbox_info *out);
int dt_sandbox_stop(void *ud, dval_call *c, const char *id,
                    dval_sandbox_info *out);
int dt_sandbox_delete(void *ud, dval_call *c, const char *id);
int dt_sandbox_recover(void *ud, dval_call *c, const char *id,
                       dval_sandbox_info *out);
int dt_sandbox_list(void *ud, dval_call *c, const char *const *labels,
                    dval_sandbox_info_fn each, void *each_ud);
int dt_session_create(void *ud, dval_call *c, const char *sb,
                      const char *sid);
int dt_sandbox_sessions(void *ud, dval_call *c, const char *sb,
                        const char *prefix, int *count);
int dt_session_delete(void *ud, dval_call *c, const char *sb,
                      const char *sid);
int dt_command_start(void *ud, dval_call *c, const dval_command *cmd,
                     char *cmd_id);
int dt_command_status(void *ud, dval_call *c, const char *sb,
                      const char *sid, const char *cmd, int *finished,
                      int *exit_code);
/* api_logs.c: a command's output, demultiplexed (demux.c) */
int dt_command_logs(void *ud, dval_call *c, const char *sb, const char *sid,
                    const char *cmd, uint64_t out_from, uint64_t err_from,
                    dval_chunk_fn sink, void *sink_ud);
int dt_stream_open(void *ud, dval_call *c, const char *sb, const char *sid,
                   const char *cmd, uint64_t out_from, uint64_t err_from,
                   void **stream);
int dt_stream_read(void *ud, dval_call *c, void *stream, dval_chunk_fn sink,
                   void *sink_ud, int *closed);
void dt_stream_close(void *ud, void *stream);
int dt_file_upload(void *ud, dval_call *c, const char *sb, const char *path,
                   dval_read_fn src, void *src_ud, int64_t size);
int dt_file_download(void *ud, dval_call *c, const char *sb,
                     const char *path, dval_data_fn sink, void *sink_ud);
/* api_list.c: the file_list member, by the toolbox's GET /files */
int dt_file_list(void *ud, dval_call *c, const char *sb, const char *dir,
                 dval_file_list_fn each, void *each_ud);
int dt_folder_create(void *ud, dval_call *c, const char *sb,
                     const char *path);

#endif
