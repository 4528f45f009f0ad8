/* The sampling hypercalls (include/vertigo/hypercall.h): their argument
 * shapes checked, and the calls registered with the dispatcher
 * (vmm/hypercall.h) at start-up:
 *   VERTIGO_HC_SESSION_START  a struct vertigo_session (sample_session_check)
 *   VERTIGO_HC_SESSION_STOP   no argument
 *   VERTIGO_HC_SYMBOLS        a struct vertigo_symbols_chunk and its data
 *   VERTIGO_HC_KERNEL_ORC     a struct vertigo_kernel_orc (guest_orc_check)
 * all the kernel's only (CPL 0). What each does with its validated
 * argument is pmu/sample/sample_guest.h's. */
#ifndef PMU_SAMPLE_SAMPLE_HYPERCALLS_H
#define PMU_SAMPLE_SAMPLE_HYPERCALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "vertigo/hypercall.h"

/* The ABI's rules for a session, whoever asks for one (the guest, or
 * Vertigo's command line, pmu/sample/sample_session.c): version, flags,
 * period 128..2^48 for event sessions (1..VERTIGO_SESSION_FREQ_MAX a second
 * in frequency mode), timer_hz 1..100000 for timer sessions, stack depth
 * <= VERTIGO_STACK_MAX, the process flag with its page-table root, a
 * NUL-terminated event list that event sessions must not leave empty.
 * 0 or -VERTIGO_EINVAL. */
int64_t sample_session_check(const struct vertigo_session *s);

/* A symbol chunk's header: kind 1..4, len <= VERTIGO_SYMBOLS_CHUNK_MAX,
 * last 0 or 1, reserved 0. 0 or -VERTIGO_EINVAL. */
int64_t sample_symbols_check(const struct vertigo_symbols_chunk *c);

/* Registers the four calls with the dispatcher (once, at start-up):
 * false if one of their numbers is taken. */
bool sample_hypercalls_register(void);

#endif
