/* Arithmetic on values from a log, checked: a log (a guest's, or anyone's
 * file) may hold any 64-bit value, so a sum or product of them may not
 * fit. An overflow is never a silent wrap: the first one is noted with
 * the offset of the record whose value did not fit, and the command says
 * so ("vertigo stats: FILE: the vcpu-stats record at offset 123: the
 * exits of domain 3 add up past 2^64 - 1") and exits 3, as for any other
 * corrupt record (host-tools/vertigo.h). */
#ifndef HOST_TOOLS_LOG_ARITH_H
#define HOST_TOOLS_LOG_ARITH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LOG_ARITH_WHAT_MAX 160u

/* The first overflow of a command's sums. */
struct log_overflow {
    bool hit;
    uint64_t offset;                     /* the record's offset in the log */
    char what[LOG_ARITH_WHAT_MAX];       /* "the vcpu-stats record at offset N: " follows */
};

/* *sum += v; false, *sum unchanged, when the sum would pass 2^64 - 1. */
static inline bool log_add(uint64_t *sum, uint64_t v)
{
    uint64_t r;
    if (__builtin_add_overflow(*sum, v, &r))
        return false;
    *sum = r;
    return true;
}

/* *out = a * b; false, *out unchanged, when the product would pass
 * 2^64 - 1. */
static inline bool log_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

/* Notes an overflow at the record at offset (printf-style what: "the exits
 * of domain 3 add up past 2^64 - 1"); only the first is kept. */
void log_overflow_note(struct log_overflow *o, uint64_t offset, const char *what, ...)
    __attribute__((format(printf, 3, 4)));

/* "vertigo CMD: PATH: the record at offset N: WHAT (the log is corrupt)"
 * on err, when o holds an overflow. */
void log_overflow_print(FILE *err, const char *cmd, const char *path,
                        const struct log_overflow *o);

#endif
