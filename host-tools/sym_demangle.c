/* Demangling of C++ and legacy Rust names (see sym_demangle.h). */
#include "host-tools/sym_demangle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (libstdc++; declared in <cxxabi.h> for C++). */
char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

#define RUST_HASH_DIGITS 16u

static bool mangled_alphabet(const char *name)
{
    size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$");
    return !name[n] && n <= SYM_DEMANGLE_INPUT_MAX;
}

/* A legacy Rust name ends its path with "17h" and 16 hex digits, then
 * "E" (and an optional ".llvm.N" or similar suffix is not this form). */
static bool rust_legacy(const char *name)
{
    size_t n = strlen(name);
    const char *h = n > RUST_HASH_DIGITS + 4 ? name + n - RUST_HASH_DIGITS - 4 : NULL;
    return h && !strncmp(h, "17h", 3) && name[n - 1] == 'E' &&
           strspn(h + 3, "0123456789abcdef") == RUST_HASH_DIGITS;
}

const char *sym_demangle(const char *name, char *buf, size_t len)
{
    if (strncmp(name, "_Z", 2) || !mangled_alphabet(name) || !len)
        return name;
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        return name;
    }
    size_t n = strlen(d);
    if (rust_legacy(name) && n > RUST_HASH_DIGITS + 3 &&
        !strncmp(d + n - RUST_HASH_DIGITS - 3, "::h", 3))
        n -= RUST_HASH_DIGITS + 3;          /* "::h0123456789abcdef" */
    bool fits = n < len;
    if (fits) {
        memcpy(buf, d, n);
        buf[n] = '\0';
    }
    free(d);
    return fits ? buf : name;
}
