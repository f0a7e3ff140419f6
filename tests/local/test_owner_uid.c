/* The uid a command runs as comes from its owner (dval_command.owner,
 * which the core sets to the validation's identity), never from its
 * working directory or its text: a command whose cwd or text names
 * another validation's directory still runs as its own owner's uid, and
 * a command without an owner runs as the operator. */
#include "lt.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The last line of the command's stdout as a number (-1: none). */
static long last_number(const lt_out *o)
{
    const char *s = o->out.data ? o->out.data : "";
    const char *end = s + o->out.len, *p = end;
    while (p > s && (p[-1] == '\n'))
        p--;
    while (p > s && p[-1] != '\n')
        p--;
    return p < end && *p >= '0' && *p <= '9' ? strtol(p, NULL, 10) : -1;
}

static long uid_of(lt *t, const char *cwd, const char *command)
{
    lt_out o = { 0 };
    int code = cwd ? lt_run_in(t, "sb", cwd, command, &o)
                   : lt_run(t, "sb", command, &o);
    long uid = last_number(&o);
    lt_out_free(&o);
    CHECK_INT(code, 0);
    CHECK(uid >= 0);
    return uid;
}

static long uid_as(lt *t, const char *owner, const char *cwd,
                   const char *command)
{
    lt_out o = { 0 };
    int code = lt_run_as(t, "sb", owner, cwd, command, &o);
    long uid = last_number(&o);
    lt_out_free(&o);
    CHECK_INT(code, 0);
    CHECK(uid >= 0);
    return uid;
}

TEST(test_owner_uid__a_validations_command_runs_as_its_uid)
{
    lt t;
    lt_open(&t, "cwd-uid");
    lt_sandbox(&t, "sb", NULL);
    long op = uid_of(&t, NULL, "id -u");
    long a = uid_of(&t, "/sandbox/A", "id -u");
    long b = uid_of(&t, "/sandbox/B", "mkdir -p deep/er; id -u");
    CHECK(a != op);
    CHECK(b != op && b != a);
    /* below the top directory: still its validation's */
    CHECK_INT(uid_of(&t, "/sandbox/B/deep/er", "id -u"), b);
    /* the directory is that uid's (the operator looks) */
    CHECK_INT(uid_of(&t, NULL, "stat -c %u /sandbox/A"), a);
    CHECK_INT(uid_of(&t, NULL, "stat -c %u /sandbox/B"), b);
    /* and the command really ran there */
    CHECK_INT(uid_of(&t, "/sandbox/A", "stat -c %u ."), a);
    lt_close(&t);
}

/* The owner alone picks the uid: a cwd elsewhere (outside its directory,
 * or inside another validation's) changes nothing, and a cwd in a
 * validation's directory without its owner is the operator's. */
TEST(test_owner_uid__the_uid_follows_the_owner_not_the_cwd)
{
    lt t;
    lt_open(&t, "owner-uid");
    lt_sandbox(&t, "sb", NULL);
    long op = uid_of(&t, NULL, "id -u");
    long a = uid_of(&t, "/sandbox/A", "id -u");
    long b = uid_of(&t, "/sandbox/B", "id -u");
    CHECK(a != op && b != op && a != b);
    CHECK_INT(uid_as(&t, "A", "/tmp", "id -u"), a);
    CHECK_INT(uid_as(&t, "A", NULL, "id -u"), a);
    CHECK_INT(uid_as(&t, NULL, "/sandbox/B", "id -u"), op);
    /* A's command with its cwd in B's directory: never B's uid, and B's
     * directory stays out of its reach (it cannot even enter it) */
    lt_out o = { 0 };
    int code = lt_run_as(&t, "sb", "A", "/sandbox/B", "touch forged; id -u",
                         &o);
    CHECK(code != 0 || last_number(&o) == a);
    CHECK(last_number(&o) != b);
    lt_out_free(&o);
    memset(&o, 0, sizeof o);
    CHECK_INT(lt_run(&t, "sb", "test -e /sandbox/B/forged", &o), 1);
    lt_out_free(&o);
    lt_close(&t);
}

/* The owner is a plain name: one that would lead out of /sandbox/<dir>
 * is refused before anything runs. */
TEST(test_owner_uid__an_owner_that_is_not_a_plain_name_is_refused)
{
    lt t;
    lt_open(&t, "owner-bad");
    lt_sandbox(&t, "sb", NULL);
    const char *bad[] = { "", ".", "..", "../B", "A/B", "/sandbox/B", NULL };
    char cmd[DVAL_ID_MAX];
    for (int i = 0; bad[i]; i++) {
        dval_command d = { .struct_size = sizeof d, .sandbox_id = "sb",
                           .session_id = "s", .text = "id -u",
                           .owner = bad[i] };
        dval_call *c = lt_call(&t);
        CHECK_INT(t.ex.command_start(t.ex.userdata, c, &d, cmd), DVAL_EINVAL);
        CHECK_CONTAINS(c->errmsg, "not a plain name");
    }
    lt_close(&t);
}

TEST(test_owner_uid__a_forged_cd_in_the_text_does_not_change_the_uid)
{
    lt t;
    lt_open(&t, "cwd-forge");
    lt_sandbox(&t, "sb", NULL);
    long op = uid_of(&t, NULL, "id -u");
    long a = uid_of(&t, "/sandbox/A", "id -u");
    long b = uid_of(&t, "/sandbox/B", "id -u");
    /* A's command names B's directory at its head: still A, and B's
     * directory stays out of its reach */
    CHECK_INT(uid_of(&t, "/sandbox/A", "cd '/sandbox/B' && touch forged; "
                     "id -u"), a);
    CHECK_INT(uid_of(&t, "/sandbox/A", "cd /sandbox/B && touch forged; "
                     "id -u"), a);
    lt_out o = { 0 };
    CHECK_INT(lt_run(&t, "sb", "test -e /sandbox/B/forged", &o), 1);
    lt_out_free(&o);
    /* no directory: the operator, not B, whichever cd the text starts with
     * (the 0.1.0 member once took the uid from this text) */
    CHECK_INT(uid_of(&t, NULL, "cd '/sandbox/B' && id -u"), op);
    CHECK_INT(uid_of(&t, NULL, "cd /sandbox/B && id -u"), op);
    CHECK_INT(uid_of(&t, NULL, "cd /sandbox/B; id -u"), op);
    CHECK(b != op);
    lt_close(&t);
}

/* Many validations share a sandbox (isolation=session): each file
 * operation and command under /sandbox/<dir> looks up its directory's
 * uid, and every lookup once took the uid table's lock, which 64 threads
 * polled for until some gave up after 10 s (DVAL_ETIMEOUT on an upload).
 * The table is now read and appended to without a lock: with a flock on
 * it held by someone else, a known directory's command and a new
 * directory's both run, each as its uid. */
TEST(test_owner_uid__the_uid_table_is_used_without_a_lock)
{
    lt t;
    lt_open(&t, "cwd-nolock");
    lt_sandbox(&t, "sb", NULL);
    long a = uid_of(&t, "/sandbox/A", "id -u");
    char p[700];
    snprintf(p, sizeof p, "%s/sandboxes/sb/uids", t.dir);
    int lk = open(p, O_RDWR | O_CLOEXEC);
    CHECK(lk >= 0);
    CHECK_INT(flock(lk, LOCK_EX), 0);
    int64_t t0 = dval__now_ms();
    CHECK_INT(uid_of(&t, "/sandbox/A", "id -u"), a);
    CHECK_INT(lt_upload(&t, "sb", "/sandbox/A/f", "x"), DVAL_OK);
    long b = uid_of(&t, "/sandbox/B", "id -u");
    CHECK(b != a && b > 0);
    CHECK(dval__now_ms() - t0 < 5000);
    close(lk);
    lt_close(&t);
}

/* dval_session_exec(3): a cwd that does not exist makes the command fail,
 * the whole of it: the part after a ";" must not run elsewhere. */
TEST(test_owner_uid__a_missing_cwd_fails_the_whole_command)
{
    lt t;
    lt_open(&t, "cwd-missing");
    lt_sandbox(&t, "sb", NULL);
    lt_out o = { 0 };
    int code = lt_run_in(&t, "sb", "/sandbox/A/missing", "echo ran; exit 0",
                         &o);
    CHECK(code != 0);
    CHECK(o.out.data == NULL || strstr(o.out.data, "ran") == NULL);
    lt_out_free(&o);
    lt_close(&t);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        CHECK_INT(fclose(f), 0);
    }
}

/* The first line of path ("" when absent). */
static void first_line(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    out[0] = 0;
    if (f && !fgets(out, (int)cap, f))
        out[0] = 0;
    if (f)
        fclose(f);
}

static long file_size(lt *t, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/sandboxes/sb/%s", t->dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void stop_start(lt *t)
{
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t->ex.sandbox_stop(t->ex.userdata, lt_call(t), "sb", &info),
              DVAL_OK);
    CHECK_INT(t->ex.sandbox_start(t->ex.userdata, lt_call(t), "sb", &info),
              DVAL_OK);
}

/* The uid table is appended without a sync (one per validation cost
 * ~0.4 ms): a crash could cut lines whose uids' files the sandbox's disk
 * kept, and the next holder of such a slot would own them. So a start
 * in a later boot than the sandbox's last one gives it a fresh writable
 * layer and an empty table; a start in the same boot keeps both. The
 * reboot is made by rewriting the sandbox's boot file. */
TEST(test_owner_uid__a_start_after_a_reboot_gives_a_fresh_layer)
{
    lt t;
    lt_open(&t, "cwd-boot");
    if (geteuid() != 0)
        th_skip("per-validation uids need root");
    lt_sandbox(&t, "sb", NULL);
    long a = uid_of(&t, "/sandbox/A", "echo secret > s; id -u");
    stop_start(&t);
    /* the same boot: the file and A's slot are kept */
    CHECK_INT(uid_of(&t, "/sandbox/A", "cat s >/dev/null && id -u"), a);
    CHECK(file_size(&t, "uids") > 0);
    char boot[1200], now[64], got[64];
    snprintf(boot, sizeof boot, "%s/sandboxes/sb/boot", t.dir);
    first_line("/proc/sys/kernel/random/boot_id", now, sizeof now);
    CHECK(strlen(now) > 30);
    first_line(boot, got, sizeof got);
    CHECK_STR(got, now);
    dval_sandbox_info info = { .struct_size = sizeof info };
    CHECK_INT(t.ex.sandbox_stop(t.ex.userdata, lt_call(&t), "sb", &info),
              DVAL_OK);
    write_file(boot, "00000000-0000-4000-8000-000000000000\n");
    CHECK_INT(t.ex.sandbox_start(t.ex.userdata, lt_call(&t), "sb", &info),
              DVAL_OK);
    /* a later boot: nothing of A left, its slot free again */
    lt_out o = { 0 };
    CHECK(lt_run(&t, "sb", "test -e /sandbox/A && echo kept || echo gone",
                 &o) == 0);
    CHECK_STR(o.out.data ? o.out.data : "", "gone\n");
    lt_out_free(&o);
    CHECK_INT(file_size(&t, "uids"), 0);
    CHECK_INT(uid_of(&t, "/sandbox/B", "id -u"), a);
    first_line(boot, got, sizeof got);
    CHECK_STR(got, now);
    lt_close(&t);
}
