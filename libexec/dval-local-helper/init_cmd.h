/* init_cmd.c: a command the sandbox's init runs as its own child, with
 * no waiter between them, while no other such command runs. */
#ifndef DVAL_HELPER_INIT_CMD_H
#define DVAL_HELPER_INIT_CMD_H

#include <poll.h>
#include <sys/types.h>

#include "exec.h"

/* init_exec.c: how the init runs commands, set before it starts: in its
 * namespaces (isolated: sbdir NULL) or on the host, below the sandbox
 * directory sbdir's tree, and whether the caller is host root (then a
 * command never runs as root: the default uid). */
void init_exec_mode(const char *sbdir, int host_root);
/* init.c: 1 when this init can do the fast reset (it kept the layers:
 * host root, an image root, a disk); else a reset request is refused. */
int init_resets(void);
/* 1 when the next command may be the init's own: none is, and the
 * sandbox has no service (whose processes are the init's children too) */
int init_cmd_free(void);
/* Starts r (isolated, parsed) for connection c, the caller's pidfd in
 * r->caller; replies on c. 1: started, c and r->caller are the init's
 * now; 0: not started (replied; the caller still owns both). */
int init_cmd_run(int c, const struct exec_req *r);
/* Room for one more waiter's pid (0), or -1; then the pid of each
 * waiter forked: its processes are not the init's command's. */
int init_cmd_reserve(void);
void init_cmd_waiter(pid_t pid);
/* The sandbox has a service (its supervisor is the init's child): no
 * command of this init runs without a waiter. */
void init_cmd_service(void);
/* Reaps every child that exited; the init's command, once it exited,
 * is finished: what it left killed, its code sent. */
void init_cmd_reap(void);
/* What to watch for the init's command (2 entries: its connection, its
 * caller's pidfd) and poll's timeout (at most dflt ms). */
void init_cmd_pollfds(struct pollfd p[2]);
int init_cmd_timeout(int dflt);
/* After that poll: a connection closed or a caller gone ends the
 * command (nothing sent); a spent CPU budget ends it with 128+SIGXCPU. */
void init_cmd_events(const struct pollfd p[2]);
/* After a reset killed and reaped every process: what is gone is
 * forgotten (the command's connection closed without a code). */
void init_cmd_forget(void);

#endif
