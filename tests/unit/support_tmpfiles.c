/* Support: a unit test's temporary files (tmpfiles.h). */
#include "tmpfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

const char *tmp_put(char *dir, const char *name, const char *text)
{
    static char paths[8][600];
    static int n;
    if (strstr(dir, "XXXXXX"))
        CHECK(mkdtemp(dir) != NULL);
    else
        mkdir(dir, 0700); /* again after tmp_remove */
    char *p = paths[n++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    CHECK(fclose(f) == 0);
    return p;
}

void tmp_remove(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!strstr(dir, "XXXXXX") && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}
