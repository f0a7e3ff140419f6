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
#define CLI_EX_BUSY 75         /* in use by another run (DVAL_EBUSY) */
#define CLI_EX_COMPILE 80      /* verdict compile_error */
#define CLI_EX_UNSUPPORTED 81  /* verdict runtime_unsupported */
#define CLI_EX_MEMORY 82       /* verdict memory_limit */
#define CLI_EX_OUTPUT 83       /* verdict output_limit */
#define CLI_EX_WRONG 84        /* verdict wrong_results */
#define CLI_EX_TIMEOUT 124     /* the program exceeded --timeout */
#define CLI_EX_INTERRUPTED 130 /* stopped by SIGINT (143: SIGTERM) */

/* A failure in words: what failed and why (message), what to do (hint). */
typedef struct cli_problem {
    int exit_status;
    char message[2048];
    char hint[1024];
} cli_problem;

/* The outcome of one `run`, explained by explain_run(). */
typedef struct run_info {
    int rc;                    /* dval_validate's status */
    const char *errmsg;        /* the library's "<phase>: <detail>" */
    const char *executor;
    const char *thread_id;
    int64_t timeout_ms;        /* --timeout's, else 0 */
    int64_t profile_timeout_ms; /* the profile's default, else 0 */
    int signal;                /* SIGINT/SIGTERM received, else 0 */
    int ran, exit_code;        /* the program exited with exit_code */
    const char *tail;          /* the program's last output, for hints */
    size_t tail_len;
    /* the library's verdict and why, or "" (no summary) */
    char verdict[32], verdict_detail[512];
    /* outputs */
    char phase[32];            /* failed phase ("" on success) */
    const char *status;        /* a word: "passed", "program_failed"... */
    cli_problem pb;
} run_info;

/* Options every command accepts. */
typedef struct cli_common {
    const char *executor;      /* NULL → library default */
    const char *state_dir;
    int verbose;
    int raw_output;            /* program output unfiltered on a terminal */
} cli_common;

/* getopt_long ids of the common options (above any short option). */
enum { OPT_EXECUTOR = 1000, OPT_STATE_DIR, OPT_VERBOSE, OPT_HELP,
       OPT_RAW_OUTPUT, OPT_FIRST_CMD };
#define CLI_COMMON_LONGOPTS                                   \
    {"executor", 1, NULL, OPT_EXECUTOR},                      \
    {"state-dir", 1, NULL, OPT_STATE_DIR},                    \
    {"verbose", 0, NULL, OPT_VERBOSE},                        \
    {"raw-output", 0, NULL, OPT_RAW_OUTPUT},                  \
    {"help", 0, NULL, OPT_HELP}

/* Handles a common option; 1 when handled, 0 when not one. */
int cli_common_opt(cli_common *co, int opt, const char *arg);
/* The option loop of a command with only the common options: -1 to go
 * on, else the exit status (usage on --help, an error otherwise). */
int cli_common_only(cli_common *co, int argc, char **argv, const char *cmd,
                    const char *usage);

/* expect.c: the comparison options of `run` and `diff` */
#define CLI_MAX_IGNORE 64
enum { OPT_EXPECT = OPT_FIRST_CMD + 100, OPT_EXPECT_FILE, OPT_EXPECT_MODE,
       OPT_IGNORE, OPT_TOLERANCE, OPT_REL_TOLERANCE };
#define CLI_COMPARE_LONGOPTS                                  \
    {"expect-file", 1, NULL, OPT_EXPECT_FILE},                \
    {"expect-mode", 1, NULL, OPT_EXPECT_MODE},                \
    {"ignore", 1, NULL, OPT_IGNORE},                          \
    {"tolerance", 1, NULL, OPT_TOLERANCE},                    \
    {"rel-tolerance", 1, NULL, OPT_REL_TOLERANCE}
typedef struct cli_expect {
    const char *path;             /* --expect FILE */
    const char *results_name;     /* --expect-file NAME */
    const char *ignore[CLI_MAX_IGNORE + 1];
    size_t nignore;
    dval_compare_options cmp;     /* dval_compare_options_init'ed */
    char *data;                   /* FILE's bytes (expect_apply) */
    size_t len;
} cli_expect;
/* Handles opt: 0 when it is not a comparison option, -1 when handled,
 * else the usage exit status with *pb set (cmd names the command). */
int expect_option(cli_expect *e, int opt, const char *arg, cli_problem *pb,
                  const char *cmd);
/* Reads --expect FILE into req (-1: done; else the exit status, *pb). */
int expect_apply(cli_expect *e, dval_validation *req, cli_problem *pb);

/* inputs.c: the run phase's --arg WORD (repeatable) and --stdin FILE
 * ("-": the CLI's own stdin), handed to the library as
 * dval_validation.args and .stdin_data. */
enum { OPT_STDIN = OPT_FIRST_CMD + 200, OPT_ARG };
#define CLI_INPUTS_LONGOPTS                                   \
    {"stdin", 1, NULL, OPT_STDIN},                            \
    {"arg", 1, NULL, OPT_ARG}
#define CLI_MAX_ARGS 256
typedef struct cli_inputs {
    const char *args[CLI_MAX_ARGS + 1];
    size_t nargs;
    const char *stdin_path;       /* --stdin FILE */
    char *data;                   /* what it held (free) */
    size_t len;
} cli_inputs;
/* Handles opt: 0 when it is not an input option, -1 when handled, else
 * the usage exit status with *pb set. */
int inputs_option(cli_inputs *in, int opt, const char *arg, cli_problem *pb);
/* Reads --stdin FILE into req, sets its args (-1: done; else the exit
 * status, *pb). */
int inputs_apply(cli_inputs *in, dval_validation *req, cli_problem *pb);

/* main.c */
extern const char *cli_prog;
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_usage_hint(const char *cmd);

/* What a `run` learnt from the library's events. */
#define RUN_TAIL 16384
typedef struct run_state {
    int json;
    char tail[RUN_TAIL];       /* last program output, for hints */
    size_t tail_len;
    char sandbox[256];
    char session[256];
    char timings[1024];        /* "\"phase\":ms,..." */
    size_t timings_len;
    int ran, exit_code;
} run_state;

typedef struct run_report {
    const run_info *ri;
    const run_state *st;       /* NULL before the run started */
    const char *profile;
    const char *summary;       /* the library's summary, or NULL */
    int called;                /* dval_validate ran (ri->rc is its status) */
    int64_t total_ms;
    const char *folder;        /* DIR as given */
    int index;                 /* its place among the DIRs */
} run_report;

/* cmd_batch.c: `run` with several DIRs (one validation each, at most
 * jobs at once through a dval_pool). Returns 0 iff all succeeded, else 1
 * (or an exit status when nothing could start). */
typedef struct batch_opts {
    const cli_common *co;
    const dval_validation *req;   /* template: profile, timeout, labels... */
    char *const *dirs;
    int ndirs;
    int jobs;
    int json;
    const char *results_dir;      /* one <name>.json per folder, or NULL */
} batch_opts;
int batch_run(const batch_opts *o);
/* cmd_run.c: what a finished phase event tells about the run */
void run_note_phase(run_state *st, const dval_event *ev);
/* Keeps the last RUN_TAIL bytes of the program's output in st->tail. */
void run_tail_add(run_state *st, const char *data, size_t len);

/* report.c */
void report_json(FILE *f, const run_report *r);
/* The summary's comparison, its diff pretty-printed (nothing without). */
void report_diff(FILE *f, const char *summary);
/* The verdict and its detail from the library's summary (may be NULL). */
void run_info_verdict(run_info *ri, const char *summary);

/* check.c: argument checks before any remote work; 0 or -1 with *p set */
/* A profile name, or a profile file (a path) loaded and registered: *name
 * becomes its name. */
int check_profile(const char **name, cli_problem *p);
/* With an image (not NULL): the profile over that base image, registered
 * under a derived name, *name becoming it. */
int apply_image(const char **name, const char *image, cli_problem *p);
int check_executor(const char *name, cli_problem *p);
int check_source_dir(const char *dir, cli_problem *p);
/* --service names the library knows, --seed files readable, and seeds
 * only with a service (NULL-terminated arrays). */
int check_services(const char *const *services, const char *const *seeds,
                   cli_problem *p);
int check_output_file(const char *opt, const char *file, cli_problem *p);
int check_output_dir(const char *opt, const char *dir, cli_problem *p);
int check_thread_id(const char *id, cli_problem *p);
int check_sandbox_name(const char *name, cli_problem *p);

/* explain.c */
void explain_run(run_info *ri);
/* The status word of a CLI exit status that is not the program's. */
const char *status_for_exit(int exit_status);

/* interrupt.c: SIGINT/SIGTERM fire the token (a second one exits). */
int intr_start(dval_cancel *token);
int intr_signal(void);

/* client.c */
/* Fills *pb when the client cannot be created (returns its exit status). */
int cli_client_pb(dval_client **out, const cli_common *co, cli_problem *pb,
                  int *status);
/* Returns 0 or the exit status; *status (may be NULL) gets the library's. */
int cli_client(dval_client **out, const cli_common *co, int *status);
int cli_exit_for(int status);

/* term.c: progress on stderr (terminal or --verbose), colours on a
 * terminal without NO_COLOR; program bytes pass through untouched. */
/* safeterm.c: a program's output made inert for a terminal (colour
 * kept); out has room for SAFETERM_OUT(n) bytes; the state carries a
 * sequence split between calls; flush ends it (shown inert). */
typedef struct safeterm {
    int inert_cr;               /* set by the caller: "\r" shown as ^M */
    int state;
    size_t n;
    char seq[32];
    int held, need;             /* a UTF-8 character's bytes so far, to come */
    unsigned char u8[4], lo, hi; /* them; the next one's range */
} safeterm;
#define SAFETERM_OUT(n) (3 * (n) + 48)
size_t safeterm_filter(safeterm *st, const char *in, size_t n, char *out);
size_t safeterm_flush(safeterm *st, char *out);

/* term.c. raw: the program's output reaches a terminal unfiltered. */
void term_init(int verbose, int raw);
int term_progress(void);
void term_event(const dval_event *ev);
/* The program's output (fd 1 or 2): inert on a terminal (safeterm.c) */
void term_out(int fd, const char *data, size_t len);
void term_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void term_log(int level, const char *msg, void *ud);
int term_wants_log(void);
void term_done(void);
void term_problem(const char *message, const char *hint);
/* The verdict's line: the first of the CLI's own about the outcome. */
void term_verdict(const char *verdict, const char *detail);

/* jsontext.c: just enough JSON text handling to avoid a parser dependency
 * in the CLI (the library already validated the documents). */
int jt_member(const char *doc, const char *key, const char **val,
              size_t *len);
void jt_pretty(FILE *f, const char *val, size_t len);
void jt_string(FILE *f, const char *s, size_t len);
/* The JSON string val (quotes included) decoded into dst ("" when it is
 * not a string), cut to fit. */
void jt_unquote(const char *val, size_t len, char *dst, size_t cap);
/* Calls fn with each member of the object obj: its key (quotes
 * included) and value as text, until fn returns non-zero (returned);
 * -1 when obj is not an object. */
typedef int (*jt_member_fn)(const char *key, size_t klen, const char *val,
                            size_t vlen, void *ud);
int jt_each(const char *obj, jt_member_fn fn, void *ud);

/* atomic.c: writes file whole (emit's bytes, through a temporary file
 * renamed over it) or not at all; -1 with errno on failure. */
int write_atomic(const char *file, void (*emit)(FILE *, void *), void *ud);
/* The "results" member of a validation's summary, pretty, to file (so)
 * or to stdout (file NULL); with a file, the other results files too
 * (write_results_files); -1 with errno on failure. */
int write_results_doc(const char *file, const char *summary);
/* results_files.c: the summary's "files" (the results files that are not
 * *.json), each byte-exact to <file less .json>.files/<name>, parents
 * made; -1 with errno on failure (EINVAL: a name that would leave that
 * directory). Nothing is written when there are none. */
int write_results_files(const char *file, const char *summary);

/* runlog.c: a transcript of each run, for `daytona-validate logs`. */
void runlog_open(const cli_common *co, const char *thread_id);
void runlog_write(const char *tag, const char *data, size_t len);
void runlog_close(void);
int runlog_dir(const cli_common *co, char *buf, size_t cap);
/* runlog_prune.c: removes the oldest transcripts of dir (never keep, the
 * file name of the run's own) beyond the newest RUNLOG_KEEP, or beyond
 * RUNLOG_KEEP_BYTES together. */
#define RUNLOG_KEEP 200
#define RUNLOG_KEEP_BYTES (256LL << 20)
void runlog_prune(const char *dir, const char *keep);

/* commands */
int cmd_run(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
/* cmd_snapshot_ls.c: `snapshot ls`; the exit status. */
int snapshot_ls(dval_client *c);
/* cmd_image.c: `image pull|ls|rm`. */
int cmd_image(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);
int cmd_reap(int argc, char **argv);
int cmd_logs(int argc, char **argv);

#endif
