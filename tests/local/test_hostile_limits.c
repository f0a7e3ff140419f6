/* CPU: resources cpu becomes a CFS quota of that many CPUs on the
 * sandbox's cgroup (v1 cpu.cfs_quota_us, v2 cpu.max), which its processes
 * are in; without cpu, no quota. */
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void read_file(const char *p, char *buf, size_t cap)
{
    buf[0] = 0;
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
}

static void state_key(const hx *h, const char *key, char *out, size_t cap)
{
    char p[900], line[512];
    size_t n = strlen(key);
    out[0] = 0;
    snprintf(p, sizeof p, "%s/sandboxes/sb/state", h->dir);
    FILE *f = fopen(p, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == '=') {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, cap, "%s", line + n + 1);
        }
    if (f)
        fclose(f);
}

TEST(test_hostile_limits__cpu_quota_applied)
{
    hx h;
    hx_open(&h, "lim-cpu");
    dval_sandbox_options o;
    dval_sandbox_options_init(&o, sizeof o);
    o.name = "sb";
    o.cpu = 1;
    dval_sandbox *sb = NULL;
    CHECK_INT(dval_sandbox_acquire(&sb, h.client, &o), DVAL_OK);
    char cg[128], pid[32], p[600], buf[4096];
    state_key(&h, "cgroup", cg, sizeof cg);
    state_key(&h, "pid", pid, sizeof pid);
    snprintf(p, sizeof p, "/sys/fs/cgroup/cpu/daytona-validate/%s", cg);
    struct stat st;
    if (stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &st) == 0) {
        read_file(strcat(p, "/cpu.cfs_quota_us"), buf, sizeof buf);
        CHECK_INT(atoi(buf), 100000);
        snprintf(p, sizeof p, "/sys/fs/cgroup/cpu/daytona-validate/%s/"
                 "cgroup.procs", cg);
    } else if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
        snprintf(p, sizeof p, "/sys/fs/cgroup/daytona-validate/%s/cpu.max",
                 cg);
        read_file(p, buf, sizeof buf);
        CHECK_CONTAINS(buf, "100000 100000");
        snprintf(p, sizeof p, "/sys/fs/cgroup/daytona-validate/%s/"
                 "cgroup.procs", cg);
    } else {
        th_skip("no cpu cgroup controller");
    }
    read_file(p, buf, sizeof buf);
    char want[40];
    snprintf(want, sizeof want, "%s\n", pid);
    CHECK_CONTAINS(buf, want);
    CHECK_INT(dval_sandbox_delete(sb), DVAL_OK);
    dval_sandbox_free(sb);
    hx_close(&h);
}
