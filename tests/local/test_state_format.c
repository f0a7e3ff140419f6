/* The state-format stamp of the local executor: a snapshot or a sandbox
 * whose state file carries another "format" was written by another
 * version. A snapshot is a cache: it reads as absent and the next create
 * builds it anew. A sandbox holds a user's files: it is refused, naming
 * its directory, and nothing of it is touched. A state file without a
 * stamp was written by 1.0.0 (format 1): an upgrade keeps using it. A
 * running init of an older request format (1.0.0's records none) is
 * stopped, the sandbox's files kept, and the next start is of this one. */
#include "lt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rewrites the "format" line of a state file: val NULL drops it. */
static void set_format(const char *state, const char *val)
{
    char cmd[2400];
    if (val)
        snprintf(cmd, sizeof cmd, "sed -i 's/^format=.*/format=%s/' '%s'",
                 val, state);
    else
        snprintf(cmd, sizeof cmd, "sed -i '/^format=/d' '%s'", state);
    lt_sh(cmd);
}

/* Running, not a zombie its parent has yet to reap. */
static int pid_running(int pid)
{
    char p[64], line[512];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    const char *end = got ? strrchr(line, ')') : NULL;
    return end && end[1] == ' ' && end[2] != 'Z';
}

static int pid_alive(int pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d", pid);
    return access(p, F_OK) == 0;
}

/* The sandbox is refused, its init and its files left alone. */
static void check_refused(lt *t, const char *dir, int pid)
{
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t->ex.sandbox_get(t->ex.userdata, lt_call(t), "sb", &info),
              DVAL_EUNSUPPORTED);
    CHECK_CONTAINS(t->call.errmsg, dir);
    CHECK_CONTAINS(t->call.errmsg, "another format");
    CHECK_CONTAINS(t->call.errmsg, "remove");
    CHECK_INT(t->ex.sandbox_delete(t->ex.userdata, lt_call(t), "sb"),
              DVAL_EUNSUPPORTED);
    CHECK_INT(t->ex.sandbox_start(t->ex.userdata, lt_call(t), "sb", &info),
              DVAL_EUNSUPPORTED);
    struct stat st;
    CHECK_INT(stat(dir, &st), 0);
    CHECK(pid_alive(pid));
}

/* A sandbox "sb" in a new state directory, its state's key above
 * `above`, a file of the user's in its home; its init's pid. */
static int sandbox_with_a_file(lt *t, const char *state_dir, const char *key,
                               int above)
{
    lt_open(t, state_dir);
    lt_sandbox(t, "sb", NULL);
    CHECK(atoi(lt_state_key(t, "sb", key)) > above);
    int pid = atoi(lt_state_key(t, "sb", "pid"));
    lt_out o = { 0 };
    CHECK_INT(lt_run(t, "sb", "echo kept > /home/daytona/mine", &o), 0);
    lt_out_free(&o);
    return pid;
}

TEST(test_state_format__sandbox_of_another_format_refused)
{
    lt t;
    int pid = sandbox_with_a_file(&t, "fmt-sb", "format", 0);
    lt_out o = { 0 };
    char dir[700], state[800], fmt[32];
    snprintf(dir, sizeof dir, "%s/sandboxes/sb", t.dir);
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(fmt, sizeof fmt, "%s", lt_state_key(&t, "sb", "format"));
    set_format(state, "999");
    check_refused(&t, dir, pid);
    /* the stamp back: the same sandbox, its files as they were */
    set_format(state, fmt);
    CHECK_INT(lt_state(&t, "sb"), DVAL_SANDBOX_STARTED);
    CHECK_INT(lt_run(&t, "sb", "cat /home/daytona/mine", &o), 0);
    CHECK_STR(o.out.data, "kept\n");
    lt_out_free(&o);
    /* 1.0.0 wrote no stamp: its sandbox is used as it is */
    set_format(state, NULL);
    CHECK_INT(lt_state(&t, "sb"), DVAL_SANDBOX_STARTED);
    CHECK_INT(lt_run(&t, "sb", "cat /home/daytona/mine", &o), 0);
    CHECK_STR(o.out.data, "kept\n");
    lt_out_free(&o);
    CHECK_INT(pid_alive(pid), 1);
    lt_close(&t);
}

/* The snapshot of another format reads as absent, and a create builds it
 * anew in its directory: nothing of the other format's files is left. */
static void check_rebuilt(lt *t, const char *dir, const char *stamp)
{
    char state[800], stray[800];
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(stray, sizeof stray, "%s/from-another-format", dir);
    set_format(state, stamp);
    FILE *f = fopen(stray, "w");
    CHECK(f && fclose(f) == 0);
    dval_snapshot_info info = { .struct_size = sizeof info };
    CHECK_INT(t->ex.snapshot_get(t->ex.userdata, lt_call(t), "snap", &info),
              DVAL_ENOTFOUND);
    CHECK_CONTAINS(t->call.errmsg, "another format");
    const char *steps[] = { "echo built > /opt/v", NULL };
    CHECK_INT(lt_snapshot(t, "snap", NULL, steps, &info), DVAL_OK);
    CHECK_INT(info.state, DVAL_SNAPSHOT_ACTIVE);
    CHECK(access(stray, F_OK) != 0);
}

TEST(test_state_format__snapshot_of_another_format_rebuilt)
{
    lt t;
    lt_open(&t, "fmt-snap");
    const char *steps[] = { "echo built > /opt/v", NULL };
    int rc = lt_snapshot(&t, "snap", NULL, steps, NULL);
    if (rc == DVAL_EISOLATION)
        th_skip(t.call.errmsg);
    CHECK_INT(rc, DVAL_OK);
    char dir[700];
    snprintf(dir, sizeof dir, "%s/snapshots/snap", t.dir);
    check_rebuilt(&t, dir, "999");
    /* the rebuilt one is this format's: a create finds it taken */
    CHECK_INT(lt_snapshot(&t, "snap", NULL, steps, NULL), DVAL_EEXISTS);
    dval_sandbox_options so = { .struct_size = sizeof so, .name = "sb",
                                .snapshot = "snap" };
    lt_sandbox(&t, "sb", &so);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "cat /opt/v", &o), 0);
    CHECK_STR(o.out.data, "built\n");
    lt_out_free(&o);
    lt_close(&t);
}

TEST(test_state_format__an_older_init_is_stopped_not_sent_requests)
{
    lt t;
    int pid = sandbox_with_a_file(&t, "fmt-init", "init_proto", 1);
    lt_out o = { 0 };
    /* as 1.0.0 wrote it: no init_proto */
    char state[800], cmd[1000];
    snprintf(state, sizeof state, "%s/sandboxes/sb/state", t.dir);
    snprintf(cmd, sizeof cmd, "sed -i '/^init_proto=/d' '%s'", state);
    lt_sh(cmd);
    CHECK_INT(lt_state(&t, "sb"), DVAL_SANDBOX_STOPPED);
    CHECK_INT(pid_running(pid), 0);
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t.ex.sandbox_start(t.ex.userdata, lt_call(&t), "sb", &info),
              DVAL_OK);
    CHECK_INT(lt_state(&t, "sb"), DVAL_SANDBOX_STARTED);
    CHECK(atoi(lt_state_key(&t, "sb", "pid")) != pid);
    CHECK(atoi(lt_state_key(&t, "sb", "init_proto")) > 1);
    CHECK_INT(lt_run(&t, "sb", "cat /home/daytona/mine", &o), 0);
    CHECK_STR(o.out.data, "kept\n");
    lt_out_free(&o);
    lt_close(&t);
}
