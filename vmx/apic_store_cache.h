/* The guest's APIC stores, decoded once: domain 0's xAPIC page is
 * write-protected (vmx/apic_guard.c), so each of its writes is an EPT
 * violation whose instruction Vertigo fetches and decodes to find the
 * value and the length (some 330 emulated instructions of an exit's
 * handling in Bochs). Linux writes its APIC from the same few
 * instructions every time (a PMI's LVTPC unmask, the self-IPI of perf's
 * wake-up, the EOI that follows): each VCPU remembers the last few it
 * decoded, by RIP and CR3, with the proof that their page still translates as it
 * did (vmx/guest_mem.h) and the instruction's bytes. A store is taken
 * from here only if the proof holds for the guest's paging registers now
 * and its bytes are still those decoded, so the result is exactly what a
 * fresh fetch and decode would give. */
#ifndef VMX_APIC_STORE_CACHE_H
#define VMX_APIC_STORE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vhw/mmio_decode.h"
#include "vmx/guest_mem.h"

struct vcpu;

/* The store decoded for the instruction at rip of v's guest, if one was
 * remembered and still holds with these paging registers. */
bool apic_store_cache_find(const struct vcpu *v, uint64_t rip, uint64_t cr0, uint64_t cr3,
                           uint64_t cr4, struct mmio_store *st);

/* Remembers store st, decoded from `bytes` (st->length of them) fetched
 * at rip, on the page proof proves: in place of a stale entry for rip,
 * else of the least recently remembered. An instruction whose 16-byte
 * window crosses its page's end is not remembered. */
void apic_store_cache_add(const struct vcpu *v, uint64_t rip, const struct guest_page_proof *proof,
                          const uint8_t *bytes, const struct mmio_store *st);

#endif
