/* The local executor's reading of a snapshot's Dockerfile: FROM and RUN
 * become its image and build steps, as Docker reads the lines; whatever
 * it cannot honour is refused with the line, never built as something
 * else. */
#include "harness.h"
#include "executor/local/dockerfile.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dval.h>

static int parse(const char *text, lx_dockerfile *d, dval_call *c)
{
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    return lx_dockerfile_parse(c, text, d);
}

TEST(dockerfile__from_and_run_become_image_and_steps)
{
    lx_dockerfile d;
    dval_call c;
    CHECK_INT(parse("FROM debian:12-slim\n"
                    "RUN echo one > /a\n"
                    "run  echo two\n", &d, &c), DVAL_OK);
    CHECK_STR(d.image, "debian:12-slim");
    CHECK_INT((int)d.n, 2);
    CHECK_STR(d.commands[0], "echo one > /a");
    CHECK_STR(d.commands[1], "echo two");
    CHECK(d.commands[2] == NULL);
    lx_dockerfile_free(&d);
}

TEST(dockerfile__lines_are_read_as_docker_reads_them)
{
    lx_dockerfile d;
    dval_call c;
    CHECK_INT(parse("# syntax=docker/dockerfile:1\r\n"
                    "  # a comment\n"
                    "\n"
                    "from debian:bookworm AS base\r\n"
                    "RUN apt-get update && \\\n"
                    "# dropped, even inside the instruction\n"
                    "\n"
                    "    apt-get install -y x \\   \n"
                    "  && echo '#not a comment'\n"
                    "LABEL org.example=1\n"
                    "EXPOSE 8080\n"
                    "RUN echo last \\", &d, &c), DVAL_OK);
    CHECK_STR(d.image, "debian:bookworm");
    CHECK_INT((int)d.n, 2);
    CHECK_STR(d.commands[0], "apt-get update &&     apt-get install -y x "
                             "  && echo '#not a comment'");
    CHECK_STR(d.commands[1], "echo last ");
    lx_dockerfile_free(&d);
}

TEST(dockerfile__exec_form_runs_without_a_shell_s_reading)
{
    lx_dockerfile d;
    dval_call c;
    CHECK_INT(parse("FROM debian:12\n"
                    "RUN [\"/bin/sh\", \"-c\", \"echo it's $HOME; exit 3\"]\n"
                    "RUN [not json] && true\n", &d, &c), DVAL_OK);
    CHECK_STR(d.commands[0],
              "'/bin/sh' '-c' 'echo it'\\''s $HOME; exit 3'");
    CHECK_STR(d.commands[1], "[not json] && true"); /* Docker: shell form */
    lx_dockerfile_free(&d);
}

/* each refused text, its status and words its message must hold */
static const struct {
    const char *text;
    int status;
    const char *msg;
} refused[] = {
    { "", DVAL_EINVAL, "no FROM" },
    { "# only a comment\n", DVAL_EINVAL, "no FROM" },
    { "RUN true\nFROM debian:12\n", DVAL_EINVAL, "line 1: a Dockerfile "
      "begins with FROM" },
    { "FROM debian:12\nENV A=1\n", DVAL_EUNSUPPORTED, "line 2: ENV is not "
      "supported" },
    { "ARG V=12\nFROM debian:$V\n", DVAL_EUNSUPPORTED, "line 1: ARG" },
    { "FROM debian:12\n\nCOPY . /src\n", DVAL_EUNSUPPORTED, "line 3: COPY" },
    { "FROM debian:12\nworkdir /x\n", DVAL_EUNSUPPORTED, "WORKDIR" },
    { "FROM debian:12\nENTRYPOINT [\"x\"]\n", DVAL_EUNSUPPORTED,
      "ENTRYPOINT" },
    { "FROM debian:12 AS a\nFROM a\n", DVAL_EUNSUPPORTED, "multi-stage" },
    { "FROM --platform=linux/arm64 debian:12\n", DVAL_EUNSUPPORTED,
      "--platform" },
    { "FROM debian:12\nRUN --mount=type=cache,target=/x true\n",
      DVAL_EUNSUPPORTED, "RUN flag" },
    { "FROM debian:12\nRUN <<EOF\necho hi\nEOF\n", DVAL_EUNSUPPORTED,
      "here-document" },
    { "# escape=`\nFROM debian:12\n", DVAL_EUNSUPPORTED, "escape" },
    { "FROM debian:12\nRUN\n", DVAL_EINVAL, "line 2: RUN needs a command" },
    { "FROM debian:12 extra words\n", DVAL_EINVAL, "optional AS name" },
    { "FROM\n", DVAL_EINVAL, "FROM takes an image" },
    { "FROM debian:12\nFETCH x\n", DVAL_EINVAL, "line 2: unknown "
      "instruction" },
    { "FROM debian:12\n=oops\n", DVAL_EINVAL, "expected an instruction" },
};

TEST(dockerfile__what_cannot_be_honoured_is_refused_with_its_line)
{
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        lx_dockerfile d;
        dval_call c;
        int rc = parse(refused[i].text, &d, &c);
        if (rc != refused[i].status || !strstr(c.errmsg, refused[i].msg))
            fprintf(stderr, "case %zu: rc %d, \"%s\"\n", i, rc, c.errmsg);
        CHECK_INT(rc, refused[i].status);
        CHECK_CONTAINS(c.errmsg, refused[i].msg);
        CHECK(d.image == NULL && d.commands == NULL && d.n == 0);
    }
}

/* "# escape=\" is the default; a comment line ends the directives, so a
 * later escape line is a comment like any other */
TEST(dockerfile__only_leading_directives_are_read)
{
    lx_dockerfile d;
    dval_call c;
    CHECK_INT(parse("# escape=\\\nFROM debian:12\n", &d, &c), DVAL_OK);
    lx_dockerfile_free(&d);
    CHECK_INT(parse("# hello\n# escape=`\nFROM debian:12\n", &d, &c),
              DVAL_OK);
    lx_dockerfile_free(&d);
}

/* every allocation failure is reported, with nothing leaked (valgrind) */
TEST(dockerfile__allocation_failures_are_reported)
{
    const char *text = "FROM debian:12\nRUN a\nRUN [\"b\", \"c\"]\nRUN d\n";
    int failed = 0;
    for (long n = 1; n < 64; n++) {
        lx_dockerfile d;
        dval_call c;
        dval__alloc_fail_at(n);
        int rc = parse(text, &d, &c);
        dval__alloc_fail_at(0);
        CHECK(rc == DVAL_OK || rc == DVAL_ENOMEM);
        failed += rc == DVAL_ENOMEM;
        if (rc == DVAL_OK) {
            CHECK_INT((int)d.n, 3);
            CHECK_STR(d.commands[1], "'b' 'c'");
        }
        lx_dockerfile_free(&d);
    }
    CHECK(failed > 0);
}
