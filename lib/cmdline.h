/* Hypervisor command line: space-separated key=value words (a bare word
 * is a key with an empty value). A word holds spaces inside double quotes
 * (key="a b", or the whole word quoted as GRUB passes it: "key=a b"); in a
 * quoted stretch \" and \\ stand for " and \. Values are returned with the
 * quoting removed. Portable and host-tested. */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies the value of the last occurrence of `key` into out (NUL-
 * terminated, truncated to out_size-1). Returns false if `key` is absent
 * or the value did not fit. */
bool cmdline_get(const char *cmdline, const char *key, char *out, size_t out_size);

/* True if `key` appears (with or without a value). */
bool cmdline_has(const char *cmdline, const char *key);

/* Parses an unsigned number: decimal, 0x hex, optional K/M/G suffix
 * (binary multiples). Returns false on junk or overflow. */
bool cmdline_parse_u64(const char *text, uint64_t *value);

/* Validates every word of the command line against `known` (a NULL-
 * terminated list of keys). Returns the first unknown key's start, or NULL
 * if all are known; `*len` gets its length. */
const char *cmdline_first_unknown(const char *cmdline, const char *const *known, size_t *len);

#endif
