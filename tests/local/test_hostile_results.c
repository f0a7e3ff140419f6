/* Hostile programs against the results listing: the host lists the real
 * results directory itself, refusing what is not a plain file. */
#include "hostile.h"

#include <stdlib.h>
#include <string.h>

#define CANARY "dval-canary-7f3a9c"

TEST(test_hostile_results__symlink_into_proc_refused)
{
    hx h;
    hx_open(&h, "res-proc");
    /* a secret in the caller's environment: the sandbox's /proc/1 (or any
     * process) must never be read by the host on the program's behalf */
    setenv("DVAL_HOSTILE_CANARY", CANARY, 1);
    char *json = NULL;
    int rc = hx_validate(&h, "sb", "t1", "rm -rf results; "
                         "ln -s /proc/1 results\n", &json);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_CONTAINS(dval_client_errmsg(h.client), "refused");
    CHECK(!json || !strstr(json, CANARY));
    CHECK(!json || !strstr(json, "PATH="));
    dval_free(json);
    /* the same through links inside a real results directory */
    rc = hx_validate(&h, "sb", "t2", "ln -s /proc/1/environ results/a.json; "
                     "ln -s /proc/self/environ results/b.json; "
                     "mkdir results/d && ln -s /proc/1 results/d/p; "
                     "echo '{\"ok\":1}' > results/good.json\n", &json);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK(json && !strstr(json, CANARY) && !strstr(json, "PATH="));
    CHECK_CONTAINS(json, "results/a.json: not a plain file");
    CHECK_CONTAINS(json, "results/d/p: not a plain file");
    CHECK_CONTAINS(json, "\"good.json\":{\"ok\":1}");
    dval_free(json);
    hx_close(&h);
}

TEST(test_hostile_results__fifo_device_hardlink_refused)
{
    hx h;
    hx_open(&h, "res-nodes");
    char *json = NULL;
    /* a FIFO would hang a reader; a hard link may be another run's file */
    int rc = hx_validate(&h, "sb", "t1", "mkfifo results/f.json; "
                         "echo '{\"x\":2}' > /tmp/other.json; "
                         "ln /tmp/other.json results/h.json 2>/dev/null || "
                         "{ echo '{}' > results/o.json; "
                         "ln results/o.json results/h.json; }; "
                         "echo '{\"ok\":1}' > results/good.json\n", &json);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_CONTAINS(json, "results/f.json: not a plain file");
    CHECK_CONTAINS(json, "results/h.json: not a plain file");
    CHECK_CONTAINS(json, "\"good.json\":{\"ok\":1}");
    dval_free(json);
    hx_close(&h);
}

TEST(test_hostile_results__replaced_find_cannot_forge)
{
    hx h;
    hx_open(&h, "res-find");
    char *json = NULL;
    /* the old listing ran find in the sandbox after the program: a fake
     * find (and a forged listing file) must change nothing */
    int rc = hx_validate(&h, "sb", "t1",
                         "for d in /usr/bin /bin; do "
                         "rm -f $d/find 2>/dev/null; "
                         "printf '#!/bin/sh\\necho ./forged.json\\n' "
                         "> $d/find && chmod +x $d/find; done; "
                         "echo '{\"v\":\"forged\"}' > forged.json; "
                         "echo ./forged.json > .dval-results-list; "
                         "echo '{\"v\":\"real\"}' > results/real.json; "
                         "mkdir -p results/sub; "
                         "echo '{\"v\":\"deep\"}' > results/sub/deep.json\n",
                         &json);
    CHECK_INT(rc, DVAL_OK);
    CHECK_CONTAINS(json, "\"real.json\":{\"v\":\"real\"}");
    CHECK_CONTAINS(json, "\"sub/deep.json\":{\"v\":\"deep\"}");
    CHECK(!strstr(json, "forged"));
    dval_free(json);
    hx_close(&h);
}

#include <sys/resource.h>

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Results files of "[0,0,0,...]": a few MiB of text each, but a tree of
 * tens of bytes per value in the caller (red team: 60 MiB made 1.3 GiB,
 * three files 3.9 GiB). The results of one validation are bounded in
 * all: the caller's peak memory stays within tens of MiB. */
TEST(test_hostile_results__value_bombs_bounded)
{
    hx h;
    hx_open(&h, "res-bomb");
    long before = max_rss_kib();
    char *json = NULL;
    int rc = hx_validate(&h, "sb", "t1",
                         "i=0; while [ $i -lt 4 ]; do "
                         "head -c 3000000 /dev/zero | tr '\\0' ',' | "
                         "sed 's/,/0,/g; s/^/[/; s/$/0]/' > results/b$i.json; "
                         "i=$((i + 1)); done; "
                         "echo '{\"ok\":1}' > results/a.json\n", &json);
    long grew = max_rss_kib() - before;
    fprintf(stderr, "    caller's peak RSS grew by %ld KiB\n", grew);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_CONTAINS(json, "over the bounds on all of a validation's results");
    CHECK_CONTAINS(json, "\"a.json\":{\"ok\":1}");
    CHECK(grew < 96 * 1024);
    dval_free(json);
    hx_close(&h);
}

/* A run that leaves its directories unwritable to itself (0555, 0000)
 * must not keep its thread id from being validated again: the next run
 * on it failed while emptying the working directory. */
TEST(test_hostile_results__unwritable_tree_does_not_poison_the_thread_id)
{
    hx h;
    hx_open(&h, "res-poison");
    char *json = NULL;
    int rc = hx_validate(&h, "sb", "t1",
                         "echo '{\"run\":1}' > results/r.json; "
                         "mkdir -p d/e && echo x > d/e/f && chmod 0 d/e; "
                         "chmod 0555 results d .\n", &json);
    CHECK_INT(rc, DVAL_OK);
    dval_free(json);
    rc = hx_validate(&h, "sb", "t1", "echo '{\"run\":2}' > results/r.json\n",
                     &json);
    CHECK_INT(rc, DVAL_OK);
    CHECK_CONTAINS(json, "\"r.json\":{\"run\":2}");
    dval_free(json);
    hx_close(&h);
}

/* Results file names are the program's: one with terminal escapes must
 * not put them into the messages a host prints, and the note on one that
 * is not UTF-8 is kept (json_string refused it: dropped without a word). */
TEST(test_hostile_results__hostile_file_names_reported_printably)
{
    hx h;
    hx_open(&h, "res-names");
    char *json = NULL;
    int rc = hx_validate(&h, "sb", "t1",
                         "printf 'not json' > \"results/$(printf "
                         "'\\033[2J\\033]0;pwned\\007x').json\"; "
                         "echo '{}' > \"results/$(printf 'bad\\377')"
                         ".json\"\n", &json);
    CHECK_INT(rc, DVAL_ERESULTS);
    const char *msg = dval_client_errmsg(h.client);
    CHECK(!strchr(msg, '\033') && !strchr(msg, '\007'));
    CHECK(json && !strstr(json, "\\u001b") && !strstr(json, "\\u0007"));
    CHECK_CONTAINS(json, "results/?[2J?]0;pwned?x.json: remote path "
                   "contains control characters");
    CHECK_CONTAINS(json, "results/bad?.json: remote path contains control "
                   "characters or invalid UTF-8");
    dval_free(json);
    hx_close(&h);
}
