/* init_owner.c: an isolation=sandbox sandbox removed by its init once
 * the process that started it is gone (init -o). */
#ifndef DVAL_HELPER_INIT_OWNER_H
#define DVAL_HELPER_INIT_OWNER_H

/* Before the namespaces, with the init's arguments: without -o nothing;
 * with it the owner's pidfd, the sandboxes directory and each -g cgroup's
 * hierarchy held open. -1 (errno) on failure. */
int owner_open(int argc, char **argv, const char *sbdir);
/* Those fds moved to first, first+1, ... (the init closes all above its
 * own): the last one used, first - 1 for none; -1 on failure. */
int owner_keep(int first);
/* The owner's pidfd (readable once it ended), -1 without an owner. */
int owner_fd(void);
/* Kills the namespace's other processes, removes the cgroups, the state
 * directory and the marker, and exits. */
void owner_remove(void) __attribute__((noreturn));

#endif
