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

/* The input as a C string (malloc'd; NULL when out of memory): for
 * targets whose code under test reads up to a NUL. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

/* An invariant the target checks on every input (abort → crash report). */
#define FUZZ_ASSERT(c)                                                     \
    do {                                                                   \
        if (!(c))                                                          \
            abort();                                                       \
    } while (0)

#endif
