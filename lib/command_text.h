/* Commands as the executors get them (dval_command) and as shell text:
 * shared by the core and by the executors whose wire or helper takes one
 * shell string (daytona, local). */
#ifndef DVAL_COMMAND_TEXT_H
#define DVAL_COMMAND_TEXT_H

#include "internal.h"

/* Appends "cd '<cwd>' || exit; <command>" to out (cwd quoted for the
 * shell, so any name survives; a cwd that cannot be entered ends the
 * command with cd's status, none of it runs), or just command when cwd is
 * NULL. */
int dval__command_in_dir(dval__buf *out, const char *cwd,
                         const char *command);

#define DVAL__WORDS_MAX 64

/* DVAL_OK, or DVAL_EINVAL with c->errmsg saying what is wrong with cmd
 * (see dval_command): no description, neither or both of text and argv,
 * no program, more than DVAL__WORDS_MAX words, an owner that is not a
 * plain name. The same check for every executor. */
int dval__command_check(dval_call *c, const dval_command *cmd);
/* 1 when owner is a plain name: non-empty, no '/' or newline, not "."
 * or "..", shorter than 256 bytes. */
int dval__owner_valid(const char *owner);

/* The program and arguments of a command text that needs no shell:
 * "exec" followed by 1 to DVAL__WORDS_MAX words, blanks (space, tab)
 * between them and around them, every word made of the characters no
 * shell expands or splits on ([A-Za-z0-9_@%+=:,./-]), the first neither
 * an assignment (no '=') nor an option (no leading '-'). Such a text
 * means the same as its words run as they are (argv[0] found through
 * PATH), without the shell. Returns 1 with *argv (NULL-terminated, one
 * allocation: dval__free(*argv)), 0 when the text needs a shell (or is
 * not of that form), DVAL_ENOMEM. */
int dval__command_words(const char *text, char ***argv);

/* "export NAME='value' ...\ntext" into out (env checked, non-empty):
 * for an executor whose wire takes one shell string; each value
 * single-quoted, so no shell expands it. */
int dval__exec_env_text(dval__buf *out, const char *const *env,
                        const char *text);

#endif
