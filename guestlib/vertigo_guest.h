/* The guest library: what Linux guest programs use to talk to Vertigo,
 * linked statically into each of them ($(BUILD)/guest/lib/libvertigo_guest.a,
 * guestlib/guest.mk). It owns Vertigo detection (CPUID leaves 0x40000000
 * and 0x40000001), the hypercalls by name (verdict, version, the calling
 * VCPU's counting session), the text of Vertigo's error codes, and the
 * requests to /dev/vertigo (guestlib/kmod/vertigo_ioctl.h) that carry the
 * kernel-only calls: sessions, symbols, process identities.
 *
 * Raw VMCALLs, the CPUID signature check and the errno mapping come from
 * guestlib/vertigo_vmcall.h (shared with the kernel module); fenced TSC
 * reads and loops of known instruction count from guestlib/vertigo_measure.h.
 * Hypercalls need Vertigo: check vertigo_present() or vertigo_detect()
 * first. Results are as the ABI returns them (>= 0, or -VERTIGO_E*);
 * /dev/vertigo requests return 0 or -errno. */
#ifndef GUESTLIB_VERTIGO_GUEST_H
#define GUESTLIB_VERTIGO_GUEST_H

#include <stdint.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_measure.h"
#include "guestlib/vertigo_vmcall.h"
#include "vertigo/hypercall.h"

/* ---- detection --------------------------------------------------------- */

/* What Vertigo's CPUID leaves report. */
struct vertigo_info {
    uint32_t max_leaf;          /* highest Vertigo leaf (EAX of VERTIGO_CPUID_BASE) */
    uint32_t version;           /* hypercall interface version (EAX of leaf 0x40000001) */
    uint32_t features;          /* VERTIGO_FEAT_* (EBX of leaf 0x40000001) */
};

/* Returns 1 and fills *info when running under Vertigo (vertigo_present());
 * version and features stay 0 if max_leaf stops short of
 * VERTIGO_CPUID_FEATURES. Returns 0 with *info zeroed otherwise. Issues no
 * hypercall. */
int vertigo_detect(struct vertigo_info *info);

/* 1 when running under Vertigo and it reports every bit of `features`
 * (VERTIGO_FEAT_*), else 0. */
int vertigo_has_features(uint32_t features);

/* ---- hypercalls by name ------------------------------------------------ */

/* A short text for a hypercall result: "success" when >= 0, a phrase for
 * each -VERTIGO_E* ("invalid argument", ...), "unknown error" otherwise.
 * The text is static. */
const char *vertigo_strerror(int64_t result);

/* VERTIGO_HC_VERSION: VERTIGO_HYPERCALL_VERSION << 32 | features. */
int64_t vertigo_version(void);

/* VERTIGO_HC_SET_VERDICT: records pass (failed 0) or fail (failed 1) with
 * `reason` (NUL-terminated, up to 63 bytes kept; NULL for none) as the
 * guest's test verdict. 0, or -VERTIGO_EINVAL for failed > 1. */
int64_t vertigo_set_verdict(uint32_t failed, const char *reason);

/* VERTIGO_HC_PMU_READ: the calling VCPU's count so far of event `index` of
 * its counting session (the order of pmu.events=), or -VERTIGO_EINVAL past
 * the last event. Inline, so a window between two reads holds only their
 * register setup and VMCALLs. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_pmu_read(uint64_t index)
{
    return vertigo_hypercall1(VERTIGO_HC_PMU_READ, index);
}

/* The TSC, then vertigo_pmu_read(index), as one fixed instruction sequence:
 * the ticks from the RDTSC to the VM exit where the count is taken are the
 * same at every call, so a count that includes Vertigo's own time can be
 * compared with the TSC exactly. *tsc gets the TSC. */
VERTIGO_ALWAYS_INLINE int64_t vertigo_pmu_read_tsc(uint64_t index, uint64_t *tsc)
{
    int64_t count;
    uint64_t t;
    __asm__ volatile("lfence\n\t"
                     "rdtsc\n\t"
                     "lfence\n\t"
                     "shl $32, %%rdx\n\t"
                     "or %%rdx, %%rax\n\t"
                     "mov %%rax, %[t]\n\t"
                     "mov %[nr], %%eax\n\t"
                     "mov %[idx], %%rbx\n\t"
                     "vmcall"
                     : "=&a"(count), [t] "=&r"(t)
                     : [nr] "i"(VERTIGO_HC_PMU_READ), [idx] "r"(index)
                     : "rbx", "rdx", "memory");
    *tsc = t;
    return count;
}

/* The number of events in the calling VCPU's counting session (0: none). */
int64_t vertigo_pmu_event_count(void);

/* VERTIGO_HC_PMU_STEP: the software PMU's step for the calling VCPU in
 * user mode, in TSC ticks (1 = exact attribution in Bochs; 0 = back to
 * pmu.step=). Returns the previous step, or -VERTIGO_EINVAL unless a
 * software-backend session runs. */
int64_t vertigo_pmu_set_step(uint64_t tsc_ticks);

/* ---- session requests -------------------------------------------------- */

/* A session request with abi_version VERTIGO_SESSION_ABI and every other
 * field 0 (no events, no timer: not yet a valid request). */
struct vertigo_session vertigo_session_new(void);

/* A timer-sampling session request: `timer_hz` samples a guest second,
 * `stack_depth` return addresses each, no events. */
struct vertigo_session vertigo_session_timer(uint32_t timer_hz, uint32_t stack_depth);

/* ---- /dev/vertigo ------------------------------------------------------ */

/* Opens VERTIGO_DEV_PATH read-write, close-on-exec. Returns the descriptor,
 * or -errno: -ENOENT without vertigo.ko, -EACCES for a non-root caller. */
int vertigo_dev_open(void);

/* VERTIGO_IOC_START: starts session `s` on every VCPU. 0 or -errno
 * (Vertigo's refusals mapped as vertigo_ioctl.h says: -EBUSY, -EINVAL, ...). */
int vertigo_dev_session_start(int fd, const struct vertigo_session *s);

/* VERTIGO_IOC_STOP: stops the session; *samples = samples logged. 0 or
 * -errno (-EINVAL: no session runs). */
int vertigo_dev_session_stop(int fd, uint64_t *samples);

/* VERTIGO_IOC_MUX_START: starts interval multiplexing session m on the
 * VCPU the calling thread runs on (pin it first). 0 or -errno (-EBUSY a
 * counting session runs, -E2BIG too many events, -ERANGE the interval or
 * sub-interval, -EINVAL the events, -ENOSYS no software backend). */
int vertigo_dev_mux_start(int fd, const struct vertigo_mux *m);

/* VERTIGO_IOC_MUX_STOP: stops the calling VCPU's session; *rows = rows
 * written. 0 or -errno (-EINVAL: none runs on this VCPU). */
int vertigo_dev_mux_stop(int fd, uint64_t *rows);

/* VERTIGO_IOC_SYMBOLS: ships one symbols chunk whose `data` is this
 * process's address of `len` bytes. 0 or -errno (-EMSGSIZE: len above
 * VERTIGO_SYMBOLS_CHUNK_MAX; -EINVAL: Vertigo refused the chunk). */
int vertigo_dev_symbols(int fd, const struct vertigo_symbols_chunk *chunk);

/* VERTIGO_IOC_PROCESS: ships the identity of process q->pid and fills
 * q->cr3 and q->comm. 0 or -errno (-ESRCH: no such process; -ENOENT: a
 * kernel thread). */
int vertigo_dev_process(int fd, struct vertigo_process_query *q);

/* VERTIGO_IOC_LIST: fills l->entries (l->capacity of them at most) with
 * the user processes and their CR3, l->count with how many. 0 or -errno. */
int vertigo_dev_process_list(int fd, struct vertigo_process_list *l);

/* Declares the guest kernel's ORC unwind tables (or, format
 * VERTIGO_ORC_FRAME_POINTER, that it has none) to Vertigo: the module
 * fills in the table layout of the kernel it was built for. */
int vertigo_dev_kernel_orc(int fd, const struct vertigo_kernel_orc *orc);

#endif
