/* The part of a Dockerfile a local snapshot can honour: one FROM (the
 * image) and its RUN steps, which become a spec's image and build_commands
 * (the inverse of what the daytona executor does with them). Instructions
 * that only describe the image (LABEL, MAINTAINER, EXPOSE) are skipped;
 * every other one is refused, so a snapshot is never built as something
 * other than what its Dockerfile says. */
#ifndef DVAL_LOCAL_DOCKERFILE_H
#define DVAL_LOCAL_DOCKERFILE_H

#include <stddef.h>

#include <dval.h>

typedef struct lx_dockerfile {
    char *image;        /* FROM's image */
    char **commands;    /* RUN steps as sh command lines, NULL-terminated */
    size_t n;
} lx_dockerfile;

/* DVAL_EINVAL for a text that is not a Dockerfile (no FROM, an instruction
 * before it, a malformed line) and DVAL_EUNSUPPORTED for one the local
 * executor cannot honour; both name the line. *out is empty on failure. */
int lx_dockerfile_parse(dval_call *c, const char *text, lx_dockerfile *out);
void lx_dockerfile_free(lx_dockerfile *d);

#endif
