/* CRC32C (Castagnoli) checksums of log stream headers and blocks.
 * Freestanding, safe in NMI context: the SSE4.2 CRC32 instruction where
 * the CPU has it (x86-64 only, probed once), else a byte table. The host
 * decoder checks logs with this same code (one implementation). */
#ifndef LIB_LOG_CRC_H
#define LIB_LOG_CRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reflected polynomial 0x1EDC6F41, initial value and final XOR all-ones.
 * log_crc32c(0, "123456789", 9) == 0xE3069283. */
#define LOG_CRC32C_POLY 0x82F63B78u

/* Continues a CRC32C over len bytes: pass 0 to start, the previous
 * result to continue (crc(a+b) == log_crc32c(log_crc32c(0,a),b)). */
uint32_t log_crc32c(uint32_t crc, const void *buf, size_t len);

/* The same CRC computed with the byte table only, whatever the CPU has
 * (the reference the instruction path is tested against). */
uint32_t log_crc32c_bytewise(uint32_t crc, const void *buf, size_t len);

/* True if log_crc32c uses the SSE4.2 CRC32 instruction on this CPU
 * (CPUID.01H:ECX[20], read on the first call and cached). */
bool log_crc32c_hw_available(void);

#endif
