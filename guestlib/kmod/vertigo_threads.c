// SPDX-License-Identifier: GPL-2.0
/* Per-thread paravirtual counters in vertigo.ko (no kernel patch): each
 * CPU (VCPU) registers a page with Vertigo (VERTIGO_HC_PV_PAGE) where
 * Vertigo keeps the VCPU's counts; a thread that opens a counter set gets
 * a preempt notifier, so at each of its switches the module folds its
 * share of the VCPU's counts (sched_out) and starts the next (sched_in),
 * following guestlib/vertigo_thread_ctr.h. A counter that does not count
 * kernel mode is read from the page with no exit (the module runs in
 * kernel mode, where it stands still), one that counts every mode too
 * where the page has VERTIGO_PV_TICKS (sum + TSC ticks since the entry);
 * a :k counter costs a VERTIGO_HC_PV_READ. The owner maps its set's
 * pages and, read-only, every CPU's page of Vertigo's counts, so its own
 * reads of a counter that counts every mode, or not user mode, need no
 * exit either. A CPU keeps counting
 * the events it last counted, so threads with the same events switch
 * without a hypercall; a thread with other events costs one
 * VERTIGO_HC_PV_PROGRAM when it comes in.
 *
 * Fork: the child has no notifier and its mappings of the pages are not
 * copied (VM_DONTCOPY): counters are not inherited. Exit: the
 * sched_process_exit tracepoint, in the exiting thread, folds its counts
 * and removes its notifier; the set lives until its fd is closed. Locking:
 * a set is changed only by its own thread, with preemption off (its
 * notifiers run in its own switches); the list of sets is for the exit
 * hook. CPU hotplug is not handled: CPUs online at load count. */
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/io.h>
#include <asm/msr.h>
#include <asm/processor-flags.h>
#include <asm/tlbflush.h>

#include "vertigo/hypercall.h"
#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/kmod/vertigo_overflow.h"
#include "guestlib/kmod/vertigo_perm.h"
#include "guestlib/kmod/vertigo_threads.h"
#include "guestlib/vertigo_thread_ctr.h"
#include "guestlib/vertigo_vmcall.h"

/* What one CPU's paravirtual counters count. */
struct vt_cpu {
	struct vertigo_pv_page *page;           /* registered with Vertigo, or NULL */
	struct vertigo_pv_program *prog;        /* its current events (kernel memory) */
	bool programmed;
	struct vt_thread *armed;                /* whose overflow_at the page holds */
	bool busy;                              /* a switch is changing the CPU's state */
};

struct vt_thread {
	struct preempt_notifier pn;
	struct task_struct *owner;
	struct list_head node;                  /* on vt_threads */
	char events[VERTIGO_PV_EVENTS_MAX];
	struct vertigo_thread_set set;
	struct page *pages[VERTIGO_PV_COUNTERS_MAX];
	bool notifier_on;                       /* pn is on owner's list */
	bool closed;                            /* fd released before the owner exited */
	bool exited;                            /* the owner exited: the counts are final */
	int error;                              /* a CPU refused the events at a switch-in */
	int signo;                              /* i-mode: the overflow signal */
	bool pce_set;                           /* it set CR4.PCE at its switch-in */
	bool restricted;                        /* no pages, no RDPMC (vertigo_perm.h) */
	unsigned long vcpu_pages_uaddr;         /* where it mapped the CPUs' pages, 0: not */
};

static DEFINE_PER_CPU(struct vt_cpu, vt_cpus);
static LIST_HEAD(vt_threads);
static DEFINE_SPINLOCK(vt_lock);
static bool vt_available;                    /* every CPU registered its page */
static bool vt_overflow_on;                  /* Vertigo raises overflow interrupts */
static struct tracepoint *vt_exit_tp;
static atomic64_t vt_switches_in, vt_programs, vt_vcpu_reads, vt_overflows, vt_late;
static atomic64_t vt_skid_max;

/* ---- The VCPU's counts ----------------------------------------------------- */

static u64 vt_tsc(void)
{
	return rdtsc_ordered();
}

/* Counter i of this CPU: from its page with no exit where the page allows
 * (a counter not counting kernel mode stands still here; one of every
 * mode is its sum + the TSC ticks since the entry, as the library reads
 * it in user mode), else one VERTIGO_HC_PV_READ. */
static u64 vt_vcpu_count(struct vt_cpu *c, u32 i)
{
	u64 n;

	if (vertigo_pv_count_now(c->page, i, VERTIGO_PV_KERNEL, vt_tsc, &n))
		return n;
	atomic64_inc(&vt_vcpu_reads);
	return (u64)vertigo_hypercall1(VERTIGO_HC_PV_READ, i);
}

static void vt_vcpu_counts(struct vt_cpu *c, u32 n, u64 *out)
{
	for (u32 i = 0; i < n; i++)
		out[i] = vt_vcpu_count(c, i);
}

/* Makes this CPU count `events`: the number of counters, or -errno if
 * Vertigo refuses them. */
static long vt_program(struct vt_cpu *c, const char *events)
{
	s64 r;

	if (c->programmed && !strcmp(c->prog->events, events))
		return READ_ONCE(c->page->count);
	strscpy(c->prog->events, events, sizeof(c->prog->events));
	atomic64_inc(&vt_programs);
	r = vertigo_hypercall1(VERTIGO_HC_PV_PROGRAM, (u64)(uintptr_t)c->prog);
	c->programmed = r >= 0;
	return r < 0 ? -vertigo_errno(r) : r;
}

/* ---- Switches ------------------------------------------------------------------ */

static void vt_publish(struct vt_thread *t)
{
	for (u32 i = 0; i < t->set.count; i++)
		vertigo_thread_page_write(page_address(t->pages[i]), &t->set, i,
					  smp_processor_id(), nr_cpu_ids,
					  READ_ONCE(t->vcpu_pages_uaddr));
}

/* ---- i-mode (guestlib/vertigo_thread_ctr.h, "overflow periods") ------------- */

static bool vt_has_periods(const struct vt_thread *t)
{
	for (u32 i = 0; i < t->set.count; i++)
		if (t->set.period[i])
			return true;
	return false;
}

/* values: t's counts now. Its periods crossed become one signal. */
static void vt_check_overflows(struct vt_thread *t, const u64 *values, bool late)
{
	u64 n = 0;
	u32 mask = vertigo_thread_overflows(&t->set, values, &n);

	if (!mask)
		return;
	atomic64_add(n, &vt_overflows);
	if (late)
		atomic64_add(n, &vt_late);
	vertigo_overflow_signal(t->owner, t->signo, mask);
}

/* The CPU's page gets t's overflow points: only t's counts reach them. */
static void vt_arm(struct vt_cpu *c, struct vt_thread *t)
{
	c->armed = t;
	barrier();
	for (u32 i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++)
		WRITE_ONCE(c->page->overflow_at[i],
			   i < t->set.count ? vertigo_thread_overflow_at(&t->set, i) : 0);
}

static void vt_disarm(struct vt_cpu *c)
{
	if (!c->armed)
		return;
	for (u32 i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++)
		WRITE_ONCE(c->page->overflow_at[i], 0);
	barrier();
	c->armed = NULL;
}

static void vt_note_skid(const struct vt_thread *t, const u64 *values, const u64 *next)
{
	for (u32 i = 0; i < t->set.count; i++) {
		s64 max = atomic64_read(&vt_skid_max);
		u64 skid = values[i] - next[i];

		if (t->set.period[i] && values[i] >= next[i] && skid > (u64)max)
			atomic64_set(&vt_skid_max, (s64)skid);
	}
}

u64 vertigo_ctr_interrupts_raised(void)
{
	struct vt_cpu *c = this_cpu_ptr(&vt_cpus);

	return c->page ? READ_ONCE(c->page->interrupts) : 0;
}

/* NMI: the thread armed on this CPU is the one whose count reached its
 * overflow point, unless a switch is under way (it checks itself). */
void vertigo_ctr_overflow_interrupt(void)
{
	struct vt_cpu *c = this_cpu_ptr(&vt_cpus);
	struct vt_thread *t = c->armed;
	u64 values[VERTIGO_PV_COUNTERS_MAX], next[VERTIGO_PV_COUNTERS_MAX];

	if (!t || c->busy || !t->set.running)
		return;
	for (u32 i = 0; i < t->set.count; i++) {
		values[i] = vertigo_thread_value(&t->set, i, vt_vcpu_count(c, i));
		next[i] = t->set.next[i];
	}
	vt_note_skid(t, values, next);
	vt_check_overflows(t, values, false);
	vt_arm(c, t);
}

/* While t counts on this CPU its user code may RDPMC its counters (the
 * page's index: VERTIGO_PV_RDPMC + i + 1, as perf's readers expect), so
 * CR4.PCE is set at its switch-in unless it already was (Linux sets it
 * for a process with perf's own user RDPMC), and cleared again at its
 * switch-out. Linux sets CR4.PCE for the next address space at each
 * switch of it, before sched_in and after sched_out. Interrupts off. */
static void vt_allow_rdpmc(struct vt_thread *t)
{
	if (t->restricted || (cr4_read_shadow() & X86_CR4_PCE))
		return;
	cr4_set_bits_irqsoff(X86_CR4_PCE);
	t->pce_set = true;
}

static void vt_restore_rdpmc(struct vt_thread *t)
{
	if (t->pce_set)
		cr4_clear_bits_irqsoff(X86_CR4_PCE);
	t->pce_set = false;
}

/* t comes onto this CPU c (preemption and interrupts off). An overflow
 * its count reached while it was off (a late interrupt) is signalled now. */
static void vt_resume_locked(struct vt_cpu *c, struct vt_thread *t)
{
	u64 now[VERTIGO_PV_COUNTERS_MAX];
	long n;

	atomic64_inc(&vt_switches_in);
	n = vt_program(c, t->events);
	if (n != t->set.count) {
		t->error = n < 0 ? (int)n : -EIO;
		return;
	}
	vt_vcpu_counts(c, t->set.count, now);
	vertigo_thread_resume(&t->set, now, rdtsc());
	vt_publish(t);
	vt_allow_rdpmc(t);
	if (vt_overflow_on && vt_has_periods(t)) {
		vt_check_overflows(t, t->set.sum, true);
		vt_arm(c, t);
	}
}

/* t leaves c: its overflow points leave the page first, then its counts
 * are folded and checked, so an overflow its interrupt has not reached
 * yet is still t's. */
static void vt_fold_locked(struct vt_cpu *c, struct vt_thread *t)
{
	u64 now[VERTIGO_PV_COUNTERS_MAX];

	if (c->armed == t)
		vt_disarm(c);
	vt_vcpu_counts(c, t->set.count, now);
	vertigo_thread_fold(&t->set, now, rdtsc());
	vt_publish(t);
	vt_restore_rdpmc(t);
	if (vt_overflow_on && vt_has_periods(t))
		vt_check_overflows(t, t->set.sum, true);
}

/* Runs step on this CPU for t with interrupts off and c->busy set: the
 * NMI handler leaves c alone meanwhile (the switch checks t itself). */
static void vt_on_cpu(struct vt_thread *t, void (*step)(struct vt_cpu *, struct vt_thread *))
{
	struct vt_cpu *c = this_cpu_ptr(&vt_cpus);
	unsigned long flags;

	local_irq_save(flags);
	c->busy = true;
	step(c, t);
	c->busy = false;
	local_irq_restore(flags);
}

/* t comes onto this CPU (preemption off). */
static void vt_switch_in(struct vt_thread *t)
{
	if (t->set.started && !t->set.running)
		vt_on_cpu(t, vt_resume_locked);
}

/* t leaves this CPU (preemption off). */
static void vt_switch_out(struct vt_thread *t)
{
	if (t->set.running)
		vt_on_cpu(t, vt_fold_locked);
}

static void vt_sched_in(struct preempt_notifier *pn, int cpu)
{
	vt_switch_in(container_of(pn, struct vt_thread, pn));
}

static void vt_sched_out(struct preempt_notifier *pn, struct task_struct *next)
{
	vt_switch_out(container_of(pn, struct vt_thread, pn));
}

static struct preempt_ops vt_preempt_ops = {
	.sched_in = vt_sched_in,
	.sched_out = vt_sched_out,
};

/* ---- Thread exit -------------------------------------------------------------- */

static void vt_free(struct vt_thread *t)
{
	for (u32 i = 0; i < VERTIGO_PV_COUNTERS_MAX; i++)
		if (t->pages[i])
			__free_page(t->pages[i]);
	put_task_struct(t->owner);
	kfree(t);
}

/* Runs in the exiting thread: its counts stop and its notifier goes. */
static void vt_detach_current(struct vt_thread *t)
{
	preempt_disable();
	vt_switch_out(t);
	t->set.started = false;
	if (t->notifier_on)
		preempt_notifier_unregister(&t->pn);
	t->notifier_on = false;
	preempt_enable();
}

static void vt_exit_probe(void *data, struct task_struct *p)
{
	struct vt_thread *t, *tmp;
	LIST_HEAD(dead);

	if (list_empty(&vt_threads))
		return;
	spin_lock(&vt_lock);
	list_for_each_entry_safe(t, tmp, &vt_threads, node) {
		if (t->owner != current)
			continue;
		vt_detach_current(t);
		t->exited = true;
		if (t->closed)
			list_move(&t->node, &dead);
	}
	spin_unlock(&vt_lock);
	list_for_each_entry_safe(t, tmp, &dead, node)
		vt_free(t);
}

/* ---- Requests ------------------------------------------------------------------ */

static int vt_alloc_pages(struct vt_thread *t)
{
	for (u32 i = 0; i < t->set.count; i++) {
		t->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!t->pages[i])
			return -ENOMEM;
	}
	vt_publish(t);
	return 0;
}

/* Checks the events on this CPU (Vertigo parses them) and learns their
 * number: the CPU counts them from now on. */
static long vt_check_events(struct vt_thread *t)
{
	struct vt_cpu *c;
	long ret;

	preempt_disable();
	c = this_cpu_ptr(&vt_cpus);
	ret = vt_program(c, t->events);
	preempt_enable();
	return ret;
}

static long vt_open(struct file *f, struct vertigo_ctr_open __user *uarg)
{
	struct vertigo_ctr_open req;
	struct vt_thread *t;
	bool restricted;
	long n;

	if (!vt_available)
		return -ENOSYS;
	if (f->private_data)
		return -EBUSY;
	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || strnlen(req.events, sizeof(req.events)) == sizeof(req.events) ||
	    !req.events[0])
		return -EINVAL;
	n = vertigo_perm_self_count(req.events, &restricted);
	if (n)
		return n;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->restricted = restricted;
	strscpy(t->events, req.events, sizeof(t->events));
	t->owner = get_task_struct(current);
	preempt_notifier_init(&t->pn, &vt_preempt_ops);
	n = vt_check_events(t);
	if (n > 0) {
		t->set.count = (u32)n;
		n = vt_alloc_pages(t);
	} else if (n == 0) {
		n = -EINVAL;
	}
	if (n) {
		vt_free(t);
		return n;
	}
	req.count = t->set.count;
	if (copy_to_user(uarg, &req, sizeof(req))) {
		vt_free(t);
		return -EFAULT;
	}
	spin_lock(&vt_lock);
	list_add(&t->node, &vt_threads);
	spin_unlock(&vt_lock);
	f->private_data = t;
	return 0;
}

static long vt_start(struct vt_thread *t)
{
	preempt_disable();
	if (!t->notifier_on) {
		preempt_notifier_register(&t->pn);
		t->notifier_on = true;
	}
	t->error = 0;
	t->set.started = true;
	vt_switch_in(t);
	preempt_enable();
	return t->error;
}

static long vt_stop(struct vt_thread *t)
{
	preempt_disable();
	vt_switch_out(t);
	t->set.started = false;
	vt_publish(t);
	preempt_enable();
	return 0;
}

static long vt_reset(struct vt_thread *t)
{
	bool started = t->set.started;

	vt_stop(t);
	preempt_disable();
	memset(t->set.sum, 0, sizeof(t->set.sum));
	t->set.enabled_ticks = 0;
	vertigo_thread_restart_periods(&t->set);
	vt_publish(t);
	preempt_enable();
	return started ? vt_start(t) : 0;
}

static long vt_read(struct vt_thread *t, struct vertigo_ctr_values __user *uarg)
{
	struct vertigo_ctr_values v = { { 0 } };
	u64 now[VERTIGO_PV_COUNTERS_MAX] = { 0 };

	preempt_disable();
	if (t->set.running)
		vt_vcpu_counts(this_cpu_ptr(&vt_cpus), t->set.count, now);
	for (u32 i = 0; i < t->set.count; i++)
		v.values[i] = vertigo_thread_value(&t->set, i, now[i]);
	preempt_enable();
	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* CTR_PERIOD: the set stops (its counts folded: sum is its count now),
 * takes the period and starts again if it was started. */
static long vt_period(struct vt_thread *t, struct vertigo_ctr_period __user *uarg)
{
	struct vertigo_ctr_period req;
	bool started = t->set.started;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (!vt_overflow_on)
		return -ENOSYS;
	if (req.index >= t->set.count || !vertigo_thread_period_ok(req.period) ||
	    (req.period && (!valid_signal(req.signo) || req.signo < 1 ||
			    req.signo == SIGKILL || req.signo == SIGSTOP)))
		return -EINVAL;
	vt_stop(t);
	if (req.period)
		t->signo = req.signo;
	vertigo_thread_set_period(&t->set, req.index, req.period, t->set.sum[req.index]);
	return started ? vt_start(t) : 0;
}

static long vt_stats(struct vertigo_ctr_stats __user *uarg)
{
	struct vertigo_ctr_stats s = {
		.switches_in = atomic64_read(&vt_switches_in),
		.programs = atomic64_read(&vt_programs),
		.vcpu_reads = atomic64_read(&vt_vcpu_reads),
		.overflows = atomic64_read(&vt_overflows),
		.late = atomic64_read(&vt_late),
		.skid_max = (u64)atomic64_read(&vt_skid_max),
	};

	vertigo_overflow_stats(&s);
	return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
}

/* The set of f, if the caller is its thread: NULL and *err otherwise.
 * Once the thread exited anyone holding the fd may read its final
 * counts (vertigo-ctl stat reads its command's). */
static struct vt_thread *vt_own(struct file *f, unsigned int cmd, long *err)
{
	struct vt_thread *t = f->private_data;
	bool final_read = t && cmd == VERTIGO_IOC_CTR_READ && READ_ONCE(t->exited);

	*err = !t ? -ENOENT : t->owner != current && !final_read ? -EPERM : 0;
	return *err ? NULL : t;
}

long vertigo_ctr_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct vt_thread *t;
	long err;

	if (cmd == VERTIGO_IOC_CTR_OPEN)
		return vt_open(f, uarg);
	if (cmd == VERTIGO_IOC_CTR_STATS)
		return vt_stats(uarg);
	t = vt_own(f, cmd, &err);
	if (!t)
		return (cmd >= VERTIGO_IOC_CTR_START && cmd <= VERTIGO_IOC_CTR_READ) ||
		       cmd == VERTIGO_IOC_CTR_PERIOD ? err : -ENOTTY;
	switch (cmd) {
	case VERTIGO_IOC_CTR_START: return vt_start(t);
	case VERTIGO_IOC_CTR_STOP:  return vt_stop(t);
	case VERTIGO_IOC_CTR_RESET: return vt_reset(t);
	case VERTIGO_IOC_CTR_READ:  return vt_read(t, uarg);
	case VERTIGO_IOC_CTR_PERIOD: return vt_period(t, uarg);
	default:                    return -ENOTTY;
	}
}

static void vt_set_vma_flags(struct vm_area_struct *vma)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
#else
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

/* The thread's counter pages, at page offset 0. */
static int vt_map_thread_pages(struct vt_thread *t, struct vm_area_struct *vma)
{
	if (vma->vm_end - vma->vm_start != t->set.count * PAGE_SIZE)
		return -EINVAL;
	for (u32 i = 0; i < t->set.count; i++) {
		int r = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE, t->pages[i]);

		if (r)
			return r;
	}
	return 0;
}

/* Every CPU's page of Vertigo's counts, by CPU number, at page offset
 * VERTIGO_THREAD_VCPU_PGOFF: the thread reads the VCPU it runs on
 * without an exit where the page allows (vertigo_pv_count_now). */
static int vt_map_vcpu_pages(struct vm_area_struct *vma)
{
	unsigned int cpu;

	if (vma->vm_end - vma->vm_start != (unsigned long)nr_cpu_ids * PAGE_SIZE)
		return -EINVAL;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vt_cpu *c;
		int r;

		if (!cpu_possible(cpu))
			return -ENODEV;
		c = per_cpu_ptr(&vt_cpus, cpu);
		r = vm_insert_page(vma, vma->vm_start + cpu * PAGE_SIZE, virt_to_page(c->page));
		if (r)
			return r;
	}
	return 0;
}

int vertigo_ctr_mmap(struct file *f, struct vm_area_struct *vma)
{
	long err;
	struct vt_thread *t = vt_own(f, 0, &err);

	if (!t)
		return (int)err;
	if (t->restricted)            /* the pages carry the VCPU's counts */
		return -EACCES;
	if (vma->vm_flags & VM_WRITE)
		return -EINVAL;
	vt_set_vma_flags(vma);
	if (vma->vm_pgoff == 0)
		return vt_map_thread_pages(t, vma);
	if (vma->vm_pgoff == VERTIGO_THREAD_VCPU_PGOFF) {
		int r = vt_map_vcpu_pages(vma);

		/* The thread's pages tell it where its CPU's page is from its next
		 * switch-in on (a new mapping replaces an earlier one; unmapping it
		 * while reading through it is the thread's own fault, as with perf's
		 * page). */
		if (!r)
			WRITE_ONCE(t->vcpu_pages_uaddr, vma->vm_start);
		return r;
	}
	return -EINVAL;
}

/* Closed by its thread (or after it exited): the set goes now. Closed by
 * another thread while its own still runs: its notifier can only leave
 * that thread's list from that thread, so the exit hook frees it. */
void vertigo_ctr_release(struct file *f)
{
	struct vt_thread *t = f->private_data;
	bool now;

	if (!t)
		return;
	spin_lock(&vt_lock);
	now = !t->notifier_on || t->owner == current;
	if (now)
		list_del(&t->node);
	else
		t->closed = true;
	spin_unlock(&vt_lock);
	if (!now)
		return;
	if (t->notifier_on)
		vt_detach_current(t);
	vt_free(t);
}

/* ---- Load and unload ---------------------------------------------------------- */

static void vt_register_cpu(void *failed)
{
	struct vt_cpu *c = this_cpu_ptr(&vt_cpus);

	if (vertigo_hypercall1(VERTIGO_HC_PV_PAGE, virt_to_phys(c->page)) < 0)
		atomic_set(failed, 1);
}

static void vt_unregister_cpu(void *unused)
{
	vertigo_hypercall1(VERTIGO_HC_PV_PAGE, 0);
}

static void vt_find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		vt_exit_tp = tp;
}

static void vt_free_cpus(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct vt_cpu *c = per_cpu_ptr(&vt_cpus, cpu);

		free_page((unsigned long)c->page);
		kfree(c->prog);
		c->page = NULL;
		c->prog = NULL;
	}
}

static int vt_alloc_cpus(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct vt_cpu *c = per_cpu_ptr(&vt_cpus, cpu);

		c->page = (void *)get_zeroed_page(GFP_KERNEL);
		c->prog = kzalloc(sizeof(*c->prog), GFP_KERNEL);
		if (!c->page || !c->prog)
			return -ENOMEM;
		c->prog->abi_version = VERTIGO_PV_ABI;
	}
	return 0;
}

int vertigo_ctr_init(void)
{
	atomic_t failed = ATOMIC_INIT(0);
	struct vertigo_cpuid_regs f = vertigo_cpuid(VERTIGO_CPUID_FEATURES);

	if (!(f.ebx & VERTIGO_FEAT_PV_COUNTERS)) {
		pr_info("vertigo: no paravirtual counters in this Vertigo\n");
		return 0;
	}
	for_each_kernel_tracepoint(vt_find_exit_tp, NULL);
	if (!vt_exit_tp || vt_alloc_cpus() ||
	    tracepoint_probe_register(vt_exit_tp, vt_exit_probe, NULL)) {
		vt_free_cpus();
		pr_info("vertigo: per-thread counters unavailable (no exit hook or memory)\n");
		return 0;
	}
	on_each_cpu(vt_register_cpu, &failed, 1);
	if (atomic_read(&failed)) {
		on_each_cpu(vt_unregister_cpu, NULL, 1);
		pr_info("vertigo: Vertigo refused a paravirtual counter page\n");
		return 0;
	}
	preempt_notifier_inc();
	vt_available = true;
	vt_overflow_on = vertigo_overflow_init();
	pr_info("vertigo: per-thread counters ready%s\n",
		vt_overflow_on ? ", overflow signals by NMI" : "");
	return 0;
}

void vertigo_ctr_exit(void)
{
	if (!vt_exit_tp)
		return;
	tracepoint_probe_unregister(vt_exit_tp, vt_exit_probe, NULL);
	tracepoint_synchronize_unregister();
	if (vt_available) {
		if (vt_overflow_on)
			vertigo_overflow_exit();
		on_each_cpu(vt_unregister_cpu, NULL, 1);
		preempt_notifier_dec();
	}
	vt_free_cpus();
}
