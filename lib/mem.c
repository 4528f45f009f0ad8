/* Freestanding memory and string functions for the hypervisor image
 * (contract: lib/mem.h). Host builds use the C library instead, so this
 * file is only in HV_SRCS.
 *
 * GCC recognises byte-copy and byte-fill loops and replaces them with
 * calls to memcpy/memset/memmove ("loop distribution"), which inside
 * those very functions would recurse forever. The copying and filling
 * primitives therefore use the string instructions (REP MOVSB / REP
 * STOSB, Intel SDM Vol. 2B "REP/REPE/REPZ/REPNE/REPNZ" and "MOVS",
 * "STOS"), which the compiler cannot rewrite. They rely on RFLAGS.DF
 * being clear, as the System V ABI requires at every call. */
#include "lib/mem.h"

#include <stdint.h>

/* Kept and visible under LTO: GCC may emit calls to memcpy and memset
 * (a large structure's copy or zeroing) after the link-time optimiser has
 * decided which symbols are needed, so they must not be dropped as unused. */
#define MEM_KEEP __attribute__((used, externally_visible))

MEM_KEEP void *(memcpy)(void *restrict dst, const void *restrict src, size_t n)
{
    void *d = dst;
    __asm__ volatile("rep movsb"
                     : "+D"(d), "+S"(src), "+c"(n)
                     :
                     : "memory");
    return dst;
}

void *memcpy_bulk(void *restrict dst, const void *restrict src, size_t n)
{
    void *d = dst;
    size_t words = n / 8, rest = n % 8;
    __asm__ volatile("rep movsq\n\t"
                     "mov %3, %%rcx\n\t"
                     "rep movsb"
                     : "+D"(d), "+S"(src), "+c"(words)
                     : "r"(rest)
                     : "memory");
    return dst;
}

/* Copies from the last byte down. Not with STD; REP MOVSB: an NMI or
 * exception taken inside would run its handler with RFLAGS.DF set (event
 * delivery does not clear DF, SDM Vol. 3A 6.12.1). The empty asm keeps
 * GCC from recognising the loop as memmove and calling it. */
static void copy_backward(unsigned char *dst, const unsigned char *src, size_t n)
{
    while (n > 0) {
        n--;
        dst[n] = src[n];
        __asm__ volatile("" ::: "memory");
    }
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;

    if (n == 0 || d == s)
        return dst;
    /* Overlapping with the destination above the source: copy downwards. */
    if (d > s && (uintptr_t)(d - s) < n)
        copy_backward(d, s, n);
    else
        memcpy(d, s, n);
    return dst;
}

MEM_KEEP void *(memset)(void *dst, int c, size_t n)
{
    void *d = dst;
    __asm__ volatile("rep stosb"
                     : "+D"(d), "+c"(n)
                     : "a"(c)
                     : "memory");
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *pa = a, *pb = b;

    for (size_t i = 0; i < n; i++) {
        if (pa[i] != pb[i])
            return pa[i] < pb[i] ? -1 : 1;
    }
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n] != '\0')
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n] != '\0')
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    const unsigned char *pa = (const unsigned char *)a;
    const unsigned char *pb = (const unsigned char *)b;

    while (*pa != '\0' && *pa == *pb) {
        pa++;
        pb++;
    }
    return (*pa > *pb) - (*pa < *pb);
}

int strncmp(const char *a, const char *b, size_t n)
{
    const unsigned char *pa = (const unsigned char *)a;
    const unsigned char *pb = (const unsigned char *)b;

    for (size_t i = 0; i < n; i++) {
        if (pa[i] != pb[i])
            return pa[i] < pb[i] ? -1 : 1;
        if (pa[i] == '\0')
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    char ch = (char)c;

    for (;; s++) {
        if (*s == ch)
            return (char *)s;
        if (*s == '\0')
            return NULL;
    }
}
