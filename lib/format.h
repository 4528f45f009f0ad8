/* Formatted printing into a buffer, shared by the hypervisor and host tests.
 *
 * Supported conversions: d i u x X o c s p %, flags "-0+ #", width and
 * precision (numbers or '*'), length modifiers hh h l ll z t j.
 * Floating point is not supported (the hypervisor never uses it); an
 * unknown conversion is copied to the output verbatim. */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* Like vsnprintf: writes at most size-1 characters plus a NUL (when
 * size > 0) and returns the length the full output would have had. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
