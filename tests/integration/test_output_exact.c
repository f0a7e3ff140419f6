/* A program's output reaches the caller as the server logged it, and
 * nothing else: a last line without a newline (Console.Write, printf) is
 * not glued to anything the library or its command wrapping adds after
 * the program, on either stream. (Found when a trailer that printed an
 * end record after each command was tried: the record joined the
 * program's unterminated last line and reached the caller.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "support_emulator.h"

typedef struct streams {
    dval__buf out, err;
} streams;

static int on_event(const dval_event *ev, void *ud)
{
    streams *s = ud;
    if (ev->type == DVAL_EVENT_RESTART) {
        s->out.len = s->err.len = 0;
    } else if (ev->type == DVAL_EVENT_OUTPUT) {
        dval__buf *b = ev->stream == DVAL_STDERR ? &s->err : &s->out;
        if (dval__buf_append(b, ev->data, ev->len))
            return 1;
    }
    return 0;
}

/* The program's stdout and stderr, NUL-ended (dval__buf_free both); the
 * run command is the profile's unless run_command is given. */
static void run_with(dval_client *c, const char *script,
                     const char *run_command, streams *s)
{
    char dir[32];
    emu_program(dir, script);
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = dir;
    req.allow_missing_results = 1;
    req.release = DVAL_RELEASE_KEEP;
    req.run_command = run_command;
    memset(s, 0, sizeof *s);
    int rc = dval_validate(c, &req, on_event, s, NULL);
    emu_program_rm(dir);
    if (rc)
        th_fail(__FILE__, __LINE__, "validate: %s: %s", dval_status_name(rc),
                dval_client_errmsg(c));
    CHECK(dval__buf_append(&s->out, "", 1) == 0);
    CHECK(dval__buf_append(&s->err, "", 1) == 0);
}

static void run(dval_client *c, const char *script, streams *s)
{
    run_with(c, script, NULL, s);
}

/* text, or text with the newline the daemon's line reader appends to a
 * last line that has none (PROTOCOL 5.1) */
static int is_line(const char *got, const char *text)
{
    size_t n = strlen(text);
    return !strncmp(got, text, n) && (!got[n] || !strcmp(got + n, "\n"));
}

TEST(output__last_line_without_newline_is_not_glued_to_anything)
{
    emu e;
    dval_client *c = emu_fast(&e);
    streams s;
    run(c, "printf abc\nprintf err >&2\n", &s);
    if (!is_line(s.out.data, "abc") || !is_line(s.err.data, "err"))
        th_fail(__FILE__, __LINE__, "stdout [%s] stderr [%s]", s.out.data,
                s.err.data);
    dval__buf_free(&s.out);
    dval__buf_free(&s.err);
    dval_client_free(c);
    emu_stop(&e);
}

/* The run command is the end of the text the library sends: one that ends
 * in a comment, holds a here-document or exits still runs whole, and its
 * exit code is the validation's. */
TEST(output__run_command_with_a_comment_or_a_here_document)
{
    emu e;
    dval_client *c = emu_fast(&e);
    streams s;
    run_with(c, "echo prog\n", "sh run.sh # the program", &s);
    CHECK(is_line(s.out.data, "prog"));
    dval__buf_free(&s.out);
    dval__buf_free(&s.err);
    run_with(c, "", "cat <<'EOF'\nhere ) } doc\nEOF\necho after", &s);
    CHECK_STR(s.out.data, "here ) } doc\nafter\n");
    dval__buf_free(&s.out);
    dval__buf_free(&s.err);
    dval_client_free(c);
    emu_stop(&e);
}
