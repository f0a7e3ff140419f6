/* The command's own cgroup as the runtimes look for it (issue 39: a JVM
 * or .NET sizes its heap from the memory limit it finds under
 * /sys/fs/cgroup, through /proc/self/mountinfo and /proc/self/cgroup).
 * The sandbox has no /sys, so a command with a memory limit gets a mount
 * namespace of its own (about the cost of a process start) holding a
 * tmpfs /sys with the cgroup hierarchies mounted read-only below
 * /sys/fs/cgroup. In its cgroup namespace (entered just before) each
 * mount's root is the command's own cgroup: it sees its limits, not the
 * sandbox's or the host's tree. Best effort: a hierarchy that cannot be
 * mounted is left out (the limits hold all the same). Runs in the
 * vforked command before it drops its privileges: system calls only. */
#include "helper.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define RO (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* v1 hierarchies by their mount options; "cpu,cpuacct" where the host
 * mounts them together (a single one of them is then EBUSY) */
static void mount_v1(void)
{
    static const char *const ctl[] = { "memory", "pids", "cpu,cpuacct",
                                       "cpu", "cpuacct", "cpuset" };
    char dir[64];
    for (size_t i = 0; i < sizeof ctl / sizeof *ctl; i++) {
        snprintf(dir, sizeof dir, "/sys/fs/cgroup/%s", ctl[i]);
        if (mkdir(dir, 0555) < 0)
            continue;
        if (mount("cgroup", dir, "cgroup", RO, ctl[i]) < 0)
            rmdir(dir);
    }
}

void cgroup_view(int v2)
{
    if (unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return;
    if (mount("tmpfs", "/sys", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=64k,mode=0755") < 0 ||
        mkdir("/sys/fs", 0755) < 0 || mkdir("/sys/fs/cgroup", 0755) < 0)
        return;
    if (v2) {
        mount("cgroup2", "/sys/fs/cgroup", "cgroup2", RO, NULL);
        return;
    }
    if (mount("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV |
              MS_NOEXEC, "size=16k,mode=0755") < 0)
        return;
    mount_v1();
    mount(NULL, "/sys/fs/cgroup", NULL, MS_REMOUNT | MS_BIND | RO, NULL);
}
