/* The running kernel's GNU build id, which the guest agent ships so that
 * the host can name the kernel image's build in its profiles (pprof's
 * mapping build id), as perf does from /sys/kernel/notes. */
#ifndef GUESTLIB_KERNEL_BUILD_ID_H
#define GUESTLIB_KERNEL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define KERNEL_BUILD_ID_MAX 20u                        /* bytes (SHA-1) */
#define KERNEL_BUILD_ID_HEX (2u * KERNEL_BUILD_ID_MAX + 1u)

/* The GNU build id note (type 3, name "GNU") among the ELF notes
 * notes[0..len), in lower-case hex into hex. Returns its length in bytes,
 * 0 when there is none, or a note runs past the end or is longer than
 * KERNEL_BUILD_ID_MAX. */
size_t kernel_build_id_parse(const uint8_t *notes, size_t len, char hex[KERNEL_BUILD_ID_HEX]);

/* The same, from the file at path (/sys/kernel/notes); 0 when it cannot
 * be read. */
size_t kernel_build_id_read(const char *path, char hex[KERNEL_BUILD_ID_HEX]);

#endif
