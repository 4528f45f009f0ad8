/* Memory and string helpers. The hypervisor is freestanding and brings its
 * own (vmm/mem.c); host builds of portable code use the C library's. */
#ifndef VMM_MEM_H
#define VMM_MEM_H

#include <stddef.h>

#ifdef VERTIGO_HOSTED
#include <string.h>
#else
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

#endif
