/* Fast CRC32C for the host decoder: slicing-by-8 over tables derived from
 * the hypervisor's byte table (vmm/log_crc.c); same results, ~4x faster. */
#ifndef HOST_TOOLS_LOGDEC_CRC_H
#define HOST_TOOLS_LOGDEC_CRC_H

#include <stddef.h>
#include <stdint.h>

/* Same contract as log_crc32c (vmm/log_crc.h). Thread-safe after the
 * first call (tables are built once; call it once before threads). */
uint32_t logdec_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
