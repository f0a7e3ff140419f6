/* The pull tests' registry (see registry.h). */
#include "registry.h"
#include "lt.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void lt_reg_require(void)
{
    if (system("command -v docker-registry skopeo umoci >/dev/null") != 0)
        th_skip("docker-registry, skopeo or umoci missing (tests/deps.sh)");
}

const char *lt_slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    if (n && buf[n - 1] == '\n')
        buf[n - 1] = 0;
    return buf;
}

static void stop_at_end(void *ud)
{
    lt_reg_stop(ud);
}

void lt_reg_start(lt_reg *r, const char *dir, const char *args)
{
    char cmd[2048], ports[700];
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    lt_sh(cmd);
    snprintf(cmd, sizeof cmd, "exec /usr/bin/python3 -W ignore "
             "tests/local/registry.py '%s' --watch %d --lifetime 120 %s",
             dir, (int)getpid(), args);
    r->pid = fork();
    if (r->pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    th_at_end(stop_at_end, r);
    th_step("starting tests/local/registry.py");
    snprintf(ports, sizeof ports, "%s/ports", dir);
    for (int i = 0; i < 600 && access(ports, F_OK) != 0; i++) {
        if (waitpid(r->pid, NULL, WNOHANG) == r->pid) {
            r->pid = 0;
            th_fail(__FILE__, __LINE__, "registry.py exited: %s",
                    lt_slurp(ports));
        }
        usleep(50000);
    }
    if (sscanf(lt_slurp(ports), "%d %d", &r->port, &r->proxy) != 2)
        th_fail(__FILE__, __LINE__, "the registry did not start in %s", dir);
}

void lt_reg_stop(lt_reg *r)
{
    if (r->pid > 0) {
        kill(r->pid, SIGTERM);
        waitpid(r->pid, NULL, 0);
    }
    r->pid = 0;
    th_at_end_drop(r);
}

void lt_reg_push(const lt_reg *r, const char *src, const char *dest,
                 const char *extra)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "skopeo copy -q --dest-tls-verify=false %s "
             "oci:%s docker://127.0.0.1:%d/%s >/dev/null", extra, src,
             r->port, dest);
    lt_sh(cmd);
}

void lt_reg_name(const lt_reg *r, const char *name, char *dst, size_t cap)
{
    snprintf(dst, cap, "127.0.0.1:%d/%s", r->proxy, name);
}

int lt_reg_count(const lt_reg *r, const char *const *needles)
{
    char path[700], line[4096];
    int n = 0;
    snprintf(path, sizeof path, "%s/requests.log", r->dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        int all = 1;
        for (size_t i = 0; needles[i] && all; i++)
            all = strstr(line, needles[i]) != NULL;
        n += all;
    }
    if (f)
        fclose(f);
    return n;
}

void lt_sh_out(const char *cmd, char *dst, size_t cap)
{
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(dst, 1, cap - 1, p) : 0;
    if (!p || pclose(p) != 0)
        th_fail(__FILE__, __LINE__, "host command failed: %s", cmd);
    dst[n] = 0;
    while (n && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
        dst[--n] = 0;
}

int lt_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

void lt_pull_open(lt_pull_fx *f, const char *name)
{
    char cmd[1500];
    memset(f, 0, sizeof *f);
    lt_open(&f->t, name);
    lt_reg_require();
    snprintf(f->w, sizeof f->w, "%s/%s-work", lt_base(), name);
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->w);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", f->w, f->w);
    lt_sh(cmd);
    setenv("DVAL_LOCAL_CACHE_DIR", f->cache, 1);
    /* the executor again, with a retry policy a test can wait for */
    char err[256] = "";
    f->t.ex.destroy(f->t.ex.userdata);
    f->t.cfg.retry = (dval__backoff){ 4, 200, 2, 2000, 0 };
    if (dval__local_executor(&f->t.ex, &f->t.cfg, &f->t.lo, err,
                             sizeof err))
        th_fail(__FILE__, __LINE__, "executor: %s", err);
}

void lt_pull_registry(lt_pull_fx *f, const char *args)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/reg", f->w);
    lt_reg_start(&f->r, dir, args);
}

void lt_pull_close(lt_pull_fx *f)
{
    char cmd[700];
    lt_reg_stop(&f->r);
    lt_close(&f->t);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->w);
    lt_sh(cmd);
    unsetenv("DVAL_LOCAL_CACHE_DIR");
    dval__buf_free(&f->log);
}

static int collect(int stream, const char *d, size_t n, void *ud)
{
    (void)stream;
    return dval__buf_append(ud, d, n) != DVAL_OK;
}

int lt_pull_snapshot(lt_pull_fx *f, const char *name, const char *image)
{
    dval_snapshot_spec s = { .struct_size = sizeof s, .name = name,
                             .image = image };
    dval_snapshot_info info = { .struct_size = sizeof info };
    char what[700];
    snprintf(what, sizeof what, "pull of %s into snapshot %s", image, name);
    th_step(what);
    dval__buf_free(&f->log);
    dval__buf_append(&f->log, "", 0);
    return f->t.ex.snapshot_create(f->t.ex.userdata, lt_call(&f->t), &s,
                                   &info, collect, &f->log);
}

void lt_pull_mini_image(lt_pull_fx *f, const char *tag)
{
    char cmd[3000], mini[700];
    snprintf(mini, sizeof mini, "%s/mini", f->w);
    lt_mini_root(mini);
    snprintf(cmd, sizeof cmd, "set -e; cd '%s'; exec >/dev/null 2>&1; "
             "[ -d lay ] || umoci init --layout lay; "
             "umoci new --image lay:%s; "
             "umoci unpack --rootless --image lay:%s b; "
             "cp -a mini/. b/rootfs/; umoci repack --image lay:%s b; "
             "rm -rf b; umoci unpack --rootless --image lay:%s b; "
             "echo hello from the registry > b/rootfs/hello; "
             "umoci repack --image lay:%s b; rm -rf b", f->w, tag, tag, tag,
             tag, tag);
    lt_sh(cmd);
}

void lt_pull_push(lt_pull_fx *f, const char *tag, const char *dest,
                  const char *extra)
{
    char src[800];
    snprintf(src, sizeof src, "%s/lay:%s", f->w, tag);
    lt_reg_push(&f->r, src, dest, extra);
}
