/* The guest counter library: a thread counts events for itself and reads
 * them from user mode with no system call (Perfctr-style a-mode counters
 * on Vertigo's paravirtual counters). Link $(BUILD)/guest/lib/
 * libvertigo_counters.a; the guest kernel module (vertigo.ko) must be
 * loaded, and /dev/vertigo is root's.
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
 * A read costs one VM exit (VERTIGO_HC_PV_READ), no system call; the
 * kernel-mode fallback is vertigo_counters_read_syscall. Every call
 * checks its arguments and returns 0 or a negative VERTIGO_CTR_E* code.
 * The page protocol under it: guestlib/vertigo_thread_ctr.h. */
#ifndef GUESTLIB_VERTIGO_COUNTERS_H
#define GUESTLIB_VERTIGO_COUNTERS_H

#include <stdint.h>

#include "vertigo/hypercall.h"

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
 * call, one VM exit while the set counts, none while stopped. */
int vertigo_counters_read(const struct vertigo_counters *set, unsigned int i, uint64_t *value);

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
 * TSC counts them (Bochs, one VCPU). */
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

/* Text of a VERTIGO_CTR_E* code ("unknown event name"). */
const char *vertigo_counters_strerror(int err);

#endif
