/* Vertigo's unit-test framework: tests register themselves with TEST(),
 * checks record a failure and go on, and tests/unit/unit.c runs every
 * registered test and prints one "NAME: N passed, N failed" line. */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*unit_fn)(void);

void unit_register(const char *name, unit_fn fn);
/* Records a failed check in the running test; returns false. */
bool unit_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reads a whole file (fixtures); aborts the test run if it is missing.
 * The caller frees the buffer. Paths are relative to the source tree. */
void *unit_read_file(const char *path, size_t *size);

#define TEST(name)                                                   \
    static void name(void);                                          \
    __attribute__((constructor)) static void name##_register(void)   \
    { unit_register(#name, name); }                                  \
    static void name(void)

#define CHECK(cond)                                                  \
    ((cond) ? true : unit_fail(__FILE__, __LINE__, "%s", #cond))

#define CHECK_EQ(a, b)                                               \
    ({ uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);               \
       a_ == b_ ? true : unit_fail(__FILE__, __LINE__,                \
           "%s == %s: 0x%" PRIx64 " (%" PRIu64 ") != 0x%" PRIx64 " (%" PRIu64 ")", \
           #a, #b, a_, a_, b_, b_); })

#define CHECK_STR(a, b)                                              \
    ({ const char *a_ = (a), *b_ = (b);                              \
       (a_ && b_ && strcmp(a_, b_) == 0) ? true :                    \
           unit_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", \
                     #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); })

/* xorshift64 pseudo-random numbers from *state (never 0; a fixed seed
 * makes a test repeatable). */
static inline uint64_t unit_rand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
