/* A hostile program looks for the host's files: canaries planted under
 * /root, /var/lib, /srv, /opt and $HOME, the host's /etc/shadow and this
 * checkout must be invisible inside a sandbox (image root), through the
 * executor and through the CLI; with the host-root opt-in only the
 * allow-list is there (/usr read-only, no /opt, /root or /etc/shadow). */
#include "lt.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char canary[6][512];

static void plant(void)
{
    const char *home = getenv("HOME");
    const char *dirs[] = { "/root", "/var/lib", "/srv", "/opt",
                           home && *home ? home : "/root" };
    for (int i = 0; i < 5; i++) {
        snprintf(canary[i], sizeof canary[i], "%s/dval-canary-%d-%d", dirs[i],
                 (int)getpid(), i);
        int fd = open(canary[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, "CANARY-SECRET\n", 14) == 14);
        close(fd);
    }
    char cwd[400];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(canary[5], sizeof canary[5], "%s", cwd); /* the checkout */
}

static void unplant(void)
{
    for (int i = 0; i < 5; i++)
        unlink(canary[i]);
}

/* A program that reports every canary it can see or read. */
static void probe_cmd(char *cmd, size_t cap)
{
    int n = snprintf(cmd, cap, "for f in");
    for (int i = 0; i < 6; i++)
        n += snprintf(cmd + n, cap - (size_t)n, " '%s'", canary[i]);
    snprintf(cmd + n, cap - (size_t)n, "; do test -e \"$f\" && echo SEEN "
             "\"$f\"; cat \"$f\" 2>/dev/null; done; "
             "grep -rl CANARY-SECRET /root /var /srv /opt /home 2>/dev/null; "
             "echo done");
}

static char *slurp(const char *path)
{
    dval__buf b = { 0 };
    char buf[4096];
    int fd = open(path, O_RDONLY);
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
        dval__buf_append(&b, buf, (size_t)n);
    if (fd >= 0)
        close(fd);
    dval__buf_append(&b, "", 1);
    return b.data;
}

TEST(test_local_hostile__host_files_invisible)
{
    lt t;
    lt_open(&t, "hostile-fs");
    plant();
    lt_sandbox(&t, "sb", NULL);
    char cmd[4096];
    probe_cmd(cmd, sizeof cmd);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", cmd, &o), 0);
    CHECK_STR(o.out.data, "done\n");
    lt_out_free(&o);
    /* /etc/shadow inside is the image's, never the host's */
    lt_out s = { 0 };
    lt_run(&t, "sb", "cat /etc/shadow", &s);
    char *host = slurp("/etc/shadow");
    CHECK(strcmp(s.out.data ? s.out.data : "", host) != 0);
    char *line = strtok(host, "\n");
    for (; line; line = strtok(NULL, "\n"))
        if (strstr(line, ":$")) /* a real password hash of the host */
            CHECK(!s.out.data || !strstr(s.out.data, line));
    dval__free(host);
    lt_out_free(&s);
    unplant();
    lt_close(&t);
}

static void cli_path(char *dst, size_t cap)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0);
    exe[n] = 0;
    snprintf(dst, cap, "%s/../bin/daytona-validate", dirname(exe));
}

TEST(test_local_hostile__host_files_invisible_cli)
{
    lt t;
    lt_open(&t, "hostile-fs-cli");
    plant();
    char cli[1200], cmd[8192], probe[4096], prog[700];
    cli_path(cli, sizeof cli);
    if (access(cli, X_OK) != 0)
        th_skip("the CLI is not built");
    snprintf(prog, sizeof prog, "%s/prog", t.dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", prog);
    lt_sh(cmd);
    probe_cmd(probe, sizeof probe);
    snprintf(cmd, sizeof cmd, "%s/run.sh", prog);
    FILE *f = fopen(cmd, "w");
    CHECK(f != NULL);
    fprintf(f, "%s\n", probe);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' run --executor local --state-dir "
             "'%s/state' --profile shell --thread hostile '%s' > '%s/out' "
             "2>'%s/err'; '%s' sandbox rm --all --executor local --state-dir "
             "'%s/state' >/dev/null 2>&1", cli, t.dir, prog, t.dir, t.dir,
             cli, t.dir);
    CHECK(system(cmd) != -1);
    snprintf(cmd, sizeof cmd, "%s/out", t.dir);
    char *out = slurp(cmd);
    CHECK(!strncmp(out, "done\n", 5)); /* the results JSON follows */
    CHECK(!strstr(out, "SEEN") && !strstr(out, "CANARY-SECRET"));
    dval__free(out);
    unplant();
    lt_close(&t);
}

TEST(test_local_hostile__host_root_opt_in_is_an_allow_list)
{
    lt t;
    lt_open(&t, "hostile-hostroot");
    plant();
    setenv("DVAL_LOCAL_HOST_ROOT", "1", 1);
    lt_sandbox(&t, "sb", NULL);
    char cmd[4096];
    probe_cmd(cmd, sizeof cmd);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", cmd, &o), 0);
    CHECK_STR(o.out.data, "done\n");
    lt_out_free(&o);
    lt_out a = { 0 };
    CHECK_INT(lt_run(&t, "sb", "test -x /usr/bin/env && echo usr; "
                     "touch /usr/dval-x 2>/dev/null || echo usr-ro; "
                     "test -e /etc/shadow || echo no-shadow; "
                     "test -e /etc/gshadow || echo no-gshadow; "
                     "grep -q '^root:' /etc/passwd && echo passwd; "
                     "ls /etc/ssl/private 2>/dev/null | wc -l; "
                     "for d in /var /srv /opt /mnt /root; do "
                     "test -e $d || echo no-$d; done", &a), 0);
    CHECK_STR(a.out.data, "usr\nusr-ro\nno-shadow\nno-gshadow\npasswd\n0\n"
              "no-/var\nno-/srv\nno-/opt\nno-/mnt\nno-/root\n");
    lt_out_free(&a);
    /* /usr/local/etc comes with /usr but is configuration (npmrc, pip.conf
     * with tokens), and /etc/gitconfig may rewrite URLs with credentials
     * (red team A21): neither is there */
    int had_local_etc = access("/usr/local/etc", F_OK) == 0;
    lt_sh("mkdir -p /usr/local/etc && echo CANARY-SECRET > "
          "/usr/local/etc/dval-canary");
    lt_sandbox(&t, "sb2", NULL);
    CHECK_INT(lt_run(&t, "sb2", "cat /usr/local/etc/dval-canary 2>&1; "
                     "ls -A /usr/local/etc | wc -l; "
                     "test -e /etc/gitconfig || echo no-gitconfig", &a), 0);
    lt_sh("rm -f /usr/local/etc/dval-canary");
    if (!had_local_etc)
        rmdir("/usr/local/etc");
    CHECK(!strstr(a.out.data, "CANARY-SECRET"));
    CHECK_CONTAINS(a.out.data, "0\nno-gitconfig\n");
    lt_out_free(&a);
    CHECK(access("/usr/dval-x", F_OK) != 0);
    /* a snapshot's build layer over the host allow-list */
    const char *steps[] = { "mkdir -p /opt/x && echo layer > /opt/x/m",
                            NULL };
    CHECK_INT(lt_snapshot(&t, "hostsnap", "debian:12", steps, NULL),
              DVAL_OK);
    dval_sandbox_options so = { .struct_size = sizeof so,
                                .snapshot = "hostsnap" };
    lt_sandbox(&t, "layered", &so);
    lt_out l = { 0 };
    CHECK_INT(lt_run(&t, "layered", "cat /opt/x/m; ls /opt", &l), 0);
    CHECK_STR(l.out.data, "layer\nx\n");
    lt_out_free(&l);
    CHECK(access("/opt/x/m", F_OK) != 0);
    unsetenv("DVAL_LOCAL_HOST_ROOT");
    unplant();
    lt_close(&t);
}

static int collect_out(int stream, const char *ch, const char *data,
                       size_t len, void *ud)
{
    (void)stream, (void)ch;
    dval__buf_append(ud, data, len);
    return 0;
}

/* The same opt-in as a client option (dval_local_options.host_root),
 * through the public API, with the environment variable unset. */
TEST(test_local_hostile__host_root_option_through_the_public_api)
{
    plant();
    unsetenv("DVAL_LOCAL_HOST_ROOT");
    char dir[256];
    snprintf(dir, sizeof dir, "%s/hostroot-opt.%d", lt_base(), (int)getpid());
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = dir;
    lo.host_root = 1;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.local = &lo;
    dval_client *c = NULL;
    CHECK_INT(dval_client_new(&c, &o), DVAL_OK);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "hr";
    so.release = DVAL_RELEASE_DELETE;
    dval_sandbox *sb = NULL;
    int rc = dval_sandbox_acquire(&sb, c, &so);
    if (rc == DVAL_EISOLATION)
        th_skip(dval_client_errmsg(c));
    CHECK_INT(rc, DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    char cmd[4096];
    probe_cmd(cmd, sizeof cmd);
    char full[4400];
    snprintf(full, sizeof full, "%s; test -x /usr/bin/env && echo usr; "
             "test -e /opt || echo no-opt", cmd);
    dval__buf out = { 0 };
    int code = -1;
    CHECK_INT(dval_session_exec(s, full, NULL, collect_out, &out, &code),
              DVAL_OK);
    CHECK_INT(code, 0);
    CHECK_STR(out.data, "done\nusr\nno-opt\n");
    dval__buf_free(&out);
    dval_session_close(s);
    dval_session_free(s);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    dval_client_free(c);
    unplant();
    char rm[300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CHECK(system(rm) == 0);
}

/* Where credentials conventionally live on a host: a canary file in each
 * directory (made for the test where the host has none), a canary line
 * in /etc/environment; all of it removed at the end, also on failure. */
static const char *const cred_dirs[] = {
    "/etc/maven", "/etc/profile.d", "/etc/ssl/private", "/usr/local/etc",
    "/usr/local/src", "/usr/local/sbin", "/usr/local/include",
    "/usr/local/games", "/etc/java-17-openjdk/management",
};
#define N_CRED (sizeof cred_dirs / sizeof *cred_dirs)
static int cred_made[N_CRED];
static off_t env_size = -1; /* -2: the test made /etc/environment */

static void cred_unplant(void *ud)
{
    char p[512];
    (void)ud;
    for (size_t i = 0; i < N_CRED; i++) {
        snprintf(p, sizeof p, "%s/dval-canary-%d", cred_dirs[i],
                 (int)getpid());
        unlink(p);
        if (cred_made[i])
            rmdir(cred_dirs[i]);
    }
    if (env_size >= 0 && truncate("/etc/environment", env_size) < 0)
        fprintf(stderr, "cannot restore /etc/environment\n");
    if (env_size == -2)
        unlink("/etc/environment");
    env_size = -1;
}

static void cred_plant(void)
{
    char p[512];
    th_at_end(cred_unplant, (void *)cred_dirs);
    for (size_t i = 0; i < N_CRED; i++) {
        cred_made[i] = mkdir(cred_dirs[i], 0755) == 0;
        if (!cred_made[i] && errno == ENOENT)
            continue; /* no such JDK here */
        snprintf(p, sizeof p, "%s/dval-canary-%d", cred_dirs[i],
                 (int)getpid());
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0 && write(fd, "CANARY-SECRET\n", 14) == 14);
        close(fd);
    }
    struct stat st;
    int had = stat("/etc/environment", &st) == 0;
    int fd = open("/etc/environment", O_WRONLY | O_APPEND | O_CREAT, 0644);
    CHECK(fd >= 0);
    env_size = had ? st.st_size : -2;
    CHECK(write(fd, "DVAL_CANARY=CANARY-SECRET\n", 26) == 26);
    close(fd);
}

/* Issue 43: the host-root opt-in showed /etc/maven (settings.xml server
 * passwords), /etc/environment, /etc/profile.d and all of /usr/local but
 * etc. Only what a toolchain needs is there now, and the toolchains
 * (java, mvn, the dotnet SDK) still start; the host's name and resolver
 * are not there either. */
TEST(test_local_hostile__host_root_hides_where_credentials_live)
{
    lt t;
    lt_open(&t, "hostile-hostcred");
    cred_plant();
    setenv("DVAL_LOCAL_HOST_ROOT", "1", 1);
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "grep -rIl CANARY-SECRET /etc /usr/local "
                     "2>/dev/null; ls /etc/maven /usr/local; "
                     "test -e /etc/maven/settings.xml && echo settings; "
                     "test -e /etc/environment && echo environment; "
                     "test -e /etc/profile.d && echo profile.d; "
                     "cat /etc/hostname; grep -c nameserver /etc/resolv.conf;"
                     " mvn -v >/dev/null 2>&1 && echo mvn; "
                     "java -version 2>/dev/null && echo java; "
                     "(! command -v dotnet || dotnet --version) >/dev/null "
                     "&& echo dotnet", &o), 0);
    CHECK_STR(o.out.data, "/etc/maven:\nlogging\nm2.conf\n\n/usr/local:\n"
              "bin\nlib\nshare\nsandbox\n0\nmvn\njava\ndotnet\n");
    lt_out_free(&o);
    unsetenv("DVAL_LOCAL_HOST_ROOT");
    th_at_end_drop((void *)cred_dirs);
    cred_unplant(NULL);
    lt_close(&t);
}
