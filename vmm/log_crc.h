/* CRC32C (Castagnoli) checksums of log stream headers and blocks.
 * Table-driven, freestanding, safe in NMI context (no state). */
#ifndef VMM_LOG_CRC_H
#define VMM_LOG_CRC_H

#include <stddef.h>
#include <stdint.h>

/* Reflected polynomial 0x1EDC6F41, initial value and final XOR all-ones.
 * log_crc32c(0, "123456789", 9) == 0xE3069283. */
#define LOG_CRC32C_POLY 0x82F63B78u

/* Continues a CRC32C over len bytes: pass 0 to start, the previous
 * result to continue (crc(a+b) == log_crc32c(log_crc32c(0,a),b)). */
uint32_t log_crc32c(uint32_t crc, const void *buf, size_t len);

/* The 256-entry byte table the function uses (for faster host variants). */
extern const uint32_t log_crc32c_table[256];

#endif
