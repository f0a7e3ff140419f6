/* Minimal test harness: each TEST runs in its own forked process with a
 * timeout; the program ends with "N passed, N failed[, N skipped]". */
#ifndef DVAL_HARNESS_H
#define DVAL_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*th_fn)(void);
void th_register(const char *name, th_fn fn);
void th_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void th_skip(const char *why) __attribute__((noreturn));
/* Cleanups run by th_fail and th_skip before the test process exits (a
 * fixture that started processes must not leave them running); the last
 * registered runs first. th_at_end_drop removes a closed fixture's. */
void th_at_end(void (*fn)(void *), void *ud);
void th_at_end_drop(void *ud);
/* Defined by a suite's support code that leaves something for the
 * suite's later tests (lt_open_shared): run by the suite's process once
 * its tests are done. */
void th_suite_done(void) __attribute__((weak));
/* Restarts the running test's timeout: s seconds from now, scaled as the
 * harness's own (for a fixture whose set-up is slow, e.g. a snapshot
 * build, before the test's own budget starts). */
void th_timeout(unsigned s);
/* Names what the running test is doing now (a host command, a pull): a
 * test killed by its timeout says so, rather than dying mute. */
void th_step(const char *what);

#define TEST(name)                                                         \
    static void name(void);                                                \
    __attribute__((constructor)) static void th_reg_##name(void)          \
    {                                                                      \
        th_register(#name, name);                                          \
    }                                                                      \
    static void name(void)

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond))                                                       \
            th_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);              \
    } while (0)

#define CHECK_INT(a, b)                                                    \
    do {                                                                   \
        long long th_a = (long long)(a), th_b = (long long)(b);           \
        if (th_a != th_b)                                                  \
            th_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
                    #a, th_a, #b, th_b);                                   \
    } while (0)

#define CHECK_STR(a, b)                                                    \
    do {                                                                   \
        const char *th_a = (a), *th_b = (b);                               \
        if (!th_a || !th_b || strcmp(th_a, th_b) != 0)                     \
            th_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"",   \
                    #a, th_a ? th_a : "(null)", th_b ? th_b : "(null)");   \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                        \
    do {                                                                   \
        const char *th_h = (hay), *th_n = (needle);                        \
        if (!th_h || !strstr(th_h, th_n))                                  \
            th_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"",  \
                    th_h ? th_h : "(null)", th_n);                         \
    } while (0)

#endif
