/* Replays every fuzz target's committed corpus, plus deterministic random
 * and mutated inputs, under the normal test build (and under ASan/valgrind
 * in those runs). libFuzzer itself runs in `make fuzz`. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness.h"
#include "fuzz.h"

#include "fuzz_compare.c"
#include "fuzz_demux.c"
#include "fuzz_dockerfile.c"
#include "fuzz_json_map.c"
#include "fuzz_json_scan.c"
#include "fuzz_manifest.c"
#include "fuzz_multipart.c"
#include "fuzz_paths.c"
#include "fuzz_results.c"
#include "fuzz_safeterm.c"
#include "fuzz_untar.c"
#include "fuzz_url.c"
#include "fuzz_ws_frame.c"

typedef int (*target_fn)(const uint8_t *, size_t);

#ifndef FUZZ_CORPUS_DIR
#define FUZZ_CORPUS_DIR "tests/fuzz/corpus"
#endif

static int replay_dir(const char *name, target_fn fn, uint8_t **seeds,
                      size_t *seed_len, int max_seeds)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", FUZZ_CORPUS_DIR, name);
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fn(buf, len);
        if (n < max_seeds) {
            seeds[n] = malloc(len ? len : 1);
            memcpy(seeds[n], buf, len);
            seed_len[n] = len;
        }
        n++;
    }
    closedir(d);
    return n;
}

/* Corpus, then 3000 mutations of the seeds and 1000 random inputs. */
static void replay(const char *name, target_fn fn)
{
    uint8_t *seeds[256];
    size_t seed_len[256];
    int n = replay_dir(name, fn, seeds, seed_len, 256);
    if (n > 256)
        n = 256;
    unsigned r = 12345;
    static uint8_t buf[70000];
    for (int i = 0; i < 3000 && n > 0; i++) {
        int k = rand_r(&r) % n;
        size_t len = seed_len[k] < sizeof buf ? seed_len[k] : sizeof buf;
        memcpy(buf, seeds[k], len);
        int flips = 1 + rand_r(&r) % 8;
        for (int j = 0; j < flips && len; j++) {
            size_t at = (size_t)rand_r(&r) % len;
            switch (rand_r(&r) % 4) {
            case 0: buf[at] ^= (uint8_t)(1 << (rand_r(&r) % 8)); break;
            case 1: buf[at] = (uint8_t)rand_r(&r); break;
            case 2: len = at; break; /* truncate */
            default: buf[at] = (uint8_t)(rand_r(&r) % 3); break;
            }
        }
        fn(buf, len);
    }
    for (int i = 0; i < 1000; i++) {
        size_t len = (size_t)rand_r(&r) % 2048;
        for (size_t j = 0; j < len; j++)
            buf[j] = (uint8_t)(rand_r(&r) % 4 == 0 ? rand_r(&r) % 3
                                                   : rand_r(&r));
        fn(buf, len);
    }
    for (int i = 0; i < n; i++)
        free(seeds[i]);
}

TEST(fuzz_replay__compare) { replay("compare", fuzz_compare); }
TEST(fuzz_replay__demux) { replay("demux", fuzz_demux); }
TEST(fuzz_replay__paths) { replay("paths", fuzz_paths); }
TEST(fuzz_replay__results) { replay("results", fuzz_results); }
TEST(fuzz_replay__ws_frame) { replay("ws_frame", fuzz_ws_frame); }
TEST(fuzz_replay__multipart) { replay("multipart", fuzz_multipart); }
TEST(fuzz_replay__json_map) { replay("json_map", fuzz_json_map); }
TEST(fuzz_replay__json_scan) { replay("json_scan", fuzz_json_scan); }
TEST(fuzz_replay__dockerfile) { replay("dockerfile", fuzz_dockerfile); }
TEST(fuzz_replay__url) { replay("url", fuzz_url); }
TEST(fuzz_replay__untar) { replay("untar", fuzz_untar); }
TEST(fuzz_replay__manifest) { replay("manifest", fuzz_manifest); }
TEST(fuzz_replay__safeterm) { replay("safeterm", fuzz_safeterm); }
