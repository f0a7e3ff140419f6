/* JSON ↔ dval structs for the Daytona API (json_map.c and json_list.c;
 * with envelope.c this executor's only jansson users).
 * Parsers are tolerant: unknown fields are ignored, optional fields may
 * be missing or null; a needed field of the wrong type, truncated JSON,
 * HTML or an empty body give DVAL_EPROTOCOL with a message naming what
 * was wrong. Builders return DVAL_ENOMEM or DVAL_EINVAL (bad UTF-8). */
#ifndef DVAL_DT_JSON_MAP_H
#define DVAL_DT_JSON_MAP_H

#include "internal.h"

/* message (string or array), fallback error, errors[] ; "" if none */
void dt_json_error_message(const char *body, size_t len, char *msg,
                           size_t cap);

/* out: dval_snapshot_info */
int dt_json_snapshot(const char *body, size_t len, void *out, char *err,
                     size_t errlen);

typedef struct dt_sandbox_out {
    dval_sandbox_info *info;
    char toolbox[1024];          /* toolboxProxyUrl or "" */
} dt_sandbox_out;
/* out: dt_sandbox_out */
int dt_json_sandbox(const char *body, size_t len, void *out, char *err,
                    size_t errlen);

typedef struct dt_sandbox_page {
    /* called per item; non-zero stops (returned as is) */
    int (*item)(dt_sandbox_out *o, void *ud);
    void *ud;
    char next_cursor[1024];      /* "" when this was the last page */
} dt_sandbox_page;
int dt_json_sandbox_page(const char *body, size_t len, void *page,
                         char *err, size_t errlen);

/* GET /snapshots?page= (PROTOCOL 2): each SnapshotDto of the page in
 * order (non-zero from item stops, returned as is) and totalPages. */
typedef struct dt_snapshot_page {
    int (*item)(const dval_snapshot_info *info, void *ud);
    void *ud;
    int64_t total_pages;         /* 0 when the reply has none */
} dt_snapshot_page;
int dt_json_snapshot_page(const char *body, size_t len, void *page,
                          char *err, size_t errlen);

/* GET /files (json_list.c): each entry in order; non-zero from each
 * stops (returned as is). size is -1 but for a regular file. */
enum { DT_ENT_FILE, DT_ENT_DIR, DT_ENT_OTHER };
typedef struct dt_dir_page {
    int (*each)(const char *name, int kind, int64_t size, void *ud);
    void *ud;
} dt_dir_page;
int dt_json_dir(const char *body, size_t len, void *page, char *err,
                size_t errlen);

/* out: dt_session_count: how many sessions the array lists whose
 * sessionId starts with prefix */
typedef struct dt_session_count {
    const char *prefix;
    int count;
} dt_session_count;
int dt_json_session_count(const char *body, size_t len, void *out,
                          char *err, size_t errlen);
/* out: char[DVAL_ID_MAX] (cmdId) */
int dt_json_cmd_id(const char *body, size_t len, void *out, char *err,
                   size_t errlen);
typedef struct dt_cmd_status {
    int finished;
    int exit_code;
} dt_cmd_status;
int dt_json_cmd_status(const char *body, size_t len, void *out, char *err,
                       size_t errlen);
/* out: dval__buf receiving the "url" field */
int dt_json_url(const char *body, size_t len, void *out, char *err,
                size_t errlen);
/* out: dval__buf receiving the raw "output" field of command logs */
int dt_json_logs_output(const char *body, size_t len, void *out, char *err,
                        size_t errlen);
/* A bulk-download `error` part: statusCode (0 if absent) and message. */
void dt_json_error_part(const char *body, size_t len, int *status,
                        char *msg, size_t cap);

int dt_json_snapshot_create(char **out, const dval_snapshot_spec *s,
                            const char *target);
int dt_json_sandbox_create(char **out, const dval_sandbox_options *o,
                           const char *target);
int dt_json_session_create(char **out, const char *session_id);
int dt_json_exec(char **out, const char *command);
int dt_json_paths(char **out, const char *path);
/* {"k":"v",...} from "k=v" strings; *out NULL-free even for no labels */
int dt_json_labels(char **out, const char *const *labels);

#endif
