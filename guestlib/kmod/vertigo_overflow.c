// SPDX-License-Identifier: GPL-2.0
/* i-mode overflow signals (see vertigo_overflow.h). Vertigo raises an NMI
 * at the exact instruction where a CPU's paravirtual counter reaches the
 * overflow_at the module wrote in that CPU's page (VERTIGO_HC_PV_VECTOR =
 * VERTIGO_PV_VECTOR_NMI: a module cannot take an IDT vector of its own).
 * The page's `interrupts` count tells Vertigo's NMIs from the others (the
 * guest's perf watchdog shares the line): one claimed per NMI while the
 * count is ahead of the ones seen. The handler lets vertigo_threads.c
 * find the owning thread; the signal itself cannot be sent from an NMI
 * (nor from a scheduler notifier, which holds the runqueue lock), so it
 * goes through a per-CPU ring to an irq_work, which the NMI's return
 * takes before the interrupted thread runs another instruction. */
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <asm/local.h>
#include <asm/nmi.h>

#include "vertigo/hypercall.h"
#include "guestlib/kmod/vertigo_overflow.h"
#include "guestlib/kmod/vertigo_threads.h"
#include "guestlib/vertigo_vmcall.h"

#define VT_RING 32u             /* signals queued per CPU before one is lost */

struct vt_signal {
	struct task_struct *task;       /* a reference held until sent */
	u32 mask;
	int signo;
	int ready;                      /* written; the consumer may take it */
};

/* One CPU's queue: producers are this CPU's notifiers (interrupts off)
 * and its NMIs, which may interrupt them; the consumer is its irq_work. */
struct vt_ring {
	struct vt_signal slots[VT_RING];
	local_t head;                   /* slots reserved */
	unsigned long tail;             /* slots sent */
	struct irq_work work;
	u64 nmis_seen;                  /* Vertigo's NMIs claimed */
};

static DEFINE_PER_CPU(struct vt_ring, vt_rings);
static atomic64_t vt_nmis, vt_signals_sent, vt_signals_lost;
static bool vt_nmi_registered;

void vertigo_overflow_signal(struct task_struct *task, int signo, u32 mask)
{
	struct vt_ring *q = this_cpu_ptr(&vt_rings);
	struct vt_signal *s;
	unsigned long h;

	do {
		h = (unsigned long)local_read(&q->head);
		if (h - READ_ONCE(q->tail) >= VT_RING) {
			atomic64_inc(&vt_signals_lost);
			return;
		}
	} while ((unsigned long)local_cmpxchg(&q->head, (long)h, (long)(h + 1)) != h);
	s = &q->slots[h % VT_RING];
	s->task = get_task_struct(task);
	s->mask = mask;
	s->signo = signo;
	barrier();
	WRITE_ONCE(s->ready, 1);
	irq_work_queue(&q->work);
}

static void vt_send(const struct vt_signal *s)
{
	struct kernel_siginfo info;

	clear_siginfo(&info);
	info.si_signo = s->signo;
	info.si_code = SI_QUEUE;
	info.si_int = (int)s->mask;
	if (!send_sig_info(s->signo, &info, s->task))
		atomic64_inc(&vt_signals_sent);
}

/* In order; stops at a slot still being written (its producer's
 * irq_work_queue brings this back). */
static void vt_drain(struct irq_work *w)
{
	struct vt_ring *q = container_of(w, struct vt_ring, work);

	while (q->tail != (unsigned long)local_read(&q->head)) {
		struct vt_signal *s = &q->slots[q->tail % VT_RING];

		if (!READ_ONCE(s->ready))
			break;
		vt_send(s);
		put_task_struct(s->task);
		WRITE_ONCE(s->ready, 0);
		barrier();
		WRITE_ONCE(q->tail, q->tail + 1);
	}
}

static int vt_nmi(unsigned int type, struct pt_regs *regs)
{
	struct vt_ring *q = this_cpu_ptr(&vt_rings);

	if (vertigo_ctr_interrupts_raised() == q->nmis_seen)
		return NMI_DONE;
	q->nmis_seen++;
	atomic64_inc(&vt_nmis);
	vertigo_ctr_overflow_interrupt();
	return NMI_HANDLED;
}

static void vt_set_vector(void *failed)
{
	struct vt_ring *q = this_cpu_ptr(&vt_rings);

	q->nmis_seen = vertigo_ctr_interrupts_raised();
	if (vertigo_hypercall1(VERTIGO_HC_PV_VECTOR, VERTIGO_PV_VECTOR_NMI) < 0)
		atomic_set(failed, 1);
}

static void vt_clear_vector(void *unused)
{
	vertigo_hypercall1(VERTIGO_HC_PV_VECTOR, 0);
}

bool vertigo_overflow_init(void)
{
	atomic_t failed = ATOMIC_INIT(0);
	struct vertigo_cpuid_regs f = vertigo_cpuid(VERTIGO_CPUID_FEATURES);
	int cpu;

	if (!(f.ebx & VERTIGO_FEAT_PV_OVERFLOW))
		return false;
	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&vt_rings, cpu)->work, vt_drain);
	if (register_nmi_handler(NMI_LOCAL, vt_nmi, 0, "vertigo"))
		return false;
	vt_nmi_registered = true;
	on_each_cpu(vt_set_vector, &failed, 1);
	if (atomic_read(&failed)) {
		vertigo_overflow_exit();
		return false;
	}
	return true;
}

void vertigo_overflow_exit(void)
{
	int cpu;

	if (!vt_nmi_registered)
		return;
	on_each_cpu(vt_clear_vector, NULL, 1);
	unregister_nmi_handler(NMI_LOCAL, "vertigo");
	vt_nmi_registered = false;
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&vt_rings, cpu)->work);
}

void vertigo_overflow_stats(struct vertigo_ctr_stats *s)
{
	s->interrupts = atomic64_read(&vt_nmis);
	s->signals = atomic64_read(&vt_signals_sent);
	s->signals_lost = atomic64_read(&vt_signals_lost);
}
