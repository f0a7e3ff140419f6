/* The protocol between the local executor (lib/executor/local/) and its
 * helper (libexec/dval-local-helper/), shared by both sides so a verb, an
 * option or a reply cannot be spelled differently on one of them.
 *
 *   helper <verb> <args>...   (argv[1]; see libexec/dval-local-helper/helper.h
 *                              for each verb's arguments)
 *
 * The library posix_spawn()s the helper with fds 0-2 set (lx_spawn) and an environment of its own; every other fd is closed by
 * the helper first thing. */
#ifndef DVAL_LOCAL_PROTOCOL_H
#define DVAL_LOCAL_PROTOCOL_H

/* Verbs (argv[1]) */
#define LX_VERB_BUILD "build"       /* run a snapshot's build steps */
#define LX_VERB_MKIMAGE "mkimage"   /* build a Debian root */
#define LX_VERB_IMPORT "import"     /* extract a root filesystem */
#define LX_VERB_INIT "init"         /* start a sandbox's init */
#define LX_VERB_EXEC "exec"         /* a command: the first word of a
                                     * request over the init's socket */
#define LX_VERB_PROBE "probe"       /* check isolation support */
#define LX_VERB_SERVICES "services" /* a snapshot's shared services */

/* Positional argument values */
#define LX_ROOT_PLAIN "plain"       /* init's layer when unisolated: a
                                     * host process, no namespaces;
                                     * build's lower kind: steps on the
                                     * host, in the layer */
#define LX_ROOT_HOST "host"         /* the host-root opt-in: init's lower
                                     * "host[:<layer>]", build's lower kind */
#define LX_ROOT_IMAGE "image"       /* build's lower kind: an image root */
#define LX_IMPORT_TAR "tar"         /* import's archive kinds */
#define LX_IMPORT_OCI "oci"
#define LX_NET_HOST "1"             /* init's <net>: the host's network */
#define LX_NET_NONE "0"             /*   or a namespace with only lo */

/* Options (each takes one value, except LX_OPT_END and LX_OPT_ARGV) */
#define LX_OPT_ENV "-e"             /* exec: VAR=value */
#define LX_OPT_CPU_S "-c"           /* exec: RLIMIT_CPU, seconds */
#define LX_OPT_CPU_MS "-C"          /* exec: the command's processes'
                                     * CPU together, ms (its watcher's) */
#define LX_OPT_MEM "-m"             /* exec: RLIMIT_AS, bytes */
#define LX_OPT_NPROC "-n"           /* exec: RLIMIT_NPROC */
#define LX_OPT_UID "-u"             /* exec: the unprivileged host uid/gid;
                                     * init: the sandbox range's first */
#define LX_OPT_CGROUP "-g"          /* init: a cgroup.procs to join */
#define LX_OPT_CMD_CGROUP "-G"      /* exec: a cgroup.procs the command
                                     * joins itself (its own cgroup), the
                                     * helper opening it; over the init's
                                     * socket the library sends each one
                                     * opened, after the other fds */
#define LX_OPT_DISK_GIB "-d"        /* init: the bounded disk, GiB */
#define LX_OPT_OWNED "-o"           /* init ("1"): the sandbox is removed
                                     * when the process that started the
                                     * init ends (isolation=sandbox) */
#define LX_OPT_SERVICES "-S"        /* init: the snapshot's shared services'
                                     * directory (bound in, not started) */
#define LX_OPT_CG_VIEW "-V"        /* exec: "1"/"2": the command sees its
                                     * own cgroup (v1/v2) at /sys/fs/cgroup
                                     * (a mount namespace of its own) */
#define LX_OPT_END "--"             /* exec: the command follows */
#define LX_OPT_ARGV "--argv"        /* exec: the program and its arguments
                                     * follow, run without a shell in
                                     * <cwd> (which must exist) */

/* Replies: lines on stdout (probe, init) or stderr (the others) */
#define LX_REPLY_OK "ok\n"          /* probe: isolation works */
#define LX_REPLY_PID "pid "         /* init: "pid <init's pid>\n" */
#define LX_REPLY_NOTE "note: "      /* init: a warning after the pid line */
#define LX_RESET_UNSUPPORTED 3      /* the init's reset reply: not done,
                                     * use the full reset (a new init) */
#define LX_REPLY_ERR "err: "        /* "err: <what>: <strerror>\n", then
                                     * a non-zero exit */

/* Fixed file descriptors */
#define LX_FD_SPAWNED 3     /* fds 0 .. LX_FD_SPAWNED-1 come from lx_spawn */
#define LX_FD_INIT_LOCK 3   /* init: the flock held for its life */
#define LX_FD_INIT_WATCH 4  /* init: its state directory, watched */
#define LX_FD_INIT_RESET 5  /* init: the reset requests' socket */
#define LX_RESET_SOCK "reset.sock" /* that socket, in the state dir */
/* A command started by the init over that socket (helper init_exec.c):
 * one message, the exec verb's argv from LX_VERB_EXEC on, each string
 * NUL-terminated, at most LX_INIT_EXEC_MAX bytes, with the command's
 * stdout and stderr as SCM_RIGHTS; the reply LX_REPLY_OK (or
 * LX_REPLY_ERR...), then one byte: the exit code. */
#define LX_INIT_EXEC_MAX 65536

/* /etc/hostname, /etc/hosts and /etc/resolv.conf of every root (a built
 * image, the host-root /etc): nothing of the machine that built or runs
 * it. A sandbox has no network; a snapshot's build binds the host's
 * resolver over resolv.conf while it runs (helper build.c). */
#define LX_ETC_HOSTNAME "sandbox\n"
#define LX_ETC_HOSTS "127.0.0.1\tlocalhost\n127.0.1.1\tsandbox\n" \
                     "::1\tlocalhost ip6-localhost ip6-loopback\n"
#define LX_ETC_RESOLV "# a sandbox has no network\n"

/* <state>/sandboxes/<LX_OWNER_MARK><name>: a symlink to the pid of the
 * process an isolation=sandbox sandbox belongs to, from before its
 * directory exists until it is removed (sandbox.c, helper init_owner.c) */
#define LX_OWNER_MARK ".own-"

/* The environment variable naming the helper's expected parent pid: a
 * helper whose parent is already gone exits at once. */
#define LX_ENV_PARENT "DVAL_HELPER_PARENT"

/* A snapshot build's host NuGet configuration (lib/executor/local/
 * build_nuget.c): the library names the host's file in LX_ENV_NUGET, the
 * helper shows it read-only to the build steps at LX_BUILD_NUGET_CONFIG,
 * on the build's own /tmp (never in the snapshot nor in a sandbox). */
#define LX_ENV_NUGET "DVAL_HELPER_NUGET_CONFIG"
#define LX_BUILD_NUGET_DIR "/tmp/dval-build"
#define LX_BUILD_NUGET_CONFIG LX_BUILD_NUGET_DIR "/NuGet.Config"

/* The machine's build cache (build_nuget.c): a directory of the image
 * cache that every snapshot build sees read-write (never executable) at
 * LX_BUILD_CACHE_DIR, for what a build derives from inputs it can name
 * by digest (the dotnet profile's ReadyToRun assemblies, r2r.sh), so a
 * second build of the same package set does not redo the work. No
 * sandbox ever sees it. */
#define LX_ENV_BUILD_CACHE "DVAL_HELPER_BUILD_CACHE"
#define LX_BUILD_CACHE_DIR LX_BUILD_NUGET_DIR "/cache"

#endif
