/* Dropping everything a sandboxed command could use against the host:
 * its own session (no controlling terminal), a fresh session keyring, an
 * unprivileged uid/gid (or, under a user namespace with a single id, no
 * capabilities at all), no_new_privs and the seccomp filter. */
#include "helper.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "executor/local/protocol.h"
#include "executor/local/sandbox_ids.h"

/* Clears every capability set and locks root's special cases off, for a
 * command that must keep uid 0 (the sandbox's user namespace maps only
 * the caller's id, so there is no other id to switch to). */
static int clear_caps(void)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
              SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
              SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
              SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) < 0)
        return -1;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    return (int)syscall(SYS_capset, &h, d);
}

int drop_privileges(long uid)
{
    if (setsid() < 0)
        return -1;
    /* the caller's session keyring is inherited and "possessed": a new
     * anonymous one (made while still root: root's key quota, not the
     * sandbox uid's) keeps the host's keys out of reach */
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0L) < 0)
        return -1;
    if (drop_caps() < 0) /* bounding set; also sets no_new_privs */
        return -1;
    if (uid > 0) {
        /* setgroups first: supplementary groups (root's 0) would stay */
        if (setgroups(0, NULL) < 0 || setresgid((gid_t)uid, (gid_t)uid,
                                                (gid_t)uid) < 0 ||
            setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
            return -1;
        if (geteuid() == 0 || getegid() == 0) { /* never run as root */
            errno = EPERM;
            return -1;
        }
    } else if (clear_caps() < 0) {
        return -1;
    }
    return seccomp_install();
}

long sandbox_uid_base(int argc, char **argv)
{
    for (int i = 0; i + 1 < argc; i++) {
        if (strcmp(argv[i], LX_OPT_UID))
            continue;
        char *end;
        errno = 0;
        long base = strtol(argv[i + 1], &end, 10);
        long r = (base - LX_UID_DEFAULT) / LX_UID_SLOTS;
        if (errno || *end || base < LX_UID_DEFAULT ||
            (base - LX_UID_DEFAULT) % LX_UID_SLOTS || r == 1 ||
            r >= LX_UID_RANGES)
            return -1;
        return base;
    }
    return LX_UID_DEFAULT;
}
