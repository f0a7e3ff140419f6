/* The results listing on Daytona: the toolbox's GET /files, one per
 * directory, instead of a find appended to the run command. Nested
 * results are found; links, FIFOs and devices are neither followed nor
 * opened (noted, as on the local executor); nesting is bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support_emulator.h"

#define LIST "^/toolbox/[^/]+/files$"

typedef struct fx {
    emu e;
    dval_client *c;
    char dir[32];
} fx;

static dval_client *fx_open(fx *f)
{
    f->c = emu_fast(&f->e);
    emu_program(f->dir, "true\n");
    return f->c;
}

static void fx_close(fx *f, char *sum)
{
    dval_free(sum);
    emu_program_rm(f->dir);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static int run(fx *f, const char *cmd, char **sum)
{
    dval_validation req;
    dval_validation_init(&req, sizeof req);
    req.profile = "shell";
    req.source_dir = f->dir;
    req.run_command = cmd;
    req.release = DVAL_RELEASE_KEEP;
    *sum = NULL;
    return dval_validate(f->c, &req, NULL, NULL, sum);
}

TEST(results_list__nested_results_by_the_toolbox)
{
    fx f;
    fx_open(&f);
    char *sum;
    int n0 = emu_count(&f.e, "GET", LIST);
    int rc = run(&f, "mkdir -p results/sub/deep && "
                 "echo '{\"a\":1}' > results/a.json && "
                 "echo '{\"b\":2}' > results/sub/deep/b.json && "
                 "echo x > results/notes.txt", &sum);
    CHECK_INT(rc, DVAL_OK);
    CHECK_CONTAINS(sum, "\"a.json\":{\"a\":1}");
    CHECK_CONTAINS(sum, "\"sub/deep/b.json\":{\"b\":2}");
    /* the other files come back too, in "files" (not a result) */
    CHECK_CONTAINS(sum, "\"files\":{\"notes.txt\":{\"text\":\"x\\n\","
                   "\"bytes\":2}}");
    /* results, sub, sub/deep, listed by the toolbox (no command) */
    CHECK_INT(emu_count(&f.e, "GET", LIST) - n0, 3);
    CHECK_INT(emu_count(&f.e, "GET", "/files/download$") +
              emu_count(&f.e, "POST", "/files/bulk-download$"), 3);
    fx_close(&f, sum);
}

TEST(results_list__links_and_fifos_are_not_followed)
{
    fx f;
    fx_open(&f);
    char *sum;
    /* on the emulator a followed link would read the host's own files */
    int rc = run(&f, "ln -s /etc/passwd results/p.json && "
                 "ln -s /etc results/etc && mkfifo results/f.json && "
                 "echo '{\"ok\":1}' > results/good.json", &sum);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK(sum != NULL);
    CHECK_CONTAINS(sum, "results/p.json: not a plain file");
    CHECK_CONTAINS(sum, "results/f.json: not a plain file");
    CHECK_CONTAINS(sum, "\"good.json\":{\"ok\":1}");
    CHECK(!strstr(sum, "root:"));
    CHECK(!strstr(sum, "etc/"));
    fx_close(&f, sum);
}

/* Files that are not *.json come back byte-exact through the toolbox:
 * text when UTF-8, else base64; without a *.json file the results are
 * still missing, and the message names what the program wrote. */
TEST(results_list__other_files_come_back)
{
    fx f;
    dval_client *c = fx_open(&f);
    char *sum;
    int rc = run(&f, "printf 'caf\\303\\251\\n' > results/out.txt && "
                 "printf 'a\\000b\\377' > results/bin.dat", &sum);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_CONTAINS(dval_client_errmsg(c), "(only other files: bin.dat, "
                   "out.txt)");
    CHECK_CONTAINS(sum, "\"verdict\":\"results_missing\"");
    CHECK_CONTAINS(sum, "results (only other files: bin.dat, out.txt)\"");
    CHECK_CONTAINS(sum, "\"out.txt\":{\"text\":\"caf\\u00E9\\n\","
                   "\"bytes\":6}");
    CHECK_CONTAINS(sum, "\"bin.dat\":{\"base64\":\"YQBi/w==\","
                   "\"bytes\":4}");
    CHECK_CONTAINS(sum, "\"results\":{}");
    fx_close(&f, sum);
}

/* a missing results directory is the program's failure, not a listing
 * error (a 404 of the toolbox) */
TEST(results_list__no_results_dir_is_no_results)
{
    fx f;
    dval_client *c = fx_open(&f);
    char *sum;
    CHECK_INT(run(&f, "rm -rf results; echo gone", &sum), DVAL_ERESULTS);
    CHECK_CONTAINS(dval_client_errmsg(c), "wrote no *.json file");
    CHECK_CONTAINS(sum, "\"exit_code\":0");
    fx_close(&f, sum);
}

TEST(results_list__nesting_is_bounded)
{
    fx f;
    dval_client *c = fx_open(&f);
    char *sum;
    int rc = run(&f, "d=results; for i in $(seq 40); do d=$d/d; done; "
                 "mkdir -p $d && echo '{}' > $d/x.json", &sum);
    CHECK_INT(rc, DVAL_ERESULTS);
    CHECK_CONTAINS(dval_client_errmsg(c), "deeper than 32");
    fx_close(&f, sum);
}
