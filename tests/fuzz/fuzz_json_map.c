/* Every Daytona JSON response mapping on any bytes: OK or a clean error
 * with a message, never a crash or an unterminated field. */
#include "fuzz.h"
#include "executor/daytona/json_map.h"

static int fj_item(dt_sandbox_out *o, void *ud)
{
    (void)ud;
    FUZZ_ASSERT(memchr(o->info->id, 0, sizeof o->info->id));
    return 0;
}

FUZZ_TARGET(json_map)
{
    const char *b = (const char *)data;
    char err[256], msg[256];
    dval_snapshot_info si;
    memset(&si, 0, sizeof si);
    si.struct_size = sizeof si;
    if (dt_json_snapshot(b, size, &si, err, sizeof err) == DVAL_OK) {
        FUZZ_ASSERT(memchr(si.id, 0, sizeof si.id));
        FUZZ_ASSERT(memchr(si.error_reason, 0, sizeof si.error_reason));
    }
    dval_sandbox_info bi;
    memset(&bi, 0, sizeof bi);
    bi.struct_size = sizeof bi;
    dt_sandbox_out so = { .info = &bi };
    dt_json_sandbox(b, size, &so, err, sizeof err);
    dval_sandbox_info pi;
    dt_sandbox_out po = { .info = &pi };
    (void)po;
    dt_sandbox_page page = { .item = fj_item };
    dt_json_sandbox_page(b, size, &page, err, sizeof err);
    char id[DVAL_ID_MAX];
    dt_json_cmd_id(b, size, id, err, sizeof err);
    dt_cmd_status st;
    dt_json_cmd_status(b, size, &st, err, sizeof err);
    dval__buf u = { 0 };
    dt_json_url(b, size, &u, err, sizeof err);
    dval__buf_free(&u);
    dval__buf lo = { 0 };
    dt_json_logs_output(b, size, &lo, err, sizeof err);
    dval__buf_free(&lo);
    dt_json_error_message(b, size, msg, sizeof msg);
    FUZZ_ASSERT(memchr(msg, 0, sizeof msg));
    int status;
    dt_json_error_part(b, size, &status, msg, sizeof msg);
    return 0;
}
