/* Memory and string helpers. The hypervisor is freestanding and brings its
 * own (lib/mem.c); host builds of portable code use the C library's. */
#ifndef LIB_MEM_H
#define LIB_MEM_H

#include <stddef.h>

#ifdef VERTIGO_HOSTED
#include <string.h>
static inline void *memcpy_bulk(void *restrict dst, const void *restrict src, size_t n)
{
    return memcpy(dst, src, n);
}
#else
/* memcpy for megabytes (a guest's kernel and initrd): eight bytes a step
 * (REP MOVSQ, the rest with REP MOVSB). Bochs counts every step of a REP
 * string instruction as one instruction, so memcpy's REP MOVSB spends one
 * a byte; this spends one per eight. Small copies keep memcpy. */
void *memcpy_bulk(void *restrict dst, const void *restrict src, size_t n);

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

/* -ffreestanding implies -fno-builtin, so GCC would call memcpy even for a
 * few constant bytes (a header field, a 16-byte stack frame). The builtins
 * expand small constant sizes inline and call the functions above for the
 * rest; lib/mem.c defines them as (memcpy) and (memset), out of reach of
 * these macros. */
#define memcpy(dst, src, n) __builtin_memcpy((dst), (src), (n))
#define memset(dst, c, n)   __builtin_memset((dst), (c), (n))
#endif

#endif
