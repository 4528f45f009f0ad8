/* Vertigo hypercall ABI, shared by the hypervisor, the guest library and
 * guest tools. Stable across builds: a call keeps its number and meaning;
 * new calls get new numbers and a feature bit.
 *
 * Discovery: CPUID leaf 0x40000000 returns EAX = highest Vertigo leaf and
 * EBX:ECX:EDX = VERTIGO_CPUID_SIGNATURE; leaf 0x40000001 returns EAX =
 * VERTIGO_HYPERCALL_VERSION and EBX = feature bits (VERTIGO_FEAT_*).
 *
 * Calling convention: VMCALL with RAX = call number, arguments in RBX,
 * RCX, RDX, RSI; the result comes back in RAX: >= 0 success, negative =
 * -VERTIGO_E*. Other registers are preserved. Calls marked "kernel only"
 * are refused with -VERTIGO_EPERM from guest user mode (CPL 3). */
#ifndef VERTIGO_HYPERCALL_H
#define VERTIGO_HYPERCALL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* A compile-time check both C (_Static_assert, C11) and C++
 * (static_assert, C++11) compile: this header and the ones built on it
 * are installed for guest programs in either language. */
#ifdef __cplusplus
#define VERTIGO_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define VERTIGO_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define VERTIGO_CPUID_BASE          0x40000000u
#define VERTIGO_CPUID_FEATURES      0x40000001u
#define VERTIGO_CPUID_SIGNATURE     "VertigoVMM\0\0"   /* 12 bytes: EBX, ECX, EDX */
#define VERTIGO_CPUID_SIG_EBX       0x74726556u        /* "Vert" */
#define VERTIGO_CPUID_SIG_ECX       0x566f6769u        /* "igoV" */
#define VERTIGO_CPUID_SIG_EDX       0x00004d4du        /* "MM\0\0" */

#define VERTIGO_HYPERCALL_VERSION   1u

/* Call numbers (RAX). */
#define VERTIGO_HC_VERSION          0u  /* -> version << 32 | features */
#define VERTIGO_HC_SET_VERDICT      1u  /* RBX = 0 pass, 1 fail; RCX = guest
                                           address of a NUL-terminated reason
                                           (up to 63 bytes) or 0. Any CPL. */

#define VERTIGO_HC_PMU_READ         2u  /* RBX = index of an event in the calling
                                           VCPU's counting session (the order of
                                           pmu.events= on Vertigo's command line),
                                           or VERTIGO_PMU_EVENT_COUNT -> the count
                                           of that event so far for the calling
                                           VCPU (counts are below 2^63), or the
                                           number of events (0: no session).
                                           -VERTIGO_EINVAL for an index beyond the
                                           list. Any CPL (reads only the caller's
                                           own counts). */
#define VERTIGO_HC_PMU_STEP         3u  /* RBX = step granularity of the software
                                           PMU while the calling VCPU runs in user
                                           mode, in TSC ticks (1 = one instruction
                                           per step in Bochs, slow; kernel mode
                                           keeps pmu.step=), 0 = back to pmu.step=
                                           -> the previous granularity. -VERTIGO_EINVAL
                                           unless a software-backend session
                                           runs. Any CPL (a measurement control:
                                           it slows the caller's VCPU only). */

#define VERTIGO_HC_SESSION_START    4u  /* RBX = guest address of a struct
                                           vertigo_session: starts a profiling
                                           session (sampling) on every VCPU of the
                                           calling domain. Kernel only. -EBUSY if
                                           one runs; -EINVAL for a bad event list,
                                           period 0 or above 2^48 (FREQ: above
                                           100000, or with TIMER), timer_hz 0 or
                                           above 100000, stack_depth above
                                           VERTIGO_STACK_MAX, unknown flags. */
#define VERTIGO_HC_SESSION_STOP     5u  /* stops the session -> samples logged.
                                           Kernel only. -EINVAL if none runs. */
#define VERTIGO_HC_SYMBOLS          6u  /* RBX = guest address of a struct
                                           vertigo_symbols_chunk: one chunk of
                                           guest symbol data for the log (kallsyms,
                                           process maps, JIT maps by epoch, process
                                           identities). Kernel only. */

#define VERTIGO_HC_KERNEL_ORC       7u  /* RBX = guest address of a struct
                                           vertigo_kernel_orc: the guest kernel's
                                           ORC unwind tables (or the statement that
                                           it has none and keeps frame pointers),
                                           which Vertigo copies once to walk kernel
                                           call stacks. Kernel only. -EBUSY if the
                                           domain declared its tables already;
                                           -EINVAL for a bad header, an unsorted,
                                           oversized or unreadable-format table;
                                           -EFAULT (etc.) for unreadable tables;
                                           -ENOMEM if Vertigo has no room. */

#define VERTIGO_HC_PV_PAGE          8u  /* RBX = guest-physical address of a
                                           4 KiB page of guest RAM, page-aligned,
                                           or 0: the calling VCPU's paravirtual
                                           counter page (struct vertigo_pv_page),
                                           which Vertigo writes before every
                                           entry while the VCPU's paravirtual
                                           counters count; 0 unregisters. Kernel
                                           only. -EINVAL unaligned; -EFAULT not
                                           RAM the guest may write (Vertigo's
                                           memory, a hole); -EMMIO device
                                           memory. */
#define VERTIGO_HC_PV_PROGRAM       9u  /* RBX = guest address of a struct
                                           vertigo_pv_program: the events the
                                           calling VCPU's paravirtual counters
                                           count from now on (all of them
                                           restart at 0; "" stops them). Kernel
                                           only. -EINVAL for a bad header, an
                                           event that is unknown, counts Vertigo
                                           (:h), is a software event, or more
                                           than VERTIGO_PV_COUNTERS_MAX events;
                                           -ENOSYS on a backend without them.
                                           -> the number of counters. */
#define VERTIGO_HC_PV_READ          10u /* RBX = counter index -> the calling
                                           VCPU's exact count of that counter
                                           so far (below 2^63). -EINVAL for an
                                           index beyond the program. Any CPL. */

#define VERTIGO_HC_PV_VECTOR        11u /* RBX = how the calling VCPU's
                                           paravirtual counters raise their
                                           overflow interrupts:
                                           VERTIGO_PV_VECTOR_NMI (2, an NMI),
                                           or 0: none from now on. A counter
                                           raises one when its count reaches
                                           the overflow_at[i] the guest wrote
                                           in the page. Kernel only. -EINVAL
                                           for any other vector (exception
                                           vectors 1 and 3-31, fixed vectors
                                           32-255 this Vertigo does not
                                           deliver, values above 255). -> 0 */

#define VERTIGO_HC_MUX_START        12u /* RBX = guest address of a struct
                                           vertigo_mux: starts an interval
                                           multiplexing session on the calling
                                           VCPU, as pmu.events=, pmu.interval=
                                           and pmu.subinterval= on Vertigo's
                                           command line do (the same checks;
                                           one row per interval in the log).
                                           Kernel only. -EBUSY if a counting
                                           session runs (the command line's,
                                           or one this call started) or, on
                                           the hardware backend, no counter
                                           is left to count the turns;
                                           -ENOSYS without a PMU backend;
                                           -E2BIG for more events than a
                                           session takes; -ERANGE for an
                                           interval of 0, a sub-interval
                                           longer than the interval, one too
                                           long to give every event set a
                                           turn per interval, or (hardware
                                           backend) a turn longer than its
                                           counter can count; -EINVAL for a
                                           bad header or event list. -> the
                                           number of event sets. */
#define VERTIGO_HC_MUX_STOP         13u /* stops the calling VCPU's session
                                           that VERTIGO_HC_MUX_START started
                                           (the unfinished interval's row is
                                           written) -> rows written. Kernel
                                           only. -EINVAL if none runs. */

#define VERTIGO_HC_CONSOLE_WRITE    14u /* RBX = guest address, RCX = length
                                           (1..VERTIGO_CONSOLE_WRITE_MAX): console
                                           output of the calling domain (the log's
                                           console records with source = the
                                           domain's id, Vertigo's text console
                                           with the prefix "[NAME] "). Kernel
                                           only. -EINVAL for a length of 0 or
                                           above the maximum; -EFAULT (etc.)
                                           unreadable. -> bytes written. */
#define VERTIGO_HC_POWER_OFF        15u /* ends the calling domain as powered
                                           off (report the verdict first with
                                           VERTIGO_HC_SET_VERDICT). Kernel only.
                                           Does not return. */

#define VERTIGO_HC_COUNT            16u

#define VERTIGO_CONSOLE_WRITE_MAX   4096u

/* HC_SESSION_START argument (all fields little-endian, 8-byte aligned). */
#define VERTIGO_SESSION_ABI         2u   /* 2: process_cr3 added */
#define VERTIGO_SESSION_TIMER       (1u << 0)   /* sample on a timer, not on events */
#define VERTIGO_SESSION_USER_STACK  (1u << 1)   /* copy user registers and stack bytes
                                                   with user-mode samples (host DWARF
                                                   unwinding, like perf -g dwarf) */
#define VERTIGO_SESSION_PROCESS     (1u << 2)   /* only samples taken while the guest
                                                   runs on process_cr3's page tables
                                                   (one process, like perf record CMD) */
#define VERTIGO_SESSION_FREQ        (1u << 3)   /* `period` is a frequency: samples
                                                   per second of guest time on each
                                                   VCPU and event (1..100000), each
                                                   counter's period adapting to its
                                                   rate (like perf record -F) */
#define VERTIGO_SESSION_EVENTS_MAX  256u
#define VERTIGO_SESSION_FREQ_MAX    100000u     /* FREQ: samples a second, at most */
#define VERTIGO_SESSION_PERIOD_MIN  128u        /* the shortest period, fixed or adapted:
                                                   a PMI costs far more than 128 events */
#define VERTIGO_STACK_MAX           32u

struct vertigo_session {
    uint32_t abi_version;               /* VERTIGO_SESSION_ABI */
    uint32_t flags;                     /* VERTIGO_SESSION_* */
    uint64_t period;                    /* events between samples (FREQ: samples
                                           a second) */
    uint32_t timer_hz;                  /* samples per guest second (TIMER) */
    uint32_t stack_depth;               /* return addresses per sample */
    char events[VERTIGO_SESSION_EVENTS_MAX];  /* NUL-terminated, e.g. "cycles:u" */
    uint64_t process_cr3;               /* PROCESS: the process's page-table root
                                           (__pa(mm->pgd)); compared without the
                                           PCID (bits 11:0) and page-table
                                           isolation's bit 12; else 0 */
};

/* HC_MUX_START argument. */
#define VERTIGO_MUX_ABI             1u

struct vertigo_mux {
    uint32_t abi_version;               /* VERTIGO_MUX_ABI */
    uint32_t reserved;                  /* 0 */
    uint64_t interval;                  /* N: retired instructions per interval */
    uint64_t subinterval;               /* S: per turn; 0 = one turn per set */
    char events[VERTIGO_SESSION_EVENTS_MAX];  /* NUL-terminated, as pmu.events= */
};

VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_mux) == 280, "mux ABI size");

/* HC_SYMBOLS argument. `kind` takes the log format's enum log_symbols_kind
 * values: 1 kallsyms text, 2 /proc/PID/maps text, 3 perf-PID.map text with
 * an epoch, 4 process identities ("PID CR3 COMM" lines), 5 the kernel's
 * GNU build id (one hex line). */
#define VERTIGO_SYMBOLS_CHUNK_MAX   2048u

struct vertigo_symbols_chunk {
    uint32_t kind;
    uint32_t pid;                       /* 0 for kallsyms */
    uint64_t epoch;                     /* JIT map epoch, else 0 */
    uint32_t chunk;                     /* 0, 1, ... within one data set */
    uint32_t last;                      /* 1 on the last chunk of the set */
    uint64_t data;                      /* guest-virtual address of the bytes */
    uint32_t len;                       /* <= VERTIGO_SYMBOLS_CHUNK_MAX */
    uint32_t reserved;                  /* 0 */
};

VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_session) == 288, "session ABI size");
VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_symbols_chunk) == 40, "symbols chunk ABI size");

/* HC_KERNEL_ORC argument. The tables are the kernel's own sections, read
 * where they lie: ip_table is .orc_unwind_ip (count 32-bit offsets, each
 * relative to its own address: ip = &ip_table[i] + ip_table[i]) and
 * orc_table is .orc_unwind (count 6-byte struct orc_entry in the layout
 * `format` names). Entries outside [text_start, text_end) (_stext,
 * _etext) are ignored. FRAME_POINTER: the kernel has no ORC tables and is
 * built with frame pointers (every other field 0). */
#define VERTIGO_KERNEL_ORC_ABI        1u
#define VERTIGO_ORC_FRAME_POINTER     0u   /* no tables: walk the RBP chain */
#define VERTIGO_ORC_LINUX_V1          1u   /* Linux < 6.4: type:2 end:1 */
#define VERTIGO_ORC_LINUX_V2          2u   /* Linux >= 6.4: type:3 signal:1 */
#define VERTIGO_KERNEL_ORC_MAX        (1u << 19)   /* entries */
#define VERTIGO_KERNEL_TEXT_MAX       (1ull << 26) /* bytes of text covered */

struct vertigo_kernel_orc {
    uint32_t abi_version;               /* VERTIGO_KERNEL_ORC_ABI */
    uint32_t format;                    /* VERTIGO_ORC_* */
    uint64_t text_start, text_end;      /* kernel text the tables cover */
    uint64_t ip_table;                  /* guest-virtual: .orc_unwind_ip */
    uint64_t orc_table;                 /* guest-virtual: .orc_unwind */
    uint32_t count;                     /* entries, <= VERTIGO_KERNEL_ORC_MAX */
    uint32_t reserved;                  /* 0 */
};

VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_kernel_orc) == 48, "kernel ORC ABI size");

/* ---- Paravirtual counters (HC_PV_*) -------------------------------------
 * Per VCPU, Vertigo counts up to VERTIGO_PV_COUNTERS_MAX guest events the
 * guest kernel chose (HC_PV_PROGRAM) and keeps their state in a page of
 * guest RAM the guest registered (HC_PV_PAGE), written only while the
 * VCPU is out of the guest (before each entry), so code on that VCPU never
 * sees it change under it. A counter's count now is
 *   counters[i].sum                                if it does not count in
 *                                                  the mode the guest runs
 *   counters[i].sum + (TSC now - entry_tsc)        if it counts every guest
 *                                                  mode (VERTIGO_PV_ALL_MODES)
 *                                                  and ticks are its events
 * and exactly HC_PV_READ(i) in every case (one exit). Other VCPUs may read
 * the page: seq is odd while Vertigo writes it (retry when it changed).
 *
 * For user-mode readers on the page's own VCPU, Vertigo also writes which
 * of those rules applies (ABI 2), so they need not work it out from the
 * flags: counter i's count in user mode now is
 *   counters[i].sum                         user_how VERTIGO_PV_READ_FIXED
 *   counters[i].sum + (TSC now - entry_tsc) user_how VERTIGO_PV_READ_TICKS
 * and only HC_PV_READ(i) gives it with user_how VERTIGO_PV_READ_EXIT (a
 * counter of user mode only, whose reads must equal Vertigo's exact count;
 * ticks that are not the counter's events). On the hardware backend
 * (ABI 3) a counter on a physical counter whose RDPMC passes through
 * reads, with no exit,
 *   counters[i].sum + RDPMC(ECX)            user_how VERTIGO_PV_READ_RDPMC | ECX
 * (the physical counter starts from 0 at every entry; CR4.PCE set by the
 * guest kernel for user mode). A reader
 * that knows only ABI 2 takes any other user_how for VERTIGO_PV_READ_EXIT,
 * which stays right (slower).
 *
 * Overflow interrupts (HC_PV_VECTOR): overflow_at[] is the guest's part
 * of the page, which Vertigo only reads. With a vector registered and
 * overflow_at[i] != 0, Vertigo finds the exact instruction at which
 * counter i's count (the sum above) reaches overflow_at[i], exits there
 * and raises the interrupt at the next entry, once per value written;
 * `interrupts` counts the ones it raised, so a handler tells them from
 * other NMIs. Rewriting overflow_at[i] arms the counter again. */
#define VERTIGO_PV_ABI              3u            /* 2: counters[].user_how,
                                                     3: VERTIGO_PV_READ_RDPMC */
#define VERTIGO_PV_MAGIC            0x76506756u   /* "VgPv" */
#define VERTIGO_PV_COUNTERS_MAX     4u
#define VERTIGO_PV_EVENTS_MAX       128u
#define VERTIGO_PV_PAGE_BYTES       4096u         /* the registered page, aligned */
#define VERTIGO_PV_ALL_MODES        (1u << 0)     /* counts guest user and kernel */
#define VERTIGO_PV_TICKS            (1u << 1)     /* one TSC tick is one event */
#define VERTIGO_PV_USER             (1u << 2)     /* counts guest user mode */
#define VERTIGO_PV_KERNEL           (1u << 3)     /* counts guest kernel mode */
#define VERTIGO_PV_VECTOR_NMI       2u            /* HC_PV_VECTOR: deliver as an NMI */
#define VERTIGO_PV_READ_EXIT        0u            /* user_how: only an exit reads it */
#define VERTIGO_PV_READ_FIXED       1u            /* user_how: the sum is the count */
#define VERTIGO_PV_READ_TICKS       2u            /* user_how: sum + TSC now - entry_tsc */
#define VERTIGO_PV_READ_RDPMC       (1u << 31)    /* user_how bit: sum + RDPMC(ECX), ECX
                                                     the other bits (ABI 3) */
/* RDPMC with ECX = VERTIGO_PV_RDPMC + i reads paravirtual counter i of
 * the calling VCPU, exactly as VERTIGO_HC_PV_READ(i) (one exit), at CPL 0
 * or with CR4.PCE; an i past the program raises #GP as a bad index does.
 * No real counter has such an index (bit 28 of ECX). */
#define VERTIGO_PV_RDPMC            0x10000000u

struct vertigo_pv_program {
    uint32_t abi_version;               /* VERTIGO_PV_ABI */
    uint32_t reserved;                  /* 0 */
    char events[VERTIGO_PV_EVENTS_MAX]; /* NUL-terminated, "instructions:u,cycles" */
};

struct vertigo_pv_counter {
    uint64_t sum;                       /* the VCPU's count at the last entry */
    uint32_t flags;                     /* VERTIGO_PV_* */
    uint32_t user_how;                  /* VERTIGO_PV_READ_*: how user mode
                                           on the page's VCPU reads it */
};

struct vertigo_pv_page {
    uint32_t magic;                     /* VERTIGO_PV_MAGIC once registered */
    uint32_t abi_version;               /* VERTIGO_PV_ABI */
    uint32_t seq;                       /* odd while Vertigo writes the page */
    uint32_t count;                     /* counters programmed (0: none) */
    uint64_t generation;                /* HC_PV_PROGRAM calls that succeeded */
    uint64_t entry_tsc;                 /* TSC just before the last entry */
    uint32_t entry_cpl;                 /* the guest's CPL at that entry */
    uint32_t vcpu;                      /* the VCPU that owns the page */
    struct vertigo_pv_counter counters[VERTIGO_PV_COUNTERS_MAX];
    uint64_t interrupts;                /* overflow interrupts raised so far */
    /* Written by the guest, read by Vertigo: */
    uint64_t overflow_at[VERTIGO_PV_COUNTERS_MAX];  /* counter i's count that raises
                                                       an interrupt (0: none) */
};

VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_pv_program) == 136, "pv program ABI size");
VERTIGO_STATIC_ASSERT(sizeof(struct vertigo_pv_page) == 144, "pv page ABI size");

/* HC_PMU_READ's RBX asking for the number of events in the session. */
#define VERTIGO_PMU_EVENT_COUNT     0xffffffffu

/* Feature bits (CPUID 0x40000001 EBX, and the low half of HC_VERSION). */
#define VERTIGO_FEAT_VERDICT        (1u << 0)
#define VERTIGO_FEAT_PMU            (1u << 1)   /* HC_PMU_READ, HC_PMU_STEP */
#define VERTIGO_FEAT_SAMPLING       (1u << 2)   /* HC_SESSION_*, HC_SYMBOLS */
#define VERTIGO_FEAT_KERNEL_ORC     (1u << 3)   /* HC_KERNEL_ORC */
#define VERTIGO_FEAT_PV_COUNTERS    (1u << 4)   /* HC_PV_PAGE, HC_PV_PROGRAM, HC_PV_READ */
#define VERTIGO_FEAT_PV_OVERFLOW    (1u << 5)   /* HC_PV_VECTOR, the page's overflow_at */
#define VERTIGO_FEAT_MUX            (1u << 6)   /* HC_MUX_START, HC_MUX_STOP */
#define VERTIGO_FEAT_DOMAIN         (1u << 7)   /* HC_CONSOLE_WRITE, HC_POWER_OFF */
#define VERTIGO_FEATURES            (VERTIGO_FEAT_VERDICT | VERTIGO_FEAT_PMU | \
                                     VERTIGO_FEAT_SAMPLING | VERTIGO_FEAT_KERNEL_ORC | \
                                     VERTIGO_FEAT_PV_COUNTERS | VERTIGO_FEAT_PV_OVERFLOW | \
                                     VERTIGO_FEAT_MUX | VERTIGO_FEAT_DOMAIN)

/* Errors (returned negated in RAX). */
#define VERTIGO_ENOSYS   1   /* unknown call number */
#define VERTIGO_EINVAL   2   /* bad argument */
#define VERTIGO_EPERM    3   /* not allowed from this privilege level */
#define VERTIGO_EFAULT   4   /* a guest address could not be read: not mapped,
                                or not canonical */
#define VERTIGO_EBUSY    5   /* a session already runs */
#define VERTIGO_EACCES   6   /* a guest address is on a supervisor-only page
                                and the caller runs in user mode (CPL 3) */
#define VERTIGO_EMMIO    7   /* a guest address is device memory (MMIO), not
                                RAM: Vertigo reads no device registers for
                                a hypercall */
#define VERTIGO_ENOMEM   8   /* Vertigo has no memory left for the request */
#define VERTIGO_E2BIG    9   /* more events than the call takes */
#define VERTIGO_ERANGE   10  /* a length or count out of its range */
#define VERTIGO_ERROR_MAX 10 /* the highest error code above */

#endif
