/* dval-local-helper: the namespace/mount/chroot work of the local executor,
 * done in a single-threaded process so the library only posix_spawn()s.
 *   build <lower> image|host|plain <layer> <work> <mnt> <cmd>...
 *                                                build a layer (plain:
 *                                                on the host, unisolated)
 *   mkimage <target> <suite> <packages> [<dotnet root>]
 *                                                build a Debian root
 *   import <target> tar|oci <archive>...         extract a root filesystem
 *   init  <sbdir> <lowers|host[:lowers]> <net 0|1> <hide> [-g procs]...
 *         [-d gib] [-u base] [-o 1]              start an init
 *         (-o: removed with the process that starts it)
 *         [-S base] (the snapshot's shared services, services_host.c)
 *         (lowers "plain": an unisolated sandbox's, a host process)
 *   (a sandbox's command is a request to its init, init_exec.c: the
 *    words "exec <cwd> [opts] -- <command>", opts
 *    -e VAR=value, -c cpu s, -m bytes, -n procs, -G procs file, -u uid:
 *    the unprivileged host uid)
 *   services <base> <lowers>                     a snapshot's shared services
 *   probe <tmpdir>                               check isolation support
 *   (-u base: the first host uid of the sandbox's own range, a root
 *    caller's; see lib/executor/local/sandbox_ids.h)
 * The verbs, options, replies and fixed fds are named in
 * lib/executor/local/protocol.h, shared with the library. */
#ifndef DVAL_HELPER_H
#define DVAL_HELPER_H

#include <stddef.h>
#include <sys/types.h>

typedef int (*ns_child_fn)(void *arg);

/* Reports "err: <what>: <strerror>" on fd and exits 1. */
void die_fd(int fd, const char *what) __attribute__((noreturn));
int write_all(int fd, const char *s, size_t n);
int write_str(int fd, const char *s);
/* build_show.c: how a snapshot build step is shown in its build log (a
 * long one summarized), into out (cap > 500). */
void build_step_show(const char *step, char *out, size_t cap);
int write_file(const char *path, const char *s);
/* clone() fn into new namespaces (flags, plus CLONE_NEWUSER with id maps
 * when not root), then let it run. Returns the child's pid or -1. */
pid_t spawn_ns(int flags, ns_child_fn fn, void *arg);
/* Joins each cgroup.procs file named by "-g path" options. */
void join_cgroups(int argc, char **argv);
/* Overwrites what /proc/<pid>/cmdline shows (the helper's arguments, as
 * far as they reach) with words (NULL-terminated): a process forked from
 * the init must not pass for an init. */
void helper_retitle(const char *const *words);
/* Waits for pid; returns its exit code, 128+N for signal N, 125 when it
 * cannot be waited for. */
int wait_code(pid_t pid);

/* mounts.c */
/* paths ("a:b:...", directories) opened O_PATH into fds (at most max,
 * *nfds counts them; the caller closes them, also on failure) and named
 * "/proc/self/fd/N:..." in out: an overlay's options are what its mount
 * table shows, and the layers' host paths would tell a sandboxed program
 * the caller's home and state directory (red team A9). */
#define LAYER_FDS_MAX 64
int layer_fd_paths(const char *paths, char *out, size_t cap, int *fds,
                   int *nfds, int max);
/* In a new mount namespace: its mounts private (nothing propagates to
 * or from the host's); on failure reports why on fd and exits. */
void make_root_private(int fd);
int mount_overlay(const char *lower, const char *upper, const char *work,
                  const char *target, int ro);
/* Marks the overlay being configured on fs (fsopen) "volatile": overlayfs
 * then never syncs its upper filesystem. For the reset's overlays, whose
 * generation the next reset removes; mount_overlay clears the mark a
 * volatile mount leaves in its work directory. */
void overlay_volatile(int fs);
int setup_dev(const char *root);
/* root/proc: the sandbox's own, hidepid, host-wide files masked */
int mount_proc(const char *root);
/* uid_base: the sandbox range's first uid (owner of /home/daytona) */
int setup_sandbox_root(const char *root, const char *hide, long uid_base);
int enter_root(const char *root);
/* sandbox_dirs.c: /sandbox root's, sticky, not listable to others;
 * /home/daytona the range's first uid's unless already (root: an
 * opened directory of the root) */
int own_sandbox_dirs(int root, long uid_base);
int loopback_up(void);
/* Drops capabilities that could reach past the sandbox (mounts, devices,
 * modules, raw I/O, ptrace, ...) from the bounding set; sets no_new_privs. */
int drop_caps(void);
int bind_ro(const char *path);

/* cpu_budget.c: the CPU time, ms, of this process's reaped children and
 * of its living descendants together (a child subreaper's: exec.c) */
long long tree_cpu_ms(void);
/* the living descendants' alone, none below a process skip names (and
 * not it); NULL: every one */
long long descendants_cpu_ms(int (*skip)(long pid));
struct rusage;
long long rusage_ms(const struct rusage *ru);
/* A CPU budget of cpu_ms for a command's processes together: when to
 * look next (poll's timeout, -1 without a budget), and whether it is
 * spent (used(ctx) measures, only when a look is due). */
struct budget {
    long long limit, next;
    long ncpu;
    int over;
};
void budget_start(struct budget *b, long long cpu_ms, long ncpu);
int budget_wait(const struct budget *b);
int budget_spent(struct budget *b, long long (*used)(void *ctx), void *ctx);

/* cgroup_view.c: a mount namespace of the command's own with its
 * cgroup (its cgroup namespace's root) at /sys/fs/cgroup, v2 or v1. */
void cgroup_view(int v2);

/* seccomp.c: no_new_privs + the command filter (fails off x86_64). */
int seccomp_install(void);
/* privs.c: new session, own keyring, uid/gid uid (> 0) or, with uid 0
 * (a single-id user namespace), no capabilities; then the filter. */
int drop_privileges(long uid);
/* privs.c: the sandbox range's first uid from a "-u" option (init);
 * LX_UID_DEFAULT without one, -1 when it names no range a
 * sandbox may have. */
long sandbox_uid_base(int argc, char **argv);
/* hostroot.c: the DVAL_LOCAL_HOST_ROOT=1 root: an empty read-only tmpfs
 * at dir (the lowest layer), then the allow-list bound onto a root */
int host_skeleton(const char *dir);
int host_root_binds(const char *root);
/* reset_keep.c: everything below directory d (closed here), never
 * following a symlink or leaving d's filesystem; 0 when all went. */
int wipe_tree(int d);

int helper_build(int argc, char **argv);
int helper_mkimage(int argc, char **argv);
int helper_import(int argc, char **argv);
int helper_init(int argc, char **argv);
int helper_probe(int argc, char **argv);
int helper_services(int argc, char **argv);

#endif
