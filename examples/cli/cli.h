/* daytona-validate: declarations shared by the CLI's small modules. */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>

#include "dval.h"

/* Exit statuses of the CLI itself (sysexits.h values, documented in
 * daytona-validate(1)). Otherwise `run` exits with the program's status. */
#define CLI_EX_USAGE 64        /* bad command line */
#define CLI_EX_RESULTS 65      /* program exited 0 but results missing/invalid */
#define CLI_EX_NOINPUT 66      /* source directory missing or unreadable */
#define CLI_EX_UNAVAILABLE 69  /* profile/executor unavailable, credentials */
#define CLI_EX_INFRA 70        /* sandbox infrastructure failed */
#define CLI_EX_TIMEOUT 124     /* the program exceeded --timeout */
#define CLI_EX_INTERRUPTED 130 /* stopped by SIGINT/SIGTERM */

/* Options every command accepts. */
typedef struct cli_common {
    const char *executor;      /* NULL → library default */
    const char *state_dir;
    int verbose;
} cli_common;

/* getopt_long ids of the common options (above any short option). */
enum { OPT_EXECUTOR = 1000, OPT_STATE_DIR, OPT_VERBOSE, OPT_HELP,
       OPT_FIRST_CMD };
#define CLI_COMMON_LONGOPTS                                   \
    {"executor", 1, NULL, OPT_EXECUTOR},                      \
    {"state-dir", 1, NULL, OPT_STATE_DIR},                    \
    {"verbose", 0, NULL, OPT_VERBOSE},                        \
    {"help", 0, NULL, OPT_HELP}

/* Handles a common option; 1 when handled, 0 when not one. */
int cli_common_opt(cli_common *co, int opt, const char *arg);

/* main.c */
extern const char *cli_prog;
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_usage_hint(const char *cmd);

/* client.c */
/* Returns 0 or the exit status; *status (may be NULL) gets the library's. */
int cli_client(dval_client **out, const cli_common *co, int *status);
int cli_exit_for(int status);

/* term.c: progress on stderr (terminal or --verbose), colours on a
 * terminal without NO_COLOR; program bytes pass through untouched. */
void term_init(int verbose);
int term_progress(void);
void term_event(const dval_event *ev);
void term_out(int fd, const char *data, size_t len);
void term_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void term_log(int level, const char *msg, void *ud);

/* jsontext.c: just enough JSON text handling to avoid a parser dependency
 * in the CLI (the library already validated the documents). */
int jt_member(const char *doc, const char *key, const char **val,
              size_t *len);
void jt_pretty(FILE *f, const char *val, size_t len);
void jt_string(FILE *f, const char *s, size_t len);

/* runlog.c: a transcript of each run, for `daytona-validate logs`. */
void runlog_open(const cli_common *co, const char *thread_id);
void runlog_write(const char *tag, const char *data, size_t len);
void runlog_close(void);
int runlog_dir(const cli_common *co, char *buf, size_t cap);

/* commands */
int cmd_run(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);
int cmd_logs(int argc, char **argv);

#endif
