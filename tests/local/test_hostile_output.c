/* Output without end: the library's memory stays bounded whatever the
 * program prints, and the CLI's run transcript stops at 16 MiB. */
#include "hostile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int count(const dval_event *ev, void *ud)
{
    if (ev->type == DVAL_EVENT_OUTPUT)
        *(long long *)ud += (long long)ev->len;
    return 0;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* What 200 MB of output may add to the caller's peak RSS: bounded, far
 * below the output. The sanitizers' builds get twice the room:
 * AddressSanitizer keeps freed blocks in quarantine, ThreadSanitizer a
 * shadow of the memory it touches. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_BOUND_KIB (64 * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RSS_BOUND_KIB (64 * 1024)
#endif
#endif
#ifndef RSS_BOUND_KIB
#define RSS_BOUND_KIB (32 * 1024)
#endif

#define PRINT_200MB "head -c 200000000 /dev/zero | tr '\\\\0' x\n" \
                    "echo '{}' > results/r.json\n"

TEST(test_hostile_output__200mb_keeps_rss_bounded)
{
    hx h;
    hx_open(&h, "out-rss");
    char dir[700], p[800];
    snprintf(dir, sizeof dir, "%s/src", h.src);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/run.sh", dir);
    FILE *f = fopen(p, "w");
    CHECK(f && fputs(PRINT_200MB, f) >= 0 && fclose(f) == 0);
    dval_validation r;
    dval_validation_init(&r, sizeof r);
    r.profile = "shell";
    r.source_dir = dir;
    r.sandbox_name = "sb";
    long before = max_rss_kib();
    long long bytes = 0;
    char *json = NULL;
    CHECK_INT(dval_validate(h.client, &r, count, &bytes, &json), DVAL_OK);
    dval_free(json);
    CHECK(bytes >= 200000000LL);
    long grew = max_rss_kib() - before;
    fprintf(stderr, "    200 MB of output: max RSS grew by %ld KiB\n", grew);
    CHECK(grew < RSS_BOUND_KIB);
    hx_close(&h);
}

TEST(test_hostile_output__cli_transcript_capped)
{
    hx h;
    hx_open(&h, "out-cli");
    char dir[700], p[800], cmd[2400];
    snprintf(dir, sizeof dir, "%s/src", h.src);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/run.sh", dir);
    FILE *f = fopen(p, "w");
    CHECK(f && fputs(PRINT_200MB, f) >= 0 && fclose(f) == 0);
    const char *cli = getenv("DVAL_CLI") ? getenv("DVAL_CLI")
                                         : "build/bin/daytona-validate";
    if (access(cli, X_OK) != 0)
        th_skip("no CLI binary (set DVAL_CLI)");
    snprintf(cmd, sizeof cmd, "%s run --executor local --profile shell "
             "--state-dir '%s' --thread big --release delete '%s' "
             ">/dev/null 2>&1", cli, h.dir, dir);
    CHECK_INT(system(cmd), 0);
    snprintf(p, sizeof p, "%s/cli-runs/big.log", h.dir);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    CHECK(st.st_size > (16 << 20) && st.st_size < (16 << 20) + 65536);
    char cmd2[1000];
    snprintf(cmd2, sizeof cmd2, "tail -c 200 '%s' | grep -q 'transcript "
             "truncated'", p);
    CHECK_INT(system(cmd2), 0);
    hx_close(&h);
}
