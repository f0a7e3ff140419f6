/* The dotnet image's offline source: the host's own .NET SDK, copied into
 * the cached image once (image.c), so a later host upgrade changes no
 * existing snapshot. Found where `dotnet` is: $DOTNET_ROOT, else the
 * directory the `dotnet` on PATH resolves into; it must hold a .NET 10
 * SDK (sdk/10.*), which names the version the image records. */
#include "local.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lx_dotnet_sdk_version(const char *root, char *ver, size_t cap)
{
    char p[PATH_MAX + 16];
    dval__fmt(p, sizeof p, "%s/sdk", root);
    DIR *d = opendir(p);
    if (!d)
        return -1;
    ver[0] = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, "10.", 3) &&
            (!ver[0] || strverscmp(e->d_name, ver) > 0))
            dval__fmt(ver, cap, "%s", e->d_name);
    closedir(d);
    dval__fmt(p, sizeof p, "%s/dotnet", root);
    return ver[0] && access(p, X_OK) == 0 ? 0 : -1;
}

/* The directory the first `dotnet` on PATH really lives in. */
static int dotnet_on_path(char *root, size_t cap)
{
    char p[PATH_MAX], real[PATH_MAX];
    if (lx_which("dotnet", p, sizeof p) < 0 || !realpath(p, real))
        return -1;
    char *slash = strrchr(real, '/');
    if (!slash || slash == real)
        return -1;
    *slash = 0;
    dval__fmt(root, cap, "%s", real);
    return 0;
}

int lx_host_dotnet(char *root, size_t cap, char *ver, size_t vcap)
{
    const char *env = getenv("DOTNET_ROOT");
    if (env && env[0] == '/' && strlen(env) < cap &&
        lx_dotnet_sdk_version(env, ver, vcap) == 0) {
        dval__fmt(root, cap, "%s", env);
        return 0;
    }
    if (dotnet_on_path(root, cap) < 0 ||
        lx_dotnet_sdk_version(root, ver, vcap) < 0)
        return -1;
    /* copied by a shell hook of mmdebstrap: plain paths only */
    return strspn(root, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789/._-") == strlen(root) ? 0 : -1;
}
