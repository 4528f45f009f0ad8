/* Log record encoder: turns record values (include/vertigo/log_format.h)
 * into the type-specific field bytes of the wire format, and builds the
 * stream header. Pure functions, no state: callable from any context,
 * NMI handlers included. The TSC and the record framing are added by the
 * ring's drain (vmm/log/log_ring.h). */
#ifndef VMM_LOG_ENCODE_H
#define VMM_LOG_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "vertigo/log_format.h"

/* Upper bounds of the field bytes of each record type; callers size
 * their buffers with these (all <= LOG_FIELDS_MAX). */
#define LOG_SAMPLE_FIELDS_MAX    (1u + 4u * 5u + 3u * LOG_VARINT_MAX + LOG_STACK_MAX * LOG_VARINT_MAX)
#define LOG_LOSS_FIELDS_MAX      LOG_VARINT_MAX
#define LOG_LIFECYCLE_FIELDS_MAX (2u * 5u + 1u + LOG_VARINT_MAX)

_Static_assert(LOG_SAMPLE_FIELDS_MAX <= LOG_FIELDS_MAX, "sample fits a record");

/* Each log_encode_<type> writes the fields of one record to out, which
 * has room for LOG_FIELDS_MAX bytes, and returns their length; it returns
 * 0 (writing nothing useful) when the value breaks a format limit: text
 * longer than LOG_TEXT_MAX, more entries than the array bound, a mode,
 * event or kind outside its enum. No record has empty fields. */
size_t log_encode_console(uint8_t *out, const struct log_console *c);
size_t log_encode_sample(uint8_t *out, const struct log_sample *s);
size_t log_encode_interval(uint8_t *out, const struct log_interval *iv);
size_t log_encode_swcounters(uint8_t *out, const struct log_swcounters *sw);
size_t log_encode_lifecycle(uint8_t *out, const struct log_lifecycle *lc);
size_t log_encode_symbols(uint8_t *out, const struct log_symbols *sym);
size_t log_encode_config(uint8_t *out, const struct log_config *cfg);
size_t log_encode_loss(uint8_t *out, const struct log_loss *loss);
size_t log_encode_pmu_totals(uint8_t *out, const struct log_pmu_totals *pt);
size_t log_encode_vcpu_stats(uint8_t *out, const struct log_vcpu_stats *vs);
size_t log_encode_event_desc(uint8_t *out, const struct log_event_desc *ed);
size_t log_encode_event_period(uint8_t *out, const struct log_event_period *ep);
size_t log_encode_user_stack(uint8_t *out, const struct log_user_stack *us);
size_t log_encode_guest_pmu_prog(uint8_t *out, const struct log_guest_pmu_prog *gp);
size_t log_encode_guest_pmi(uint8_t *out, const struct log_guest_pmi *pmi);
size_t log_encode_interval_events(uint8_t *out, const struct log_interval_events *ie);

/* What a stream header says, besides the constant fields. */
struct log_stream_info {
    uint16_t cpu_count;
    uint64_t tsc_hz;
    uint8_t build_id[LOG_BUILD_ID_SIZE];
    struct log_pmu_desc pmu;
    uint32_t record_types;      /* bit (1u << type) per type emitted */
};

/* Writes the 64-byte stream header (magic, version, sizes, endian tag,
 * the info, CRC) to out. A drain sends it once before any block. */
void log_encode_stream_header(uint8_t out[LOG_STREAM_HEADER_SIZE],
                              const struct log_stream_info *info);

/* The header's CRC covers bytes [0, LOG_BLOCK_HEADER_CRC_OFFSET); this
 * fills payload_crc from the payload and then header_crc. */
void log_encode_block_checksums(struct log_block_header *h, const uint8_t *payload);

#endif
