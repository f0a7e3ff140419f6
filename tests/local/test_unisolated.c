/* allow_unisolated, end to end: on a host whose isolation probe fails, a
 * client that opted in still builds the snapshot, starts the sandbox (a
 * plain directory on the host), and runs a whole validation in it. The
 * sandbox's paths (the cwd, DVAL_WORKDIR, DVAL_RESULTS_DIR) lead into
 * that directory, never to the host's own /sandbox. The probe is made to
 * fail by a wrapper around the real helper that refuses its probe verb. */
#include "lt.h"
#include "executor/local/local.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct uni {
    lt t;
    char wrapper[700], src[700];
    dval_client *client;
} uni;

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        th_fail(__FILE__, __LINE__, "cannot write %s", path);
    chmod(path, mode);
}

/* The real helper behind a script whose probe reports no namespaces. */
static void make_wrapper(uni *u)
{
    char text[1200];
    snprintf(u->wrapper, sizeof u->wrapper, "%s-helper.sh", u->t.dir);
    snprintf(text, sizeof text, "#!/bin/sh\nif [ \"$1\" = probe ]; then\n"
             "  echo 'ERR test: no namespaces here'; exit 1\nfi\n"
             "exec '%s' \"$@\"\n", ((lx *)u->t.ex.userdata)->helper);
    write_file(u->wrapper, text, 0755);
}

static void uni_open(uni *u, const char *name)
{
    memset(u, 0, sizeof *u);
    if (getenv("DVAL_VALGRIND")) /* the uploads need openat2 */
        th_skip("valgrind does not know openat2");
    lt_open(&u->t, name);
    make_wrapper(u);
    snprintf(u->src, sizeof u->src, "%s-src", u->t.dir);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", u->src, u->src);
    lt_sh(cmd);
    dval_local_options lo;
    dval_local_options_init(&lo, sizeof lo);
    lo.state_dir = u->t.dir;
    lo.helper_path = u->wrapper;
    lo.allow_unisolated = 1;
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.executor = "local";
    o.local = &lo;
    CHECK_INT(dval_client_new(&u->client, &o), DVAL_OK);
}

static void uni_close(uni *u)
{
    dval_client_free(u->client);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", u->src, u->wrapper);
    lt_sh(cmd);
    lt_close(&u->t);
}

static int on_event(const dval_event *e, void *ud)
{
    if (e->type == DVAL_EVENT_OUTPUT && e->stream == DVAL_STDOUT)
        dval__buf_append(ud, e->data, e->len);
    return 0;
}

/* A validation of profile with run_command (NULL: the profile's) and
 * thread id tid (NULL: a new one); its result JSON, its stdout in *out. */
static int validate(uni *u, const char *profile, const char *tid,
                    const char *run_command, dval__buf *out, char **json)
{
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.profile = profile;
    r.source_dir = u->src;
    r.thread_id = tid;
    r.run_command = run_command;
    r.timeout_ms = 120000;
    return dval_validate(u->client, &r, on_event, out, json);
}

static const char program[] =
    "pwd\n"
    "echo \"$DVAL_WORKDIR|$DVAL_RESULTS_DIR\"\n"
    "mkdir -p \"$DVAL_RESULTS_DIR\"\n"
    "echo '{\"ok\":true}' > \"$DVAL_RESULTS_DIR/r.json\"\n";

/* Both ways a run command is started: as words (the profile's own
 * "exec sh run.sh") and as shell text. */
static void check_validation(uni *u, const char *tid, const char *run)
{
    char host[300], cmd[400];
    snprintf(host, sizeof host, "/sandbox/%s", tid);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", host);
    lt_sh(cmd);
    dval__buf out = { 0 };
    char *json = NULL;
    int rc = validate(u, "shell", tid, run, &out, &json);
    if (rc != DVAL_OK)
        th_fail(__FILE__, __LINE__, "validate: %s",
                dval_client_errmsg(u->client));
    dval__buf_append(&out, "", 1);
    char want[900];
    /* the sandbox's directory on the host: <state>/sandboxes/<name>/plain */
    snprintf(want, sizeof want, "%s/sandboxes/", u->t.dir);
    CHECK_CONTAINS(out.data, want);
    snprintf(want, sizeof want, "/plain/sandbox/%s\n", tid);
    CHECK_CONTAINS(out.data, want);
    snprintf(want, sizeof want, "/plain/sandbox/%s/results\n", tid);
    CHECK_CONTAINS(out.data, want);
    CHECK_CONTAINS(json, "\"ok\":true");
    CHECK(access(host, F_OK) != 0);
    dval_free(json);
    dval__buf_free(&out);
}

TEST(test_unisolated__a_validation_runs_in_the_sandboxs_directory)
{
    uni u;
    uni_open(&u, "uni-validate");
    char path[800];
    snprintf(path, sizeof path, "%s/run.sh", u.src);
    write_file(path, program, 0644);
    check_validation(&u, "uni-words", NULL);
    check_validation(&u, "uni-text", "sh run.sh; exit $?");
    /* where isolation works, the snapshot built on the host is refused,
     * never taken for an image */
    dval_client *isolated = lt_client(&u.t);
    dval_sandbox *sb = NULL;
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "uni-isolated";
    so.snapshot = dval_profile_find("shell")->snapshot_name;
    CHECK_INT(dval_sandbox_acquire(&sb, isolated, &so), DVAL_ESTATE);
    CHECK_CONTAINS(dval_client_errmsg(isolated), "built without isolation");
    dval_client_free(isolated);
    uni_close(&u);
}

static int on_output(int stream, const char *channel, const char *data,
                     size_t len, void *ud)
{
    (void)channel;
    if (stream == DVAL_STDOUT)
        dval__buf_append(ud, data, len);
    return 0;
}

/* dval_session_exec's cwd is the sandbox's directory too, and a cwd that
 * does not exist there fails the whole command. */
TEST(test_unisolated__session_exec_cwd_is_inside_the_sandbox)
{
    uni u;
    uni_open(&u, "uni-cwd");
    dval_sandbox *sb = NULL;
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "uni-sb";
    so.image = "debian:12-slim";
    so.release = DVAL_RELEASE_DELETE;
    CHECK_INT(dval_sandbox_acquire(&sb, u.client, &so), DVAL_OK);
    CHECK_INT(dval_sandbox_mkdir(sb, "/sandbox/w"), DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    dval_exec_options eo;
    dval_exec_options_init(&eo, sizeof eo);
    eo.cwd = "/sandbox/w";
    dval__buf out = { 0 };
    int code = -1;
    CHECK_INT(dval_session_exec(s, "pwd", &eo, on_output, &out, &code),
              DVAL_OK);
    CHECK_INT(code, 0);
    dval__buf_append(&out, "", 1);
    CHECK_CONTAINS(out.data, "/plain/sandbox/w\n");
    out.len = 0;
    eo.cwd = "/sandbox/missing";
    CHECK_INT(dval_session_exec(s, "echo ran; exit 0", &eo, on_output, &out,
                                &code), DVAL_OK);
    CHECK(code != 0);
    dval__buf_append(&out, "", 1);
    CHECK(strstr(out.data, "ran") == NULL);
    dval__buf_free(&out);
    CHECK_INT(dval_session_close(s), DVAL_OK);
    dval_session_free(s);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    uni_close(&u);
}

/* The java profile's snapshot steps install its compile service under
 * /opt and /run: unisolated they would run on the host, as root, for a
 * sandbox that never sees the snapshot's layer. None runs: the profile's
 * own build says why it cannot run (an infrastructure error, not the
 * program's), and a validation with a run command of its own compiles
 * with the host's javac. */
TEST(test_unisolated__java_builds_nothing_on_the_host)
{
    if (access("/opt/dval-javac", F_OK) == 0 ||
        access("/run/dval-javac", F_OK) == 0)
        th_skip("this host has /opt/dval-javac or /run/dval-javac already");
    if (system("javac -version >/dev/null 2>&1") != 0)
        th_skip("no javac on this host");
    uni u;
    uni_open(&u, "uni-java");
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "cp -r examples/validation/java-javac/. '%s'",
             u.src);
    lt_sh(cmd);
    dval__buf out = { 0 };
    char *json = NULL;
    validate(&u, "java", NULL, NULL, &out, &json);
    if (!json || !strstr(json, "\"verdict\":\"infrastructure_error\"") ||
        !strstr(json, "runs unisolated"))
        th_fail(__FILE__, __LINE__, "profile build: %s", json ? json : "-");
    CHECK(access("/opt/dval-javac", F_OK) != 0);
    CHECK(access("/run/dval-javac", F_OK) != 0);
    dval_free(json);
    json = NULL;
    int rc = validate(&u, "java", NULL,
                      "mkdir -p out && javac -d out Main.java && "
                      "exec java -cp out Main", &out, &json);
    if (rc != DVAL_OK || !strstr(json, "\"verdict\":\"passed\""))
        th_fail(__FILE__, __LINE__, "own run command: %s %s",
                dval_client_errmsg(u.client), json ? json : "-");
    CHECK(access("/opt/dval-javac", F_OK) != 0);
    dval_free(json);
    dval__buf_free(&out);
    uni_close(&u);
}

/* An unisolated sandbox's commands are started by its init as an
 * isolated one's are: what a command leaves behind, detached from it,
 * is killed once the command ends, not left running on the host. */
TEST(test_unisolated__a_commands_leftovers_end_with_it)
{
    uni u;
    uni_open(&u, "uni-leftovers");
    dval_sandbox *sb = NULL;
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "uni-left";
    so.image = "debian:12-slim";
    so.release = DVAL_RELEASE_DELETE;
    CHECK_INT(dval_sandbox_acquire(&sb, u.client, &so), DVAL_OK);
    dval_session *s = NULL;
    CHECK_INT(dval_session_open(&s, sb), DVAL_OK);
    dval__buf out = { 0 };
    int code = -1;
    CHECK_INT(dval_session_exec(s, "( sleep 30 >/dev/null 2>&1 & echo $! )",
                                NULL, on_output, &out, &code), DVAL_OK);
    CHECK_INT(code, 0);
    dval__buf_append(&out, "", 1);
    pid_t left = (pid_t)atol(out.data);
    CHECK(left > 1);
    CHECK(kill(left, 0) != 0);
    dval__buf_free(&out);
    CHECK_INT(dval_session_close(s), DVAL_OK);
    dval_session_free(s);
    CHECK_INT(dval_sandbox_release(sb), DVAL_OK);
    dval_sandbox_free(sb);
    uni_close(&u);
}

/* Unisolated, a snapshot's build steps run on the host (the helper's
 * build verb, kind "plain"), each a shell in the snapshot's layer; the
 * first that fails fails the build. */
TEST(test_unisolated__build_steps_run_in_the_layer)
{
    lt t;
    lt_open(&t, "uni-steps");
    lx *x = t.ex.userdata;
    x->probed = -1; /* as the wrapper's refused probe would */
    x->allow_unisolated = 1;
    const char *const steps[] = { "echo built > made", "pwd > where", NULL };
    CHECK_INT(lt_snapshot(&t, "uni-steps", NULL, steps, NULL), DVAL_OK);
    char p[1000], want[900], got[900] = "";
    snprintf(want, sizeof want, "%s/snapshots/uni-steps/layer", t.dir);
    snprintf(p, sizeof p, "%s/where", want);
    FILE *f = fopen(p, "r");
    CHECK(f && fgets(got, sizeof got, f));
    fclose(f);
    got[strcspn(got, "\n")] = 0;
    char real[PATH_MAX];
    CHECK(realpath(want, real) != NULL);
    CHECK_STR(got, real);
    snprintf(p, sizeof p, "%s/made", want);
    CHECK_INT(access(p, F_OK), 0);
    const char *const failing[] = { "true", "exit 3", "touch after", NULL };
    dval_snapshot_info info;
    lt_snapshot(&t, "uni-fails", NULL, failing, &info);
    CHECK_INT(info.state, DVAL_SNAPSHOT_BUILD_FAILED);
    CHECK_CONTAINS(info.error_reason, "build step 2 failed with exit code 3");
    snprintf(p, sizeof p, "%s/snapshots/uni-fails/layer/after", t.dir);
    CHECK(access(p, F_OK) != 0);
    lt_close(&t);
}
