/* The text of a shell command that runs in a given directory. Shared by
 * the core's fallback for 0.1.0 executors (executor.c) and by the
 * executors whose wire or helper takes one shell string (daytona, local). */
#ifndef DVAL_COMMAND_TEXT_H
#define DVAL_COMMAND_TEXT_H

#include "internal.h"

/* Appends "cd '<cwd>' && <command>" to out (cwd quoted for the shell, so
 * any name survives), or just command when cwd is NULL. */
int dval__command_in_dir(dval__buf *out, const char *cwd,
                         const char *command);

#endif
