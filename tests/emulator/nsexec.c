/* The emulator's session spawner (root only): a private mount namespace with
 * the sandbox's directories on /sandbox and /home/daytona, then one exec of
 * the shell. Replaces `unshare` + `sh` + 2 `mount` (five execs per session)
 * with one small exec. Usage: nsexec SANDBOX_DIR HOME_DIR SHELL ARGS...
 * sessions.py compiles it on first use; exit 97 when the mounts fail, as
 * the shell script it replaces. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4)
        return 96;
    if (unshare(CLONE_NEWNS) != 0 ||
        mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount(argv[1], "/sandbox", NULL, MS_BIND, NULL) != 0 ||
        mount(argv[2], "/home/daytona", NULL, MS_BIND, NULL) != 0 ||
        chdir("/home/daytona") != 0) {
        perror("emulator: bind mounts failed");
        return 97;
    }
    execv(argv[3], argv + 3);
    perror("emulator: exec");
    return 127;
}
