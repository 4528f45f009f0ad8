/* The guest counter library: a thread counts events for itself and reads
 * them from user mode with no system call (Perfctr-style a-mode counters
 * on Vertigo's paravirtual counters). For C and C++ (`pkg-config --cflags
 * --libs vertigo_counters`; libvertigo_counters.a or .so). The guest
 * kernel module (vertigo.ko) must be loaded, and /dev/vertigo is root's.
 *
 *   struct vertigo_counters *set;
 *   int e = vertigo_counters_open("instructions:u,cycles", &set);
 *   if (e) { fprintf(stderr, "%s\n", vertigo_counters_strerror(e)); ... }
 *   vertigo_counters_start(set);
 *   ... work ...
 *   uint64_t n;
 *   vertigo_counters_read(set, 0, &n);      // the thread's instructions:u so far
 *   vertigo_counters_close(set);
 *   vertigo_counters_free(set);
 *
 * A set belongs to the thread that opened it: its counts are that
 * thread's only (other threads, even on the same CPU, count apart), and
 * every call from another thread gets VERTIGO_CTR_ETHREAD. Threads the
 * owner creates, and forked children, inherit nothing. Up to
 * VERTIGO_PV_COUNTERS_MAX (4) events per set, by perf-style names (as
 * Vertigo's pmu.events=): instructions, cycles, ref-cycles with :u or :k.
 * A read makes no system call and, where Vertigo's backend allows, no VM
 * exit: it is inline (below), a few dozen instructions, and falls to the
 * library's checked read on anything unusual; the kernel-mode fallback is
 * vertigo_counters_read_syscall. Every call checks its arguments and
 * returns 0 or a negative VERTIGO_CTR_E* code. The page protocol under
 * it: vertigo/thread_page.h. */
#ifndef GUESTLIB_VERTIGO_COUNTERS_H
#define GUESTLIB_VERTIGO_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "vertigo/hypercall.h"
#include "vertigo/thread_page.h"

#ifdef __cplusplus
extern "C" {
#endif

enum vertigo_ctr_error {
    VERTIGO_CTR_OK = 0,
    VERTIGO_CTR_EARG = -1,          /* a NULL pointer, or a set that is no set */
    VERTIGO_CTR_EUNKNOWN = -2,      /* an event name Vertigo does not know */
    VERTIGO_CTR_EMODIFIER = -3,     /* a bad :modifier, or an unavailable event */
    VERTIGO_CTR_ETOOMANY = -4,      /* more events than VERTIGO_PV_COUNTERS_MAX */
    VERTIGO_CTR_EUNSUPPORTED = -5,  /* an event no per-thread counter counts
                                       (exits:..., :h) */
    VERTIGO_CTR_ENOVERTIGO = -6,    /* not running under Vertigo */
    VERTIGO_CTR_ENODEV = -7,        /* no /dev/vertigo (module not loaded, not
                                       root) or no per-thread counters there */
    VERTIGO_CTR_ECLOSED = -8,       /* the set was closed */
    VERTIGO_CTR_ETHREAD = -9,       /* the set belongs to another thread */
    VERTIGO_CTR_EINDEX = -10,       /* a counter index past the set */
    VERTIGO_CTR_EBACKEND = -11,     /* Vertigo refused the events or a read */
    VERTIGO_CTR_ESYS = -12,         /* a system call failed (errno says why) */
    VERTIGO_CTR_EEMPTY = -13,       /* an empty event list */
    VERTIGO_CTR_EPERIOD = -14,      /* an overflow period outside
                                       VERTIGO_CTR_PERIOD_MIN..MAX (0: off) */
    VERTIGO_CTR_ESIGNAL = -15,      /* a signal number that is not 1..64, or
                                       SIGKILL or SIGSTOP */
    VERTIGO_CTR_ENOOVERFLOW = -16,  /* this Vertigo raises no overflow
                                       interrupts (no i-mode) */
    VERTIGO_CTR_EPARANOID = -17,    /* the guest's kernel.perf_event_paranoid
                                       does not let this thread count these
                                       events (2: user mode only, 3: none)
                                       without CAP_PERFMON or CAP_SYS_ADMIN */
};

struct vertigo_counters;

/* Opens a set counting `events` ("instructions:u,cycles") for the calling
 * thread, stopped at 0. */
int vertigo_counters_open(const char *events, struct vertigo_counters **out);

/* The checks open makes of an event list before any system call: 0 and
 * the number of events (*count, may be NULL), or the code open would
 * return for it. */
int vertigo_counters_check(const char *events, unsigned int *count);

/* Start and stop the set's counting (counts keep their values between);
 * reset sets them to 0. */
int vertigo_counters_start(struct vertigo_counters *set);
int vertigo_counters_stop(struct vertigo_counters *set);
int vertigo_counters_reset(struct vertigo_counters *set);

/* The thread's count of counter i so far, from user mode: no system
 * call; no VM exit for a counter that counts the other mode than user
 * mode only, nor, where one TSC tick is one event (Vertigo's software
 * backend, one VCPU), for one that counts every mode; one VM exit for the
 * others while the set counts. Inline: vertigo_counters_read_checked with
 * its common case first (below). */
static inline int vertigo_counters_read(const struct vertigo_counters *set, unsigned int i,
                                        uint64_t *value);

/* vertigo_counters_read, every check made apart, out of line. */
int vertigo_counters_read_checked(const struct vertigo_counters *set, unsigned int i,
                                  uint64_t *value);

/* vertigo_counters_read, and the calling VCPU's own count of the
 * counter (*vcpu) taken by the same VM exit, 0 while the set is stopped:
 * for checking that threads' counts add up to the VCPU's. */
int vertigo_counters_read_pair(const struct vertigo_counters *set, unsigned int i,
                               uint64_t *value, uint64_t *vcpu);

/* i-mode: counter i signals the set's thread every `period` of its
 * events, counted from its count now (0: no more signals). The signal is
 * signo for every counter of the set (the last call's); its siginfo has
 * si_code SI_QUEUE, si_pid 0 and si_value.sival_int = the counters that
 * overflowed since the previous signal (bit i: counter i). A realtime
 * signal (SIGRTMIN + n) queues one per overflow; a standard one merges
 * those that come while one is pending. Overflows are found at their
 * exact event by Vertigo's software backend and signalled before the
 * thread runs another instruction of its own (docs/user-guide.md). */
#define VERTIGO_CTR_PERIOD_MIN 1000ull
#define VERTIGO_CTR_PERIOD_MAX (1ull << 48)
int vertigo_counters_overflow(struct vertigo_counters *set, unsigned int i, uint64_t period,
                              int signo);

/* The checks vertigo_counters_overflow makes of period and signo before
 * any system call: 0, VERTIGO_CTR_EPERIOD or VERTIGO_CTR_ESIGNAL. */
int vertigo_counters_overflow_check(uint64_t period, int signo);

/* The calling thread's own TSC (*ticks): the TSC ticks it ran while the
 * set was started, not those other threads ran on its CPU; from user
 * mode, no exit, no system call. Exact in emulated instructions where the
 * TSC counts them (Bochs, one VCPU). VERTIGO_CTR_EUNSUPPORTED for a set
 * the module gave no pages (it reads by system calls). */
int vertigo_counters_tsc(const struct vertigo_counters *set, uint64_t *ticks);

/* Every counter's count (values[i], i < vertigo_counters_count(set)). */
int vertigo_counters_read_all(const struct vertigo_counters *set, uint64_t *values);

/* The same counts through the kernel module (a system call). */
int vertigo_counters_read_syscall(const struct vertigo_counters *set, uint64_t *values);

/* Counters in the set (0 if set is not a set), and the name of counter i
 * as given (NULL past the set). */
unsigned int vertigo_counters_count(const struct vertigo_counters *set);
const char *vertigo_counters_name(const struct vertigo_counters *set, unsigned int i);

/* Closes the set: its counting ends and every later call on it but free
 * gets VERTIGO_CTR_ECLOSED. free releases its memory (closing it first). */
int vertigo_counters_close(struct vertigo_counters *set);
void vertigo_counters_free(struct vertigo_counters *set);

/* The events a set can count here, by perf's names: the name of the ith
 * (from 0), NULL past the last. Each counts user mode with ":u", kernel
 * mode with ":k", both without a suffix ("instructions", "cycles",
 * "ref-cycles" on Vertigo's software PMU). */
const char *vertigo_counters_event(unsigned int i);

/* Text of a VERTIGO_CTR_E* code ("unknown event name"). */
const char *vertigo_counters_strerror(int err);

/* ---- The inline read ---------------------------------------------------------
 * What follows is the library's ABI, not an API: programs call
 * vertigo_counters_read only. A set starts with this head, which the
 * library keeps: key is the owner thread's thread pointer (FS base) xor
 * VERTIGO_CTR_KEY while the set is open, 0 once it is closed or freed, so
 * one compare finds a set that is a set, open and the caller's; pages[i]
 * is counter i's thread page (vertigo/thread_page.h). Anything else (a
 * NULL set or value, another thread's set, a closed one, an index past the
 * set, a read a switch or an exit interrupted, a running thread without
 * the CPUs' pages, an exit that failed) goes to
 * vertigo_counters_read_checked, which tells which. */
struct vertigo_counters_head {
    uint64_t key;
    uint32_t count;
    uint32_t reserved;
    const volatile struct vertigo_thread_page *pages[VERTIGO_PV_COUNTERS_MAX];
};

#define VERTIGO_CTR_KEY 0x56435472u

/* The calling thread's key (its thread pointer, %fs:0 on x86-64 Linux). */
static inline uint64_t vertigo_counters_key(void)
{
    uint64_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    return tp ^ VERTIGO_CTR_KEY;
}

/* The TSC after every earlier load (LFENCE: RDTSC waits for them). */
static inline uint64_t vertigo_counters_rdtsc(void)
{
    uint64_t tsc;
    __asm__ volatile("lfence\n\trdtsc\n\tshl $32, %%rdx\n\tor %%rdx, %%rax"
                     : "=a"(tsc) : : "rdx", "memory");
    return tsc;
}

/* RDPMC of counter ecx (the module sets CR4.PCE for the thread): where
 * Vertigo passes the VCPU's hardware counters through. The checked read
 * uses it (out of line: its registers would cost the inline read below
 * four instructions in every kind). */
static inline uint64_t vertigo_counters_rdpmc(uint32_t ecx)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx) : "memory");
    return (uint64_t)hi << 32 | lo;
}

/* The calling VCPU's count of paravirtual counter k: VERTIGO_HC_PV_READ,
 * one exit (allowed from user mode). */
static inline int64_t vertigo_counters_exit_read(uint32_t k)
{
    /* RBX carries k, swapped in and out: the caller keeps RBX free, so a
     * function that reads inline saves no register for the exit it
     * seldom makes. */
    int64_t n;
    uint64_t arg = k;
    __asm__ volatile("xchg %%rbx, %1\n\tvmcall\n\txchg %%rbx, %1"
                     : "=a"(n), "+r"(arg) : "a"((uint64_t)VERTIGO_HC_PV_READ) : "memory");
    return n;
}

static inline int vertigo_counters_read(const struct vertigo_counters *set, unsigned int i,
                                        uint64_t *value)
{
    const struct vertigo_counters_head *h = (const struct vertigo_counters_head *)set;
    if (h && h->key == vertigo_counters_key() && i < h->count && value &&
        vertigo_thread_try_read(h->pages[i], i, vertigo_counters_rdtsc, NULL,
                                vertigo_counters_exit_read, value) > 0)
        return 0;
    return vertigo_counters_read_checked(set, i, value);
}

#ifdef __cplusplus
}
#endif

#endif
