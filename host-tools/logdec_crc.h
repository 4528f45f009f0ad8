/* The decoder's check of a block payload's CRC32C (docs/log-format.md):
 * the same checksum as log_crc32c (lib/log_crc.h), computed faster on
 * long payloads. The SSE4.2 CRC32 instruction takes three cycles before
 * its result can feed the next one, so one chain over a payload runs at a
 * third of the instruction's rate; three chains over three stretches of
 * the payload run side by side, and their CRCs are joined with the
 * algebra of the polynomial (a CRC register moved past N zero bytes is a
 * linear map of it, kept as four byte tables). Without SSE4.2, and for
 * short payloads, it is log_crc32c itself. */
#ifndef HOST_TOOLS_LOGDEC_CRC_H
#define HOST_TOOLS_LOGDEC_CRC_H

#include <stddef.h>
#include <stdint.h>

/* log_crc32c(0, buf, len), whatever the CPU. */
uint32_t logdec_crc32c(const void *buf, size_t len);

#endif
