/* C++ and Rust symbol names as people read them: the C++ ABI's demangler
 * (__cxa_demangle from libstdc++, the one g++ and perf's libiberty share
 * the grammar of) turns "_ZN3foo3barEi" into "foo::bar(int)", and a
 * legacy Rust name ("_ZN...17h<16 hex digits>E") loses its hash as Rust's
 * own demangler drops it ("core::fmt::write"). Rust's v0 names ("_R...")
 * are left as they are: __cxa_demangle does not read them.
 *
 * Names come from the guest and from ELF files: only names of the
 * mangled alphabet ([A-Za-z0-9_.$]) up to SYM_DEMANGLE_INPUT_MAX bytes are
 * handed to the demangler (its recursion grows with the name), and a
 * result that does not fit is not used. */
#ifndef HOST_TOOLS_SYM_DEMANGLE_H
#define HOST_TOOLS_SYM_DEMANGLE_H

#include <stddef.h>

#define SYM_DEMANGLE_INPUT_MAX 1024u

/* The demangled form of name in buf (of len bytes), or name itself when
 * it is not a mangled C++ or legacy Rust name, cannot be demangled, or
 * its demangled form does not fit. */
const char *sym_demangle(const char *name, char *buf, size_t len);

#endif
