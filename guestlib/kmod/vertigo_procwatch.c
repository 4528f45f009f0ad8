// SPDX-License-Identifier: GPL-2.0
/* vertigo.ko's process watch: every new user address space is named in
 * the log before it runs one user instruction. At each exec (the
 * sched_process_exec tracepoint, in the task, on its new page tables,
 * after the new program is mapped) and each fork of a process (the
 * sched_process_fork tracepoint, in the parent, before the child is
 * woken; threads share their parent's address space and are skipped), the
 * module ships the address space's executable file mappings and its
 * [vdso] as /proc/PID/maps lines (a maps set, kind 2) and its identity "PID CR3
 * COMM" (kind 4) through the symbols hypercall. The agent's scans, every
 * 100 ms, ship the whole maps later (libraries a dynamic program maps
 * after its start); without this watch, a program that exec'd and ran
 * for less than a scan was resolved against the maps of whatever used
 * its pid or page-table root before.
 *
 * An exec switches to its new page tables (exec_mmap's activate_mm) long
 * before sched_process_exec: the old mm is freed and the new program
 * mapped in between, with the task's user RIP still in its old program.
 * The new root may be the freed root of another, finished process, so
 * samples there were named after that process. The tlb_flush tracepoint
 * fires in switch_mm_irqs_off right after each CR3 load: when the task
 * loading it is in an exec and the new root is its own mm's, the identity
 * (with the old comm) is shipped there, a few instructions after the
 * switch, before the task runs on. A context switch runs the same
 * tracepoint with current still the previous task, whose mm is not the
 * one loaded, so only the exec's own switch passes the test.
 *
 * Tracepoint probes run with preemption disabled: the text is built in
 * per-CPU buffers (a set longer than one buffer goes out in several
 * chunks), the mappings are read under mmap_read_trylock (the
 * task has just released its own lock; a contended lock ships the
 * identity alone), d_path takes no sleeping lock. */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <asm/page.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "vertigo/hypercall.h"
#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/kmod/vertigo_procwatch.h"
#include "guestlib/vertigo_vmcall.h"

#define VPW_KIND_MAPS 2u        /* LOG_SYM_PROC_MAPS (include/vertigo/log_format.h) */
#define VPW_KIND_IDENTITY 4u    /* LOG_SYM_PROCESS */
/* The sets this watch ships use epoch 1 (the agent's use 0), so a
 * one-chunk set shipped at an exec never lands inside the agent's
 * several-chunk set of the same pid, which Vertigo and the host
 * reassemble per (pid, kind, epoch). */
#define VPW_EPOCH 1u
#define VPW_PATH_MAX 256u
#define VPW_LINE_MAX (VPW_PATH_MAX + 96u)

struct vpw_buf {
	struct vertigo_symbols_chunk chunk;
	char text[VERTIGO_SYMBOLS_CHUNK_MAX];
	char path[VPW_PATH_MAX];
};

static DEFINE_PER_CPU(struct vpw_buf, vpw_bufs);
static struct tracepoint *vpw_exec_tp, *vpw_fork_tp, *vpw_switch_tp;
static bool vpw_exec_on, vpw_fork_on, vpw_switch_on;

/* Ships b->text[0..len) as chunk `chunk` of a set (the last one when
 * last). */
static void vpw_ship_chunk(struct vpw_buf *b, u32 kind, pid_t pid, u32 chunk, bool last,
			   size_t len)
{
	b->chunk = (struct vertigo_symbols_chunk){
		.kind = kind, .pid = (u32)pid, .epoch = VPW_EPOCH, .chunk = chunk,
		.last = last ? 1 : 0, .len = (u32)len, .data = (u64)(uintptr_t)b->text,
	};
	vertigo_hypercall1(VERTIGO_HC_SYMBOLS, (u64)(uintptr_t)&b->chunk);
}

static void vpw_ship(struct vpw_buf *b, u32 kind, pid_t pid, size_t len)
{
	vpw_ship_chunk(b, kind, pid, 0, true, len);
}

/* The name /proc/PID/maps gives an executable mapping of no file: a
 * special mapping's ("[vdso]"), or NULL. */
static const char *vpw_special_name(struct vm_area_struct *vma)
{
	return vma->vm_ops && vma->vm_ops->name ? vma->vm_ops->name(vma) : NULL;
}

/* One maps line of vma into b->text at len; the new length (len when
 * the line names no path). When the line does not fit after what b->text
 * holds, that is shipped first as chunk *chunk of the task's set (a
 * program with many libraries, such as perf, needs several). A special
 * mapping's line is /proc/PID/maps' (offset 0, inode 0, its bracketed
 * name). */
static size_t vpw_maps_line(struct vpw_buf *b, size_t len, struct vm_area_struct *vma,
			    pid_t tgid, u32 *chunk)
{
	char line[VPW_LINE_MAX];
	const char *path = vma->vm_file ? d_path(&vma->vm_file->f_path, b->path, sizeof(b->path))
					: vpw_special_name(vma);
	int n;

	if (!path || IS_ERR(path))
		return len;
	n = scnprintf(line, sizeof(line), "%lx-%lx %c%c%c%c %08llx 00:00 %lu %s\n",
		      vma->vm_start, vma->vm_end, vma->vm_flags & VM_READ ? 'r' : '-',
		      vma->vm_flags & VM_WRITE ? 'w' : '-', 'x',
		      vma->vm_flags & VM_SHARED ? 's' : 'p',
		      vma->vm_file ? (unsigned long long)vma->vm_pgoff << PAGE_SHIFT : 0ull,
		      vma->vm_file ? file_inode(vma->vm_file)->i_ino : 0ul, path);
	if (len + n > sizeof(b->text)) {
		vpw_ship_chunk(b, VPW_KIND_MAPS, tgid, (*chunk)++, false, len);
		len = 0;
	}
	memcpy(b->text + len, line, n);
	return len + n;
}

/* Ships the identity "PID CR3 COMM" of task's mm. */
static void vpw_ship_identity(struct vpw_buf *b, struct task_struct *task, struct mm_struct *mm)
{
	char comm[VERTIGO_COMM_LEN];
	size_t len;

	strscpy(comm, task->comm, sizeof(comm));
	vertigo_comm_sanitize(comm);
	len = scnprintf(b->text, sizeof(b->text), "%u %llx %s\n", task->tgid,
			(unsigned long long)__pa(mm->pgd), comm);
	vpw_ship(b, VPW_KIND_IDENTITY, task->tgid, len);
}

/* Ships the executable file mappings, the [vdso], and the identity of
 * task's mm. */
static void vpw_ship_process(struct task_struct *task, struct mm_struct *mm)
{
	struct vpw_buf *b = this_cpu_ptr(&vpw_bufs);
	struct vm_area_struct *vma;
	size_t len = 0;
	u32 chunk = 0;

	if (mmap_read_trylock(mm)) {
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma)
			if ((vma->vm_flags & VM_EXEC) && (vma->vm_file || vpw_special_name(vma)))
				len = vpw_maps_line(b, len, vma, task->tgid, &chunk);
		mmap_read_unlock(mm);
	}
	if (len)
		vpw_ship_chunk(b, VPW_KIND_MAPS, task->tgid, chunk, true, len);
	vpw_ship_identity(b, task, mm);
}

static void vpw_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	if (p->mm && p == current)
		vpw_ship_process(p, p->mm);
}

static void vpw_fork_probe(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (child->mm && child->mm != parent->mm && child->pid == child->tgid)
		vpw_ship_process(child, child->mm);
}

/* tlb_flush(reason, pages): after every CR3 load of switch_mm_irqs_off
 * (and after TLB flushes, where current's mm is not being loaded anew or
 * the task is in no exec). Interrupts are off here. */
static void vpw_switch_probe(void *data, int reason, unsigned long pages)
{
	struct mm_struct *mm = current->mm;

	if (reason != TLB_FLUSH_ON_TASK_SWITCH || !current->in_execve || !mm ||
	    __pa(mm->pgd) != (__read_cr3() & CR3_ADDR_MASK))
		return;
	vpw_ship_identity(this_cpu_ptr(&vpw_bufs), current, mm);
}

static void vpw_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		vpw_exec_tp = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		vpw_fork_tp = tp;
	else if (!strcmp(tp->name, "tlb_flush"))
		vpw_switch_tp = tp;
}

void vertigo_procwatch_init(void)
{
	for_each_kernel_tracepoint(vpw_find_tps, NULL);
	vpw_exec_on = vpw_exec_tp && !tracepoint_probe_register(vpw_exec_tp, vpw_exec_probe, NULL);
	vpw_fork_on = vpw_fork_tp && !tracepoint_probe_register(vpw_fork_tp, vpw_fork_probe, NULL);
	vpw_switch_on = vpw_switch_tp &&
			!tracepoint_probe_register(vpw_switch_tp, vpw_switch_probe, NULL);
	pr_info("vertigo: process watch: exec %s, fork %s, exec switch %s\n",
		vpw_exec_on ? "on" : "off", vpw_fork_on ? "on" : "off",
		vpw_switch_on ? "on" : "off");
}

void vertigo_procwatch_exit(void)
{
	if (vpw_exec_on)
		tracepoint_probe_unregister(vpw_exec_tp, vpw_exec_probe, NULL);
	if (vpw_fork_on)
		tracepoint_probe_unregister(vpw_fork_tp, vpw_fork_probe, NULL);
	if (vpw_switch_on)
		tracepoint_probe_unregister(vpw_switch_tp, vpw_switch_probe, NULL);
	if (vpw_exec_on || vpw_fork_on || vpw_switch_on)
		tracepoint_synchronize_unregister();
}
