/* Hypercall dispatch (ABI: include/vertigo/hypercall.h). Portable: the
 * exit handler passes the registers and the guest's CPL; reading guest
 * memory goes through a callback. */
#ifndef VMM_HYPERCALL_H
#define VMM_HYPERCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/guest/guest_pt.h"

struct domain;
struct vertigo_session;
struct vertigo_symbols_chunk;
struct vertigo_kernel_orc;
struct vertigo_pv_program;
struct vertigo_mux;

/* Copies `len` bytes of guest-virtual memory at `gva` into buf; false if
 * any byte is not readable. */
typedef bool (*guest_read_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

/* Copies `len` bytes of guest-virtual memory at `gva` into buf with the
 * access rights of the hypercall's caller (user-mode rights for CPL 3):
 * GUEST_ACCESS_OK, or why the first unreadable byte is not readable. */
typedef enum guest_access (*guest_copy_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

/* The sampling-session and symbol calls, reached only after dispatch has
 * checked the CPL, copied the argument out of guest memory and validated
 * every field the ABI defines (include/vertigo/hypercall.h). Each returns
 * a value for RAX. */
struct hypercall_sampling {
    /* VERTIGO_HC_SESSION_START with a validated session: -VERTIGO_EBUSY if
     * one runs, -VERTIGO_EINVAL if an event name is not one the backend
     * can sample, else 0. */
    int64_t (*start)(void *ctx, const struct vertigo_session *s);
    /* VERTIGO_HC_SESSION_STOP: samples logged, or -VERTIGO_EINVAL if no
     * session runs. */
    int64_t (*stop)(void *ctx);
    /* VERTIGO_HC_SYMBOLS with a validated chunk and its `len` data bytes:
     * 0, or -VERTIGO_EINVAL for a chunk out of sequence. */
    int64_t (*symbols)(void *ctx, const struct vertigo_symbols_chunk *c, const uint8_t *data);
    /* VERTIGO_HC_KERNEL_ORC with the argument copied in (its fields are
     * checked by the callee, vmm/guest/guest_orc.h), the tables read with
     * read(read_ctx, ...): 0 or -VERTIGO_E*. */
    int64_t (*kernel_orc)(void *ctx, const struct vertigo_kernel_orc *a, guest_copy_fn read,
                          void *read_ctx);
    void *ctx;
    uint8_t *buffer;            /* VERTIGO_SYMBOLS_CHUNK_MAX bytes for a chunk's data */
};

/* The calling VCPU's paravirtual counters (VERTIGO_HC_PV_*), reached after
 * dispatch has checked the CPL, the page's alignment and the program's
 * header (version, reserved field, a NUL-terminated event list). Each
 * returns a value for RAX. */
struct hypercall_pv {
    /* VERTIGO_HC_PV_PAGE with a page-aligned guest-physical address (0:
     * unregister): 0, or the pointer error of a page that is not writable
     * guest RAM. */
    int64_t (*page)(void *ctx, uint64_t gpa);
    /* VERTIGO_HC_PV_PROGRAM: the number of counters, -VERTIGO_EINVAL for
     * an event list the backend cannot count this way, -VERTIGO_ENOSYS for
     * a backend without paravirtual counters. */
    int64_t (*program)(void *ctx, const struct vertigo_pv_program *p);
    /* VERTIGO_HC_PV_READ: the count, or -VERTIGO_EINVAL past the program. */
    int64_t (*read)(void *ctx, uint64_t index);
    /* VERTIGO_HC_PV_VECTOR: 0, or -VERTIGO_EINVAL for a vector refused. */
    int64_t (*vector)(void *ctx, uint64_t vector);
    void *ctx;
};

/* The calling VCPU's interval multiplexing session (VERTIGO_HC_MUX_*),
 * reached after dispatch has checked the CPL and the argument's header
 * (version, reserved field, a NUL-terminated, non-empty event list). The
 * callee checks the events and lengths as the command line's are
 * (pmu/mux/mux_session.h). Each returns a value for RAX. */
struct hypercall_mux {
    /* VERTIGO_HC_MUX_START: the number of event sets, or -VERTIGO_EBUSY,
     * -VERTIGO_ENOSYS, -VERTIGO_E2BIG, -VERTIGO_ERANGE, -VERTIGO_EINVAL. */
    int64_t (*start)(void *ctx, const struct vertigo_mux *m);
    /* VERTIGO_HC_MUX_STOP: rows written, or -VERTIGO_EINVAL if none runs. */
    int64_t (*stop)(void *ctx);
    void *ctx;
};

/* The calling VCPU's counting session, as the PMU calls see it. Each
 * returns a value for RAX (>= 0, or -VERTIGO_E*). */
struct hypercall_pmu {
    int64_t (*read)(void *ctx, uint64_t index);      /* VERTIGO_HC_PMU_READ */
    int64_t (*set_step)(void *ctx, uint64_t ticks);  /* VERTIGO_HC_PMU_STEP */
    void *ctx;
    const struct hypercall_sampling *sampling;  /* NULL: no sampling sessions */
    const struct hypercall_pv *pv;              /* NULL: no paravirtual counters */
    const struct hypercall_mux *mux;            /* NULL: no multiplexing sessions */
};

/* The calling domain's console and life cycle (VERTIGO_HC_CONSOLE_WRITE,
 * VERTIGO_HC_POWER_OFF), reached after dispatch has checked the CPL and,
 * for the console, the length and that every byte is readable. */
struct hypercall_domain {
    /* The domain's console output: len (1..VERTIGO_CONSOLE_WRITE_MAX) bytes
     * copied out of the guest -> bytes written; NULL for domain 0, which
     * has its own serial port (and whose id, 0, is Vertigo's own console
     * source in the log). */
    int64_t (*console)(void *ctx, const char *text, size_t len);
    /* Ends the calling domain as powered off; returns only in tests. */
    void (*power_off)(void *ctx);
    void *ctx;
    char *buffer;               /* VERTIGO_CONSOLE_WRITE_MAX bytes for the text */
};

struct hypercall_args {
    uint64_t nr;                /* RAX */
    uint64_t arg[4];            /* RBX, RCX, RDX, RSI */
    unsigned int cpl;           /* guest privilege level at the VMCALL */
    const struct hypercall_pmu *pmu;    /* NULL: no PMU wiring (calls say 0 events) */
    const struct hypercall_domain *domain;  /* NULL: -ENOSYS for its calls */
};


/* The hypercall error for a guest pointer that could not be read:
 * -VERTIGO_EFAULT (unmapped, not canonical), -VERTIGO_EACCES (a
 * supervisor-only page for a user-mode caller), -VERTIGO_EMMIO (device
 * memory); 0 for GUEST_ACCESS_OK. */
int64_t hypercall_access_error(enum guest_access access);

/* Validation of the HC_SESSION_START argument alone (the ABI's field
 * rules: version, flags, period 1..2^48 for event sessions, timer_hz
 * 1..100000 for timer sessions, stack depth <= VERTIGO_STACK_MAX, a
 * NUL-terminated event list that event sessions must not leave empty).
 * 0 or -VERTIGO_EINVAL. */
int64_t hypercall_session_check(const struct vertigo_session *s);

/* Validation of an HC_SYMBOLS chunk header (kind 1..4, len <=
 * VERTIGO_SYMBOLS_CHUNK_MAX, last 0 or 1, reserved 0). 0 or -VERTIGO_EINVAL. */
int64_t hypercall_symbols_check(const struct vertigo_symbols_chunk *c);

/* Validation of an HC_PV_PROGRAM header (ABI version, reserved 0, a
 * NUL-terminated event list). 0 or -VERTIGO_EINVAL. */
int64_t hypercall_pv_program_check(const struct vertigo_pv_program *p);

/* Validation of an HC_MUX_START header (ABI version, reserved 0, a
 * NUL-terminated event list that is not empty). 0 or -VERTIGO_EINVAL. */
int64_t hypercall_mux_check(const struct vertigo_mux *m);

/* Executes one hypercall for domain `d`, reading guest pointers with
 * read(read_ctx, ...) (which applies the caller's access rights). Returns
 * the value for RAX. */
int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_copy_fn read, void *read_ctx);

#endif
