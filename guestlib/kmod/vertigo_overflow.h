/* i-mode overflow signals of vertigo.ko (vertigo_overflow.c): the NMI
 * Vertigo raises when a paravirtual counter reaches the overflow_at the
 * module wrote, and the signals it turns into. vertigo_threads.c decides
 * which thread overflowed; this file delivers. */
#ifndef GUESTLIB_KMOD_VERTIGO_OVERFLOW_H
#define GUESTLIB_KMOD_VERTIGO_OVERFLOW_H

#include <linux/sched.h>
#include <linux/types.h>

#include "guestlib/kmod/vertigo_ioctl.h"

/* At load, once every CPU registered its counter page: the NMI handler,
 * then VERTIGO_HC_PV_VECTOR on every CPU. False (nothing left behind) if
 * this Vertigo has no overflow interrupts or refused the vector. */
bool vertigo_overflow_init(void);
void vertigo_overflow_exit(void);

/* Sends task signal signo with si_code SI_QUEUE and si_int = mask (bit i:
 * counter i of its set overflowed), soon, from this CPU's irq_work: safe
 * in NMI context and with the scheduler's locks held. */
void vertigo_overflow_signal(struct task_struct *task, int signo, u32 mask);

/* The delivery figures of CTR_STATS. */
void vertigo_overflow_stats(struct vertigo_ctr_stats *s);

#endif
