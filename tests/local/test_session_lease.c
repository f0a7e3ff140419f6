/* Session leases (lib/executor/local/session_lease.c): the sessions open
 * in a sandbox are counted from any process, and a dropped lease's file is
 * reused by the sandbox's next session instead of a file made anew (an
 * inode allocated per session is what costs on a journal-less ext4). */
#include "lt.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int count(lt *t, const char *prefix)
{
    int n = -1;
    CHECK_INT(t->ex.sandbox_sessions(t->ex.userdata, lt_call(t), "sb", prefix,
                                     &n), DVAL_OK);
    return n;
}

static ino_t inode(lt *t, const char *sid)
{
    char p[800];
    struct stat st;
    snprintf(p, sizeof p, "%s/sandboxes/sb/sessions/%s", t->dir, sid);
    return stat(p, &st) == 0 ? st.st_ino : 0;
}

static void open_s(lt *t, const char *sid)
{
    CHECK_INT(t->ex.session_create(t->ex.userdata, lt_call(t), "sb", sid),
              DVAL_OK);
}

static void close_s(lt *t, const char *sid)
{
    CHECK_INT(t->ex.session_delete(t->ex.userdata, lt_call(t), "sb", sid),
              DVAL_OK);
}

TEST(test_session_lease__dropped_lease_reused_and_counted)
{
    lt t;
    lt_open(&t, "lease");
    lt_sandbox(&t, "sb", NULL);
    open_s(&t, "v-a");
    CHECK_INT(count(&t, "v-"), 1);
    ino_t a = inode(&t, "v-a");
    CHECK(a != 0);
    close_s(&t, "v-a");
    CHECK_INT(count(&t, "v-"), 0);
    CHECK(inode(&t, "v-a") == 0);
    /* the next session gets the same file under its own name */
    open_s(&t, "v-b");
    CHECK(inode(&t, "v-b") == a);
    CHECK_INT(count(&t, "v-"), 1);
    open_s(&t, "v-c"); /* none kept now: a new one */
    CHECK(inode(&t, "v-c") != 0 && inode(&t, "v-c") != a);
    CHECK_INT(count(&t, "v-"), 2);
    CHECK_INT(count(&t, "v-c"), 1);
    /* a second session of the same id is refused; the lease stays held */
    CHECK_INT(t.ex.session_create(t.ex.userdata, lt_call(&t), "sb", "v-b"),
              DVAL_EEXISTS);
    CHECK_INT(count(&t, "v-b"), 1);
    close_s(&t, "v-b");
    close_s(&t, "v-c");
    CHECK_INT(count(&t, "v-"), 0);
    CHECK_INT(count(&t, ""), 0);
    /* the kept ones went with their sandbox: one of the same name makes
     * its lease anew */
    CHECK_INT(t.ex.sandbox_delete(t.ex.userdata, lt_call(&t), "sb"), DVAL_OK);
    lt_sandbox(&t, "sb", NULL);
    open_s(&t, "v-d");
    CHECK(inode(&t, "v-d") != 0);
    CHECK_INT(count(&t, "v-"), 1);
    close_s(&t, "v-d");
    CHECK_INT(count(&t, "v-"), 0);
    lt_close(&t);
}
