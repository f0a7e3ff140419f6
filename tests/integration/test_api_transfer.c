/* Public API against the emulator: file transfer. 100 MB up and down
 * byte-exact through every download flavour with bounded memory; missing
 * files, cut transfers, bad results files and the size limit give errors,
 * never a silently short or leftover local file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dval.h"
#include "harness.h"
#include "support_emulator.h"

#define SNAP "snap-files"

/* 100 MiB; 10 MiB under valgrind or sanitizers (DVAL_TEST_TIMEOUT_SCALE
 * set), whose own memory also makes the RSS bound meaningless there */
static int instrumented(void)
{
    const char *s = getenv("DVAL_TEST_TIMEOUT_SCALE");
    return s && atoi(s) > 1;
}
#define BIG (instrumented() ? 10u << 20 : 100u << 20)

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct fx {
    emu e;
    dval_client *c;
    dval_sandbox *sb;
    char dir[64];
} fx;

static void fx_start(fx *f, int64_t max_download)
{
    emu_start(&f->e);
    CHECK_INT(emu_post(&f->e, "/_emu/config", "{\"transition_ms\":20,"
                       "\"snapshot_build_ms\":50}"), 200);
    dval_client_options o;
    dval_client_options_init(&o, sizeof o);
    o.max_download_bytes = max_download;
    f->c = emu_client(&f->e, NULL, 20, &o);
    dval_snapshot_spec sp;
    dval_snapshot_spec_init(&sp, sizeof sp);
    sp.name = SNAP;
    sp.image = "debian:12-slim";
    dval_snapshot *snap = NULL;
    int rc = dval_snapshot_ensure(&snap, f->c, &sp, NULL, NULL);
    if (rc)
        th_fail(__FILE__, __LINE__, "ensure: %s", dval_client_errmsg(f->c));
    dval_snapshot_free(snap);
    dval_sandbox_options so;
    dval_sandbox_options_init(&so, sizeof so);
    so.name = "sb";
    so.snapshot = SNAP;
    rc = dval_sandbox_acquire(&f->sb, f->c, &so);
    if (rc)
        th_fail(__FILE__, __LINE__, "acquire: %s", dval_client_errmsg(f->c));
    snprintf(f->dir, sizeof f->dir, "/tmp/dval-xfer-XXXXXX");
    CHECK(mkdtemp(f->dir) != NULL);
}

static void fx_stop(fx *f)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    CHECK(system(cmd) == 0);
    dval_sandbox_free(f->sb);
    dval_client_free(f->c);
    emu_stop(&f->e);
}

static void local(const fx *f, char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", f->dir, name);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- a deterministic pattern, generated and checked in streaming */
static unsigned char pat(uint64_t i)
{
    return (unsigned char)((i * 2654435761u) >> 11 ^ i >> 20);
}

static void write_pattern(const char *path, uint64_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    static unsigned char buf[1 << 20];
    for (uint64_t off = 0; off < size; off += sizeof buf) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = pat(off + i);
        CHECK(write(fd, buf, n) == (ssize_t)n);
    }
    CHECK(close(fd) == 0);
}

/* bytes of path that follow the pattern from 0, and its size */
static uint64_t pattern_prefix(const char *path, uint64_t *size)
{
    int fd = open(path, O_RDONLY);
    *size = 0;
    if (fd < 0)
        return 0;
    static unsigned char buf[1 << 20];
    uint64_t off = 0, good = 0;
    int broken = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n && !broken; i++, good++)
            if (buf[i] != pat(off + (uint64_t)i))
                broken = 1;
        off += (uint64_t)n;
    }
    close(fd);
    *size = off;
    return good - (uint64_t)broken;
}

typedef struct verify {
    uint64_t off;
    int bad;
    size_t max_chunk;
} verify;

static int verify_sink(const char *d, size_t n, void *ud)
{
    verify *v = ud;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)d[i] != pat(v->off + i))
            v->bad = 1;
    v->off += n;
    if (n > v->max_chunk)
        v->max_chunk = n;
    return 0;
}

static long status_kb(const char *key)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t k = strlen(key);
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, key, k) && line[k] == ':')
            v = strtol(line + k + 1, NULL, 10);
    if (fp)
        fclose(fp);
    return v;
}

/* resets VmHWM to the current RSS (Linux >= 4.0); 0 when it worked */
static int reset_peak(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd < 0)
        return -1;
    int rc = write(fd, "5", 1) == 1 ? 0 : -1;
    close(fd);
    return rc;
}

typedef struct xfer_result {
    int rc[3];
    char msg[3][256];
    int64_t ms[3];
    long hwm0, hwm1;
    int peak_reset;
    verify v;
} xfer_result;

TEST(hundred_mb_round_trip_byte_exact_in_bounded_memory)
{
    fx f;
    fx_start(&f, 256LL << 20);
    char src[128], dst[128];
    local(&f, src, sizeof src, "big.src");
    local(&f, dst, sizeof dst, "big.dst");
    write_pattern(src, BIG);
    /* measure in a child: nothing else this process did counts */
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        xfer_result r;
        memset(&r, 0, sizeof r);
        r.peak_reset = reset_peak() == 0;
        r.hwm0 = status_kb(r.peak_reset ? "VmHWM" : "VmRSS");
        int64_t t0 = now_ms();
        r.rc[0] = dval_sandbox_upload_file(f.sb, "/sandbox/in/big.bin", src);
        snprintf(r.msg[0], sizeof r.msg[0], "%s", dval_sandbox_errmsg(f.sb));
        int64_t t1 = now_ms();
        r.rc[1] = dval_sandbox_download_file(f.sb, "/sandbox/in/big.bin", dst);
        snprintf(r.msg[1], sizeof r.msg[1], "%s", dval_sandbox_errmsg(f.sb));
        int64_t t2 = now_ms();
        r.rc[2] = dval_sandbox_download_to(f.sb, "/sandbox/in/big.bin",
                                           verify_sink, &r.v);
        snprintf(r.msg[2], sizeof r.msg[2], "%s", dval_sandbox_errmsg(f.sb));
        int64_t t3 = now_ms();
        r.hwm1 = status_kb("VmHWM");
        r.ms[0] = t1 - t0, r.ms[1] = t2 - t1, r.ms[2] = t3 - t2;
        ssize_t w = write(p[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(p[1]);
    xfer_result r;
    ssize_t got = read(p[0], &r, sizeof r);
    close(p[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_INT(got, sizeof r);
    const char *names[] = {"upload_file", "download_file", "download_to"};
    for (int i = 0; i < 3; i++)
        if (r.rc[i])
            th_fail(__FILE__, __LINE__, "%s: %s: %s", names[i],
                    dval_status_name(r.rc[i]), r.msg[i]);
    long growth = r.hwm1 - r.hwm0;
    fprintf(stderr, "    %u MiB: upload %lld ms (%.0f MB/s), download_file "
            "%lld ms (%.0f MB/s), download_to %lld ms (%.0f MB/s); peak RSS "
            "growth %ld KiB (peak reset: %s), largest chunk %zu\n",
            BIG >> 20, (long long)r.ms[0],
            (BIG >> 20) * 1048.576 / (double)(r.ms[0] + 1), (long long)r.ms[1],
            (BIG >> 20) * 1048.576 / (double)(r.ms[1] + 1), (long long)r.ms[2],
            (BIG >> 20) * 1048.576 / (double)(r.ms[2] + 1), growth,
            r.peak_reset ? "yes" : "no", r.v.max_chunk);
    uint64_t size = 0;
    CHECK_INT(pattern_prefix(dst, &size), BIG);
    CHECK_INT(size, BIG);
    CHECK_INT(r.v.off, BIG);
    CHECK_INT(r.v.bad, 0);
    CHECK(instrumented() || growth < 16 * 1024);
    fx_stop(&f);
}

TEST(missing_file_is_enotfound_naming_the_path)
{
    fx f;
    fx_start(&f, 0);
    char *data = (char *)1;
    size_t len = 7;
    CHECK_INT(dval_sandbox_download(f.sb, "/sandbox/nope.txt", &data, &len),
              DVAL_ENOTFOUND);
    CHECK(data == NULL);
    CHECK_INT(len, 0);
    CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "/sandbox/nope.txt");
    char dst[128];
    local(&f, dst, sizeof dst, "nope.txt");
    CHECK_INT(dval_sandbox_download_file(f.sb, "/sandbox/nope.txt", dst),
              DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "/sandbox/nope.txt");
    CHECK(!exists(dst));
    verify v = {0};
    CHECK_INT(dval_sandbox_download_to(f.sb, "results/none.json", verify_sink,
                                       &v), DVAL_ENOTFOUND);
    CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "results/none.json");
    char *json = (char *)1;
    CHECK_INT(dval_sandbox_download_json(f.sb, "/sandbox/r.json", &json),
              DVAL_ENOTFOUND);
    CHECK(json == NULL);
    CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "/sandbox/r.json");
    fx_stop(&f);
}

static void upload_pattern(fx *f, const char *remote, uint64_t size)
{
    char src[128];
    local(f, src, sizeof src, "pattern.src");
    write_pattern(src, size);
    int rc = dval_sandbox_upload_file(f->sb, remote, src);
    if (rc)
        th_fail(__FILE__, __LINE__, "upload: %s", dval_sandbox_errmsg(f->sb));
}

TEST(cut_downloads_are_errors_never_short_files)
{
    fx f;
    fx_start(&f, 0);
    const uint64_t size = 3u << 20;
    upload_pattern(&f, "/sandbox/p.bin", size);
    char dst[128];
    local(&f, dst, sizeof dst, "p.bin");
    const char *faults[] = {"\"action\":\"truncate\"",
                            "\"action\":\"drop_boundary\""};
    for (int i = 0; i < 2; i++) {
        /* every attempt cut: an error, and no local file */
        CHECK_INT(emu_fault(&f.e, "POST", "bulk-download", 100, faults[i]),
                  200);
        int rc = dval_sandbox_download_file(f.sb, "/sandbox/p.bin", dst);
        if (rc == DVAL_OK)
            th_fail(__FILE__, __LINE__, "%s: a cut download succeeded",
                    faults[i]);
        CHECK(dval_sandbox_errmsg(f.sb)[0]);
        CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "/sandbox/p.bin");
        CHECK(!exists(dst));
        char *data = (char *)1;
        size_t len = 1;
        CHECK(dval_sandbox_download(f.sb, "/sandbox/p.bin", &data, &len) != 0);
        CHECK(data == NULL);
        CHECK_INT(len, 0);
        /* a caller's sink has seen bytes: no replay, an error */
        verify v = {0};
        CHECK(dval_sandbox_download_to(f.sb, "/sandbox/p.bin", verify_sink,
                                       &v) != 0);
        CHECK(v.off < size);
        CHECK_INT(v.bad, 0);
        CHECK_INT(emu_clear_faults(&f.e), 200);
        /* a single cut: retried from the start, byte-exact */
        CHECK_INT(emu_fault(&f.e, "POST", "bulk-download", 1, faults[i]), 200);
        rc = dval_sandbox_download_file(f.sb, "/sandbox/p.bin", dst);
        if (rc)
            th_fail(__FILE__, __LINE__, "%s once: %s", faults[i],
                    dval_sandbox_errmsg(f.sb));
        uint64_t got = 0;
        CHECK_INT(pattern_prefix(dst, &got), size);
        CHECK_INT(got, size);
        CHECK(unlink(dst) == 0);
    }
    fx_stop(&f);
}

TEST(bad_results_files_are_eresults_naming_the_path)
{
    fx f;
    fx_start(&f, 0);
    struct {
        const char *path, *body;
    } bad[] = {
        {"/sandbox/results/trunc.json", "{\"passed\": 3, \"failed\": "},
        {"/sandbox/results/notjson.json", "passed=3\n"},
        {"/sandbox/results/latin1.json", "{\"name\": \"caf\xe9\"}"},
        {"/sandbox/results/empty.json", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(dval_sandbox_upload(f.sb, bad[i].path, bad[i].body,
                                      strlen(bad[i].body)), DVAL_OK);
        char *json = (char *)1;
        int rc = dval_sandbox_download_json(f.sb, bad[i].path, &json);
        if (rc != DVAL_ERESULTS)
            th_fail(__FILE__, __LINE__, "%s: %s (%s)", bad[i].path,
                    dval_status_name(rc), dval_sandbox_errmsg(f.sb));
        CHECK(json == NULL);
        CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), bad[i].path);
    }
    const char good[] = "{\"name\": \"caf\xc3\xa9\", \"n\": [1, 2]}";
    CHECK_INT(dval_sandbox_upload(f.sb, "/sandbox/results/ok.json", good,
                                  strlen(good)), DVAL_OK);
    char *json = NULL;
    CHECK_INT(dval_sandbox_download_json(f.sb, "/sandbox/results/ok.json",
                                         &json), DVAL_OK);
    CHECK_STR(json, good);
    dval_free(json);
    fx_stop(&f);
}

TEST(a_file_over_max_download_bytes_is_etoobig)
{
    fx f;
    fx_start(&f, 1 << 20);
    upload_pattern(&f, "/sandbox/two.bin", 2u << 20);
    char *data = (char *)1;
    size_t len = 1;
    CHECK_INT(dval_sandbox_download(f.sb, "/sandbox/two.bin", &data, &len),
              DVAL_ETOOBIG);
    CHECK(data == NULL);
    CHECK_CONTAINS(dval_sandbox_errmsg(f.sb), "/sandbox/two.bin");
    char dst[128];
    local(&f, dst, sizeof dst, "two.bin");
    CHECK_INT(dval_sandbox_download_file(f.sb, "/sandbox/two.bin", dst),
              DVAL_ETOOBIG);
    CHECK(!exists(dst));
    verify v = {0};
    CHECK_INT(dval_sandbox_download_to(f.sb, "/sandbox/two.bin", verify_sink,
                                       &v), DVAL_ETOOBIG);
    CHECK(v.off <= (1u << 20));
    char *json = (char *)1;
    CHECK_INT(dval_sandbox_download_json(f.sb, "/sandbox/two.bin", &json),
              DVAL_ETOOBIG);
    CHECK(json == NULL);
    /* exactly at the limit is fine */
    upload_pattern(&f, "/sandbox/one.bin", 1u << 20);
    CHECK_INT(dval_sandbox_download(f.sb, "/sandbox/one.bin", &data, &len),
              DVAL_OK);
    CHECK_INT(len, 1u << 20);
    dval_free(data);
    /* the limit was not retried */
    CHECK_INT(emu_count(&f.e, "POST", "bulk-download"), 5);
    fx_stop(&f);
}

/* A download into memory whose size the server announces (Content-Length)
 * is read into one allocation: the buffer used to double from 64 bytes
 * (a 64 KiB result went through 32, 64 and 128 KiB blocks, ~150 KiB of
 * peak heap). The library's allocations for a 1 MiB download are as many
 * as for a 1 KiB one, and the bytes are exact. */
long dval__alloc_count(void);

static long download_allocs(fx *f, const char *remote, size_t size)
{
    char *data = NULL;
    size_t len = 0;
    long a0 = dval__alloc_count();
    CHECK_INT(dval_sandbox_download(f->sb, remote, &data, &len), DVAL_OK);
    long n = dval__alloc_count() - a0;
    CHECK_INT(len, size);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)data[i] != pat(i))
            th_fail(__FILE__, __LINE__, "byte %zu differs", i);
    CHECK_INT(data[len], 0);
    dval_free(data);
    return n;
}

TEST(a_download_into_memory_is_one_allocation)
{
    fx f;
    fx_start(&f, 0);
    char small[128], big[128];
    local(&f, small, sizeof small, "small.bin");
    local(&f, big, sizeof big, "big.bin");
    write_pattern(small, 1024);
    write_pattern(big, 1 << 20);
    CHECK_INT(dval_sandbox_upload_file(f.sb, "/sandbox/in/small.bin", small),
              DVAL_OK);
    CHECK_INT(dval_sandbox_upload_file(f.sb, "/sandbox/in/big.bin", big),
              DVAL_OK);
    download_allocs(&f, "/sandbox/in/small.bin", 1024); /* warm */
    long s = download_allocs(&f, "/sandbox/in/small.bin", 1024);
    long b = download_allocs(&f, "/sandbox/in/big.bin", 1 << 20);
    fprintf(stderr, "    allocations: 1 KiB download %ld, 1 MiB %ld\n", s, b);
    CHECK(b <= s);
    fx_stop(&f);
}

/* The upload body is built by the library (not curl_mime): odd names,
 * an empty file, a body cut by resets (retried whole) and a 5xx all end
 * with the exact bytes at the exact path. */
TEST(uploads_with_odd_names_and_after_resets_arrive_whole)
{
    fx f;
    fx_start(&f, 0);
    static const char *names[] = {
        "/sandbox/up/a \"b\" \xc3\xa9;x=1.txt", "/sandbox/up/--x--",
        "/sandbox/up/%22 & ' `$(x)`.java", "/sandbox/up/empty"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *body = i == 3 ? "" : names[i];
        CHECK_INT(dval_sandbox_upload(f.sb, names[i], body, strlen(body)), 0);
        char *got = NULL;
        size_t len = 0;
        CHECK_INT(dval_sandbox_download(f.sb, names[i], &got, &len), 0);
        CHECK_INT(len, strlen(body));
        CHECK(memcmp(got, body, len) == 0);
        dval_free(got);
    }
    CHECK_INT(emu_fault(&f.e, "POST", "/files/bulk-upload$", 2,
                        "\"action\":\"reset\""), 200);
    CHECK_INT(emu_fault(&f.e, "POST", "/files/bulk-upload$", 1,
                        "\"action\":\"status\",\"status\":503"), 200);
    int before = emu_count(&f.e, "POST", "/files/bulk-upload$");
    upload_pattern(&f, "/sandbox/up/p.bin", 3u << 20);
    CHECK_INT(emu_count(&f.e, "POST", "/files/bulk-upload$") - before, 4);
    char dst[128];
    local(&f, dst, sizeof dst, "p.out");
    CHECK_INT(dval_sandbox_download_file(f.sb, "/sandbox/up/p.bin", dst), 0);
    verify v = {0};
    int fd = open(dst, O_RDONLY);
    CHECK(fd >= 0);
    static char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        verify_sink(buf, (size_t)n, &v);
    close(fd);
    CHECK_INT(v.off, 3u << 20);
    CHECK_INT(v.bad, 0);
    fx_stop(&f);
}
