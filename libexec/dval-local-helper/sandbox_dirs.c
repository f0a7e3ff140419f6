/* The directories every sandbox root gets from its owner, the one rule
 * for the init (mounts.c) and the reset (reset_root.c). */
#include "helper.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor/local/sandbox_ids.h"

/* Root's, or a uid of another sandbox's range (an older version's
 * default, or a root copied between sandboxes): not this range's. */
static int home_owner_stale(uid_t owner, long uid_base)
{
    return owner == 0 ||
           (owner >= (uid_t)LX_UID_DEFAULT && owner != (uid_t)uid_base);
}

/* /sandbox: anyone may reach a directory there by name, but not list it
 * (a validation does not learn the thread ids it shares the sandbox with)
 * nor make anything there (the executor makes each validation's
 * directory): build tools look for their settings in every parent
 * directory (MSBuild's Directory.Build.props and .targets, NuGet.Config,
 * global.json, .editorconfig, Maven's .mvn), so a file one validation
 * left in /sandbox would steer the builds of all the others, and a
 * directory made under a later validation's name would hand it files. */
#define SANDBOX_MODE 0711

int own_sandbox_dirs(int root, long uid_base)
{
    struct stat st;
    mkdirat(root, "sandbox", 0777);
    mkdirat(root, "home", 0755);
    mkdirat(root, "home/daytona", 0755);
    if (fchownat(root, "sandbox", 0, 0, AT_SYMLINK_NOFOLLOW) < 0 ||
        fchmodat(root, "sandbox", SANDBOX_MODE, 0) < 0 ||
        fstatat(root, "home/daytona", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISDIR(st.st_mode))
        return -1;
    if (home_owner_stale(st.st_uid, uid_base) &&
        fchownat(root, "home/daytona", (uid_t)uid_base, (gid_t)uid_base,
                 AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    return 0;
}
