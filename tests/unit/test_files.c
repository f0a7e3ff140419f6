/* Local-side behaviour of downloads: a failed download never destroys or
 * truncates an existing file and never leaves a partial one. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "support_fake.h"

static fake F;

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    CHECK(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

TEST(files__failed_download_keeps_the_existing_file)
{
    fakeclock_install();
    fake_init(&F);
    dval_client *c = fake_client(&F, 0);
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "box";
    dval_sandbox *sb;
    CHECK_INT(dval_sandbox_acquire(&sb, c, &o), DVAL_OK);
    char dir[] = "/tmp/dval-files-XXXXXX", path[64], buf[64];
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results.json", dir);
    FILE *f = fopen(path, "w");
    fputs("keep", f);
    fclose(f);
    /* missing remote file */
    CHECK_INT(dval_sandbox_download_file(sb, "/sandbox/t/r.json", path),
              DVAL_ENOTFOUND);
    slurp(path, buf, sizeof buf);
    CHECK_STR(buf, "keep");
    /* cut mid-transfer */
    F.file_data = "{\"new\":true}";
    F.file_cut = 1;
    CHECK(dval_sandbox_download_file(sb, "/sandbox/t/r.json", path) != 0);
    slurp(path, buf, sizeof buf);
    CHECK_STR(buf, "keep");
    CHECK_INT(entries(dir), 1); /* no temporary left behind */
    /* success replaces it */
    F.file_cut = 0;
    CHECK_INT(dval_sandbox_download_file(sb, "/sandbox/t/r.json", path),
              DVAL_OK);
    slurp(path, buf, sizeof buf);
    CHECK_STR(buf, "{\"new\":true}");
    CHECK_INT(entries(dir), 1);
    CHECK_INT(dval_sandbox_download_file(sb, "/sandbox/t/r.json", ""),
              DVAL_EINVAL);
    unlink(path);
    rmdir(dir);
    dval_sandbox_free(sb);
    dval_client_free(c);
}
