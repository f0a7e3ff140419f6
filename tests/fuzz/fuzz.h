/* One source per fuzz target. Built two ways: with -DDVAL_LIBFUZZER as a
 * libFuzzer binary (make fuzz), or included by test_replay.c, which replays
 * the committed corpora and deterministic mutations in every make check. */
#ifndef DVAL_FUZZ_H
#define DVAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef DVAL_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#define FUZZ_TARGET(name)                                                  \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name)                                                  \
    static int fuzz_##name(const uint8_t *data, size_t size)
#endif

/* An invariant the target checks on every input (abort → crash report). */
#define FUZZ_ASSERT(c)                                                     \
    do {                                                                   \
        if (!(c))                                                          \
            abort();                                                       \
    } while (0)

#endif
