/* A command's request as the init parses it, and its waiter (exec.c);
 * the init starts both (init_exec.c, init_cmd.c). */
#ifndef DVAL_HELPER_EXEC_H
#define DVAL_HELPER_EXEC_H

#include <stddef.h>
#include <sys/types.h>

#define MAX_ENV 256
#define MAX_LIMITS 3
#define MAX_CMD_CG 3

struct exec_req {
    const char *root;           /* unisolated: the sandbox's tree on the
                                 * host; NULL: isolated */
    const char *cwd, *cmd;
    char **argv;                /* LX_OPT_ARGV: run without sh -c cmd */
    char *env[MAX_ENV + 8];
    long uid;
    long long cpu_ms;           /* the processes' CPU together; 0: none */
    long ncpu;                  /* the host's CPUs: what CPU time can grow by */
    int report;                 /* the waiter writes the exit code here */
    int caller;                 /* a pidfd of the caller's process: its
                                 * end ends the command, as alive's; -1 */
    int out, err;               /* the command's stdout and stderr, when
                                 * not already on 1 and 2; else -1 */
    struct {
        int res;
        unsigned long long v;
    } lim[MAX_LIMITS];          /* rlimits: set by the command's process
                                 * alone, not by whoever starts it */
    int nlim;
    /* The command's own cgroup (LX_OPT_CMD_CGROUP): its cgroup.procs
     * files, opened (close-on-exec) before the sandbox's root is
     * entered; the command writes itself into each first thing. */
    const char *cg_path[MAX_CMD_CG];
    int cg[MAX_CMD_CG];
    int ncg;
    int cg_view;                /* LX_OPT_CG_VIEW: 0 none, 1 v1, 2 v2 */
};

/* A command's words (<cwd> [opts] -- cmd | --argv program...) into r
 * (its rlimits too: the command sets them on itself), for an isolated
 * init (root NULL) or an unisolated one (root: its tree on the host,
 * which the init knows). -1 when no command is named. */
int exec_parse(int argc, char **argv, const char *root, struct exec_req *r);

/* In the sandbox's pid namespace, as root, a child of the sandbox's
 * init: starts the command and waits for it; when it exits, or when
 * `alive` becomes readable (its other end closed: the caller gone or
 * canceling) or r->caller does (the caller's process ended), kills every
 * process it left, writes the exit code as one
 * byte to r->report (unless gone) and exits. */
void exec_waiter(const struct exec_req *r, int alive)
    __attribute__((noreturn));

/* Starts the command in a vforked child of the caller (the init, in the
 * sandbox's namespaces as root, when isolated): its output on r->out and
 * r->err (or the caller's 1 and 2), no other descriptor, default
 * signals, then the rlimits, the unprivileged uid, seccomp (isolated)
 * and the exec. Its pid, or -1. */
pid_t exec_start_command(const struct exec_req *r);

/* The caller's children's pids, space-separated, into buf (cap bytes) */
void exec_list_children(char *buf, size_t cap);

#endif
