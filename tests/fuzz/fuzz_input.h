/* A fuzzer's input read front to back as little-endian values, zeros once
 * it is used up (so every input, however short, is a whole test case). */
#ifndef TESTS_FUZZ_FUZZ_INPUT_H
#define TESTS_FUZZ_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_input {
    const uint8_t *p;
    size_t left;
};

/* The next `bytes` (at most 8) bytes as a number. */
static inline uint64_t fuzz_take(struct fuzz_input *in, unsigned int bytes)
{
    uint64_t v = 0;
    for (unsigned int i = 0; i < bytes && in->left; i++, in->left--)
        v |= (uint64_t)*in->p++ << (8 * i);
    return v;
}

#endif
