/* A program's inputs (dval_validation.args, .stdin_data) through the
 * Daytona executor (the emulator): the same words and bytes reach it as
 * on the local executor, by the same text and file upload; and without
 * stdin_data a program that reads its stdin reads an empty one instead
 * of the session's FIFO, which stays open until the command ends. */
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "support_emulator.h"

static int on_event(const dval_event *ev, void *ud)
{
    dval__buf *out = ud;
    if (ev->type == DVAL_EVENT_RESTART)
        out->len = 0;
    else if (ev->type == DVAL_EVENT_OUTPUT && ev->stream == DVAL_STDOUT)
        return dval__buf_append(out, ev->data, ev->len) != 0;
    return 0;
}

/* prints each argument in brackets, then its stdin in hex */
#define ECHOES "for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo\n" \
    "od -An -v -tx1 | tr -d ' \\n'; echo\n"

static void run(dval_client *c, const char *const *args, const char *in,
                size_t in_len, dval__buf *out)
{
    char dir[32];
    emu_program(dir, ECHOES);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.allow_missing_results = 1;
    req.timeout_ms = 30000;      /* a read of an open FIFO ends here */
    req.args = args;
    req.stdin_data = in;
    req.stdin_len = in_len;
    memset(out, 0, sizeof *out);
    int rc = dval_validate(c, &req, on_event, out, NULL);
    emu_program_rm(dir);
    if (rc)
        th_fail(__FILE__, __LINE__, "validate: %s: %s", dval_status_name(rc),
                dval_client_errmsg(c));
    CHECK(dval__buf_append(out, "", 1) == 0);
}

TEST(inputs__args_and_stdin_through_daytona)
{
    emu e;
    dval_client *c = emu_fast(&e);
    const char *args[] = { "a b", "it's", "\"q\"", "$HOME", "", NULL };
    static const char in[] = { 'h', 'i', '\0', '\n', 'x' };
    dval__buf out;
    run(c, args, in, sizeof in, &out);
    CHECK_STR(out.data, "[a b][it's][\"q\"][$HOME][]\n6869000a78\n");
    dval__buf_free(&out);
    run(c, NULL, NULL, 0, &out);
    CHECK_STR(out.data, "\n\n");
    dval__buf_free(&out);
    dval_client_free(c);
    emu_stop(&e);
}
