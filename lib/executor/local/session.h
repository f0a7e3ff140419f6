/* Session and command records shared by session.c / command.c. */
#ifndef DVAL_LOCAL_SESSION_H
#define DVAL_LOCAL_SESSION_H

#include "local.h"

typedef struct lx_cmd {
    struct lx_cmd *next;
    char id[64];
    char session[DVAL_ID_MAX];
    int ctl;                    /* the command's connection to the init
                                 * (init_socket.c); -1 once it ended */
    int out, err;
    int finished, code;
    struct lx_cmdcg *cg;        /* its own cgroup (cmd_cgroup.c), or NULL */
} lx_cmd;

struct lx_session {
    struct lx_session *next;
    char sb[DVAL_ID_MAX];
    char id[DVAL_ID_MAX];
    lx_cmd *cmds;
    /* an isolated sandbox's cgroup.procs: every process of its commands
     * is listed there (none can leave it), so the sweep reads only those
     * instead of every process on the host; "" → /proc */
    char procs[4096];
    /* <sandbox dir>/sessions/<id>, flock'd shared while the session is
     * open (session_lease.c): other processes see it, and the kernel
     * drops the lock with a process that dies; -1/NULL when not had */
    int lease_fd;
    char *lease_path;
    /* its commands each get a cgroup with these limits (cmd_cgroup.c) */
    int limited;
    dval_limits lim;
};

/* ---- session_lease.c */
/* Takes n's lease in sandbox directory sbdir (none on failure: the
 * session works, unseen by other processes). */
void lx_lease_take(lx *x, struct lx_session *n, const char *sbdir);
void lx_lease_drop(lx *x, struct lx_session *n);
/* Removes the dropped leases kept for reuse (the executor's end). */
void lx_spares_free(lx *x);
/* *count: the sessions whose id starts with prefix that some process
 * holds open in the sandbox at sbdir. -1 (errno) when it cannot tell. */
int lx_leases_count(const char *sbdir, const char *prefix, int *count);

/* Call with x->lock held. */
struct lx_session *lx_session_find(lx *x, const char *sb, const char *sid);
lx_cmd *lx_cmd_find(struct lx_session *s, const char *id);
/* "DVAL_SESSION=<sandbox>:<session>": set in every command's environment
 * so session_delete also finds processes that left the command's process
 * group (setsid, daemons). No host pid: the program reads it. What a
 * killed caller's commands leave, their waiter or the init ends (the
 * caller's pidfd). */
void lx_session_marker(char *dst, size_t cap, const char *sb,
                       const char *sid);
/* Collects the command's exit status (blocking or not): the code its
 * connection brings. */
void lx_cmd_reap(lx_cmd *m, int block);
/* Ends a command that has not finished: the end of its connection
 * (whose other end then kills it all). */
void lx_cmd_kill(lx_cmd *m);
/* Once output ended, waits (at most ~100 ms) until the status can be
 * collected without blocking. */
void lx_cmd_await(const lx_cmd *m);

/* ---- cmd_cgroup.c: a cgroup per command, inside the sandbox's */
typedef struct lx_cmdcg {
    char dir[3][4096];          /* v2: one; v1: memory, pids, cpuacct */
    int n, v2;
    long long cpu_ms;           /* its CPU limit, 0: none */
    int view;                   /* shown at /sys/fs/cgroup (a memory
                                 * limit: the runtimes size from it) */
} lx_cmdcg;
/* For command m of a session whose limits are lim: its cgroup made and
 * bounded, in m->cg (DVAL_OK without one when the sandbox has no
 * cgroups: then said once in the log). */
int lx_cmdcg_make(lx *x, dval_call *c, const lx_sb *sb,
                  const dval_limits *lim, lx_cmd *m);
/* The helper's options for it (-G procs file, each), at argv[*n]. */
void lx_cmdcg_args(const lx_cmdcg *g, char **argv, int *n, char bufs[3][4200]);
/* Removes m's cgroup (its processes are gone) and frees it. */
void lx_cmdcg_drop(lx_cmd *m);

#endif
