/* What the host lends a snapshot's build. The host's NuGet configuration
 * (issue 38): its
 * package sources, their credentials and its proxy settings, so a build
 * step that restores packages (the dotnet profile's packages.sh) reaches
 * what the host reaches. The helper shows the file read-only to the
 * build steps at LX_BUILD_NUGET_CONFIG, on the build's own /tmp: nothing
 * of it stays in the snapshot, and no sandbox, hence no validation, ever
 * sees it. Which file: $DVAL_NUGET_CONFIG, else NuGet's own user-level
 * file, ~/.nuget/NuGet/NuGet.Config; none when that is not a readable
 * regular file (the build then restores with the image's defaults).
 * The machine's build cache: a directory beside the images, shown to
 * every build read-write at LX_BUILD_CACHE_DIR, for results a build can
 * key by the digests of their inputs. Builds are the host's own steps
 * (as a Dockerfile's are), so they share it as BuildKit's cache mounts
 * are shared; validations never see it. */
#include "local.h"
#include "protocol.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usable(const char *p)
{
    struct stat st;
    return p[0] == '/' && stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
           access(p, R_OK) == 0;
}

int lx_host_nuget_config(char *path, size_t cap)
{
    const char *e = getenv("DVAL_NUGET_CONFIG");
    const char *home = getenv("HOME");
    if (e && *e)
        dval__fmt(path, cap, "%s", e);
    else if (home && home[0] == '/')
        dval__fmt(path, cap, "%s/.nuget/NuGet/NuGet.Config", home);
    else
        return -1;
    return strlen(path) + 1 < cap && usable(path) ? 0 : -1;
}

int lx_build_cache(char *path, size_t cap)
{
    struct stat st;
    if (lx_cache_dir(path, cap) < 0 || strlen(path) + 7 >= cap)
        return -1;
    strcat(path, "/build");
    if (lx_mkdirs(path, 0700) < 0 && errno != EEXIST)
        return -1;
    /* only a directory of this user's, never one a symlink points at */
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
           st.st_uid == geteuid() ? 0 : -1;
}
