/* The exec verb's request and its waiter (exec.c), shared with the
 * init, which starts a command's waiter itself (init_exec.c). */
#ifndef DVAL_HELPER_EXEC_H
#define DVAL_HELPER_EXEC_H

#define MAX_ENV 256

struct exec_req {
    const char *pid, *root, *cwd, *cmd;
    char **argv;                /* LX_OPT_ARGV: run without sh -c cmd */
    char *env[MAX_ENV + 8];
    long uid;
    long long cpu_ms;           /* the processes' CPU together; 0: none */
    long ncpu;                  /* the host's CPUs: what CPU time can grow by */
    int report;                 /* the waiter writes the exit code here */
    int caller;                 /* a pidfd of the caller's process: its
                                 * end ends the command, as alive's; -1 */
    int isolated;
    int close_a, close_b;       /* the helper's pipe ends, not the child's */
};

/* The exec verb's arguments (<pid|-> <root> <cwd> [opts] -- cmd | --argv
 * program...) into r; its rlimits are set on the calling process. -1
 * when no command is named. */
int exec_parse(int argc, char **argv, struct exec_req *r);

/* In the sandbox's pid namespace, as root, a child of the sandbox's
 * init: starts the command and waits for it; when it exits, or when
 * `alive` becomes readable (its other end closed: the caller gone or
 * canceling) or r->caller does (the caller's process ended), kills every
 * process it left, writes the exit code as one
 * byte to r->report (unless gone) and exits. */
void exec_waiter(const struct exec_req *r, int alive)
    __attribute__((noreturn));

#endif
