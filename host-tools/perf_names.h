/* How `perf script` names a frame's image and an unknown function, and
 * what FlameGraph's stackcollapse-perf.pl folds such a frame into: the
 * names `vertigo script` prints and `vertigo export --format folded`
 * writes for the same frames, so that the two agree. */
#ifndef HOST_TOOLS_PERF_NAMES_H
#define HOST_TOOLS_PERF_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Room for either name of an image of SYM_NAME_MAX bytes. */
#define PERF_NAME_MAX 640u

/* The image as perf script prints it between parentheses. Outside the
 * guest kernel (mode, an enum log_mode), a bracketed name ("[anon]",
 * "[vertigo]" without --vertigo-elf) is written as perf writes anonymous
 * memory, "//anon": stackcollapse-perf.pl takes an image in brackets for
 * kernel code. Returns image or out. */
const char *perf_dso(const char *image, uint8_t mode, char out[PERF_NAME_MAX]);

/* The folded frame of an unknown function ("[unknown]" in perf script) in
 * that image, as stackcollapse-perf.pl names it: the last path component
 * of the image perf_dso prints, in brackets ("[libc.so.6]", "[anon]",
 * "[[kernel.kallsyms]]"). Returns out. */
const char *perf_unknown_frame(const char *image, uint8_t mode, char out[PERF_NAME_MAX]);

#endif
