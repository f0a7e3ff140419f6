/* The structured error envelope of newer servers (PROTOCOL 10.1):
 * {"statusCode","message","code","source":"DAYTONA_API|DAEMON|PROXY"}.
 * Classified on statusCode + code (+ source), never on the message alone;
 * bodies without a code keep the 8.1 mapping (dt_map_status). Quota
 * errors carry no code of their own: they are recognised by their text in
 * both shapes, as the SDKs do. */
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "dt.h"

typedef struct code_map {
    const char *code;
    int status;                /* 0: keep the HTTP mapping */
    int failure;
} code_map;

static const code_map CODES[] = {
    { "SANDBOX_NOT_FOUND", DVAL_ENOTFOUND, DVAL_FAILURE_BY_STATUS },
    { "SNAPSHOT_NOT_FOUND", DVAL_ENOTFOUND, DVAL_FAILURE_BY_STATUS },
    { "FILE_NOT_FOUND", DVAL_ENOTFOUND, DVAL_FAILURE_PERMANENT },
    { "SESSION_ENDED", DVAL_ENOTFOUND, DVAL_FAILURE_PERMANENT },
    { "COMMAND_ALREADY_COMPLETED", DVAL_ECONFLICT, DVAL_FAILURE_PERMANENT },
    { "PROCESS_EXECUTION_TIMEOUT", DVAL_ETIMEOUT, DVAL_FAILURE_PERMANENT },
    { "UNAUTHORIZED", DVAL_EAUTH, DVAL_FAILURE_PERMANENT },
    { "FORBIDDEN", DVAL_EFORBIDDEN, DVAL_FAILURE_PERMANENT },
};

static const char *const QUOTA[] = {
    "Sandbox resource limit reached", "Total CPU limit exceeded",
    "Total memory limit exceeded", "Total disk limit exceeded",
};

int dt_is_quota_message(const char *msg)
{
    for (size_t i = 0; msg && i < sizeof QUOTA / sizeof QUOTA[0]; i++)
        if (strcasestr(msg, QUOTA[i]))
            return 1;
    return 0;
}

static void code_of(const char *body, size_t len, char *code, size_t cap)
{
    code[0] = '\0';
    if (!len || body[0] != '{')
        return;
    json_t *j = json_loadb(body, len, 0, NULL);
    json_t *k = json_object_get(j, "code");
    if (json_is_string(k) && json_is_integer(json_object_get(j, "statusCode")))
        dval__strlcpy(code, json_string_value(k), cap);
    json_decref(j);
}

int dt_envelope_map(dval_call *c, const char *body, size_t len,
                    const char *msg, int rc)
{
    if (dt_is_quota_message(msg)) {
        dt_classify(c, DVAL_FAILURE_PERMANENT);
        size_t n = strlen(c->errmsg);
        dval__fmt(c->errmsg + n, sizeof c->errmsg - n, ": the organization's "
                  "quota is used up (not a transient failure); stop or delete "
                  "sandboxes (daytona-validate sandbox ls / rm) or raise the "
                  "limit");
        return DVAL_EQUOTA;
    }
    char code[64];
    code_of(body, len, code, sizeof code);
    for (size_t i = 0; code[0] && i < sizeof CODES / sizeof CODES[0]; i++) {
        if (strcmp(code, CODES[i].code))
            continue;
        if (CODES[i].failure)
            dt_classify(c, CODES[i].failure);
        return CODES[i].status ? CODES[i].status : rc;
    }
    return rc;
}
