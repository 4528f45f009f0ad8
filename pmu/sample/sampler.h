/* The shipping of guest symbol chunks (VERTIGO_HC_SYMBOLS) into
 * LOG_REC_SYMBOLS records, for the sampling hypercalls (pmu/sample/sample_*.c).
 *
 * A guest chunk carries up to VERTIGO_SYMBOLS_CHUNK_MAX bytes, a log record
 * at most LOG_TEXT_MAX, so each chunk becomes one or more records. The host
 * reassembles a data set (domain, kind, pid, epoch) from records numbered
 * 0, 1, 2, ... with `last` on the final one, so the record numbers are
 * kept per set here: a set starts with guest chunk 0 and must continue
 * with chunk 1, 2, ... (anything else is refused). Portable. */
#ifndef VMM_SAMPLER_H
#define VMM_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vertigo/log_format.h"
#include "vmm/domain/domain_config.h"

/* Data sets being shipped at once: each domain has SAMPLER_SETS_PER_DOMAIN
 * slots of its own, so no domain can take or abandon another's. */
#define SAMPLER_SETS_PER_DOMAIN 8u
#define SAMPLER_SYMBOL_SETS (SAMPLER_SETS_PER_DOMAIN * DOMAIN_MAX)

struct sampler_symbol_set {
    bool used;
    uint32_t domain, kind, pid;
    uint64_t epoch;
    uint32_t next_chunk;        /* guest chunk expected next */
    uint32_t next_record;       /* log chunk number of the next record */
    uint64_t last_use;
};

struct sampler_symbols {
    struct sampler_symbol_set sets[SAMPLER_SYMBOL_SETS];
    uint64_t clock;
};

/* Writes one record; false if it was dropped. */
typedef bool (*sampler_emit_symbols_fn)(void *ctx, const struct log_symbols *rec);

/* Ships guest chunk c (already validated by sample_symbols_check) and
 * its c->len bytes at data for domain `domain` as LOG_TEXT_MAX-sized
 * records. Returns 0, or -VERTIGO_EINVAL when the chunk is out of
 * sequence (not 0 and not the next of a set being shipped); *dropped
 * counts records emit refused. Starting a set when the domain already
 * ships SAMPLER_SETS_PER_DOMAIN gives the domain's own least recently used
 * one up, with a record that says so (log_symbols.abandoned); another
 * domain's sets are never touched. */
int64_t sampler_symbols_ship(struct sampler_symbols *st, uint32_t domain,
                             const struct vertigo_symbols_chunk *c, const uint8_t *data,
                             sampler_emit_symbols_fn emit, void *ctx, uint32_t *dropped);

#endif
