/* Hypercall dispatch (ABI: include/vertigo/hypercall.h). Portable: the
 * exit handler passes the registers and the guest's CPL; reading guest
 * memory goes through a callback. */
#ifndef VMM_HYPERCALL_H
#define VMM_HYPERCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct domain;

/* The calling VCPU's counting session, as the PMU calls see it. Each
 * returns a value for RAX (>= 0, or -VERTIGO_E*). */
struct hypercall_pmu {
    int64_t (*read)(void *ctx, uint64_t index);      /* VERTIGO_HC_PMU_READ */
    int64_t (*set_step)(void *ctx, uint64_t ticks);  /* VERTIGO_HC_PMU_STEP */
    void *ctx;
};

struct hypercall_args {
    uint64_t nr;                /* RAX */
    uint64_t arg[4];            /* RBX, RCX, RDX, RSI */
    unsigned int cpl;           /* guest privilege level at the VMCALL */
    const struct hypercall_pmu *pmu;    /* NULL: no PMU wiring (calls say 0 events) */
};

/* Copies `len` bytes of guest-virtual memory at `gva` into buf; false if
 * any byte is not readable. */
typedef bool (*guest_read_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

/* Executes one hypercall for domain `d`. Returns the value for RAX. */
int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_read_fn read, void *read_ctx);

#endif
