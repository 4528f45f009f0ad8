/* Hypercall dispatch (ABI: include/vertigo/hypercall.h). Portable: the
 * exit handler passes the registers and the guest's CPL; reading guest
 * memory goes through a callback.
 *
 * The dispatcher owns the call numbers, not the calls: the core's own
 * (version, verdict, console, power-off) are here; every other number is
 * answered by the handler its feature registered once at start-up
 * (hypercall_register: the PMU's are pmu/'s, pmu_hypercalls_register).
 * Dispatch checks a registered call's privilege (kernel_only: the
 * caller's CPL must be 0) and hands it the registers, the caller and a
 * reader of guest memory with the caller's rights; the handler copies and
 * validates its own argument (docs/hypercalls.md, "Adding a hypercall"). */
#ifndef VMM_HYPERCALL_H
#define VMM_HYPERCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/guest/guest_pt.h"

struct domain;
struct vcpu;

/* Copies `len` bytes of guest-virtual memory at `gva` into buf; false if
 * any byte is not readable. */
typedef bool (*guest_read_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

/* Copies `len` bytes of guest-virtual memory at `gva` into buf with the
 * access rights of the hypercall's caller (user-mode rights for CPL 3):
 * GUEST_ACCESS_OK, or why the first unreadable byte is not readable. */
typedef enum guest_access (*guest_copy_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

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
    struct vcpu *vcpu;          /* the caller, for the features' handlers */
    const struct hypercall_domain *domain;  /* NULL: -ENOSYS for its calls */
};

/* A feature's handler of one call number, called by dispatch once the
 * call's privilege is checked: copies its argument with read(read_ctx,
 * ...) (hypercall_copy_in), validates every field the ABI defines and
 * returns the value for RAX. */
typedef int64_t hypercall_fn(const struct hypercall_args *a, guest_copy_fn read, void *read_ctx);

struct hypercall_def {
    uint64_t nr;                /* VERTIGO_HC_* */
    bool kernel_only;           /* -VERTIGO_EPERM for a caller at CPL > 0 */
    hypercall_fn *handler;
};

/* Registers a feature's calls, once at start-up before any guest runs.
 * False, and none of them registered, if a number is the core's, beyond
 * VERTIGO_HC_COUNT or registered already. */
bool hypercall_register(const struct hypercall_def *defs, size_t count);

/* Forgets every feature's calls (tests). */
void hypercall_unregister_all(void);

/* Copies a guest argument of len bytes at gva: 0 or the pointer's error
 * (hypercall_access_error). */
int64_t hypercall_copy_in(guest_copy_fn read, void *read_ctx, uint64_t gva, void *buf,
                          size_t len);


/* The hypercall error for a guest pointer that could not be read:
 * -VERTIGO_EFAULT (unmapped, not canonical), -VERTIGO_EACCES (a
 * supervisor-only page for a user-mode caller), -VERTIGO_EMMIO (device
 * memory); 0 for GUEST_ACCESS_OK. */
int64_t hypercall_access_error(enum guest_access access);

/* Executes one hypercall for domain `d`, reading guest pointers with
 * read(read_ctx, ...) (which applies the caller's access rights). Returns
 * the value for RAX: -VERTIGO_ENOSYS for a number no one registered. */
int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_copy_fn read, void *read_ctx);

#endif
