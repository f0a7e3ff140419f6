/* Reading sandbox state files for the tests (sbstate.h). */
#include "sbstate.h"
#include "harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbstate_key(const char *state_dir, const char *name, const char *key,
                 char *out, size_t cap)
{
    char p[1400], line[600];
    snprintf(p, sizeof p, "%s/sandboxes/%s/state", state_dir, name);
    FILE *f = fopen(p, "r");
    size_t kl = strlen(key);
    out[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == '=') {
            snprintf(out, cap, "%s", line + kl + 1);
            out[strcspn(out, "\n")] = 0;
        }
    if (f)
        fclose(f);
}

int sbstate_init_pid(const char *state_dir, const char *name)
{
    char v[32];
    sbstate_key(state_dir, name, "pid", v, sizeof v);
    return atoi(v);
}

void sbstate_only_name(const char *state_dir, char *out, size_t cap)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/sandboxes", state_dir);
    DIR *d = opendir(p);
    CHECK(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && ++n == 1)
            snprintf(out, cap, "%s", e->d_name);
    closedir(d);
    CHECK_INT(n, 1);
}
