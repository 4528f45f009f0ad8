// SPDX-License-Identifier: GPL-2.0
/* vertigo.ko's device: the guest kernel's side of Vertigo's kernel-only
 * hypercalls.
 * Owns /dev/vertigo (a misc device, mode 0666: vertigo_perm.h says who
 * may make which request; the guest-wide ones need CAP_SYS_ADMIN),
 * whose ioctls (guestlib/kmod/vertigo_ioctl.h) copy a user request into
 * kernel memory and make the VMCALL from CPL 0: session start/stop, symbol
 * chunks, process identities (PID, page-table root, comm) and the
 * declaration of the kernel's ORC unwind tables. Vertigo
 * reads a hypercall's guest-virtual arguments through the current CR3, so
 * kmalloc'd buffers are what it is given. Refuses to load (-ENODEV) unless
 * CPUID 0x40000000 carries Vertigo's signature. The VMCALL, that check and
 * the errno of a hypercall error come from guestlib/vertigo_vmcall.h, which
 * the guest programs share. The per-thread counters' requests, mapping and
 * release are vertigo_threads.c's; the exec and fork watch that names
 * each new address space is vertigo_procwatch.c's. */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/orc_types.h>
#include <asm/page.h>

#include "vertigo/hypercall.h"
#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/kmod/vertigo_perm.h"
#include "guestlib/kmod/vertigo_procwatch.h"
#include "guestlib/kmod/vertigo_threads.h"
#include "guestlib/vertigo_vmcall.h"

#define VERTIGO_IDENTITY_LINE_MAX 64   /* "PID CR3 COMM\n": 10 + 16 + 15 + 3 */

/* Hypercall `nr` whose one argument (RBX) is the kernel buffer `arg`:
 * 0 or -errno. */
static long vertigo_call(u64 nr, const void *arg)
{
	return -vertigo_errno(vertigo_hypercall1(nr, (u64)(uintptr_t)arg));
}

/* Hypercall `nr` on a kernel copy of the user's `size`-byte argument. */
static long vertigo_ioc_start(u64 nr, void __user *uarg, size_t size)
{
	void *s = memdup_user(uarg, size);
	long ret;

	if (IS_ERR(s))
		return PTR_ERR(s);
	ret = vertigo_call(nr, s);
	kfree(s);
	return ret;
}

/* Hypercall `nr` without argument; its count (samples, rows) to *uarg. */
static long vertigo_ioc_stop(u64 nr, u64 __user *uarg)
{
	s64 r = vertigo_hypercall0(nr);
	u64 count = r > 0 ? (u64)r : 0;

	if (r < 0)
		return -vertigo_errno(r);
	return put_user(count, uarg);
}

/* Ships one chunk whose data already lives in kernel memory. */
static long vertigo_ship_kernel(struct vertigo_symbols_chunk *c)
{
	return vertigo_call(VERTIGO_HC_SYMBOLS, c);
}

static long vertigo_ioc_symbols(void __user *uarg)
{
	struct vertigo_symbols_chunk *c = memdup_user(uarg, sizeof(*c));
	void *data = NULL;
	long ret;

	if (IS_ERR(c))
		return PTR_ERR(c);
	/* The only field the module must trust is len: it bounds the copy. */
	ret = -EMSGSIZE;
	if (c->len > VERTIGO_SYMBOLS_CHUNK_MAX)
		goto out;
	if (c->len) {
		data = memdup_user(u64_to_user_ptr(c->data), c->len);
		if (IS_ERR(data)) {
			ret = PTR_ERR(data);
			data = NULL;
			goto out;
		}
	}
	c->data = (u64)(uintptr_t)data;
	ret = vertigo_ship_kernel(c);
out:
	kfree(data);
	kfree(c);
	return ret;
}

/* The ORC layout of the kernel this module is built for: Linux 6.4 made
 * the type field 3 bits with END_OF_STACK among the types (the 1-bit
 * "end" flag before). */
#ifdef ORC_TYPE_END_OF_STACK
#define VERTIGO_ORC_FORMAT VERTIGO_ORC_LINUX_V2
#else
#define VERTIGO_ORC_FORMAT VERTIGO_ORC_LINUX_V1
#endif

static long vertigo_ioc_kernel_orc(void __user *uarg)
{
	struct vertigo_kernel_orc *k = memdup_user(uarg, sizeof(*k));
	long ret;

	if (IS_ERR(k))
		return PTR_ERR(k);
	if (k->format != VERTIGO_ORC_FRAME_POINTER)
		k->format = VERTIGO_ORC_FORMAT;
	ret = vertigo_call(VERTIGO_HC_KERNEL_ORC, k);
	kfree(k);
	return ret;
}

/* The page-table root and comm (sanitized: one line, printable) of pid's
 * address space. */
static long vertigo_identify(pid_t pid, u64 *cr3, char comm[VERTIGO_COMM_LEN])
{
	char name[TASK_COMM_LEN];

	struct task_struct *task;
	struct mm_struct *mm;

	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	if (mm) {
		*cr3 = __pa(mm->pgd);
		get_task_comm(name, task);
		strscpy(comm, name, VERTIGO_COMM_LEN);
		vertigo_comm_sanitize(comm);
		mmput(mm);
	}
	put_task_struct(task);
	return mm ? 0 : -ENOENT;
}

static long vertigo_ship_identity(const struct vertigo_process_query *q)
{
	struct vertigo_symbols_chunk *c = kzalloc(sizeof(*c), GFP_KERNEL);
	char *line = kmalloc(VERTIGO_IDENTITY_LINE_MAX, GFP_KERNEL);
	long ret = -ENOMEM;

	if (c && line) {
		c->kind = 4;    /* LOG_SYM_PROCESS (include/vertigo/log_format.h) */
		c->pid = q->pid;
		c->last = 1;
		c->len = scnprintf(line, VERTIGO_IDENTITY_LINE_MAX, "%u %llx %s\n",
				   q->pid, q->cr3, q->comm);
		c->data = (u64)(uintptr_t)line;
		ret = vertigo_ship_kernel(c);
	}
	kfree(line);
	kfree(c);
	return ret;
}

static long vertigo_ioc_process(void __user *uarg)
{
	struct vertigo_process_query q;
	long ret;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	if (q.reserved || q.pid == 0 || q.pid > PID_MAX_LIMIT)
		return -EINVAL;
	memset(q.comm, 0, sizeof(q.comm));
	ret = vertigo_identify(q.pid, &q.cr3, q.comm);
	if (ret)
		return ret;
	ret = vertigo_ship_identity(&q);
	if (copy_to_user(uarg, &q, sizeof(q)))
		return -EFAULT;
	return ret;
}

/* Fills out[] with up to cap user processes; returns how many. */
static u32 vertigo_collect(struct vertigo_process_entry *out, u32 cap)
{
	struct task_struct *p;
	u32 n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		task_lock(p);
		if (p->mm) {
			out[n].pid = task_tgid_nr(p);
			out[n].reserved = 0;
			out[n].cr3 = __pa(p->mm->pgd);
			n++;
		}
		task_unlock(p);
	}
	rcu_read_unlock();
	return n;
}

static long vertigo_ioc_list(void __user *uarg)
{
	struct vertigo_process_list l;
	struct vertigo_process_entry *e;
	long ret = 0;

	if (copy_from_user(&l, uarg, sizeof(l)))
		return -EFAULT;
	if (l.capacity == 0 || l.capacity > VERTIGO_PROCESS_MAX)
		return -EINVAL;
	e = kvmalloc_array(l.capacity, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	l.count = vertigo_collect(e, l.capacity);
	if (copy_to_user(u64_to_user_ptr(l.entries), e, (size_t)l.count * sizeof(*e)) ||
	    copy_to_user(uarg, &l, sizeof(l)))
		ret = -EFAULT;
	kvfree(e);
	return ret;
}

/* The requests a thread makes about its own counters (vertigo_threads.c
 * checks those against perf's rule); every other request steers the whole
 * guest and needs CAP_SYS_ADMIN, a request added later included. */
static bool vertigo_self_request(unsigned int cmd)
{
	switch (cmd) {
	case VERTIGO_IOC_CTR_OPEN: case VERTIGO_IOC_CTR_START: case VERTIGO_IOC_CTR_STOP:
	case VERTIGO_IOC_CTR_RESET: case VERTIGO_IOC_CTR_READ: case VERTIGO_IOC_CTR_PERIOD:
		return true;
	default:
		return false;
	}
}

static long vertigo_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (!vertigo_self_request(cmd) && !vertigo_perm_admin(f))
		return -EACCES;
	switch (cmd) {
	case VERTIGO_IOC_START:
		return vertigo_ioc_start(VERTIGO_HC_SESSION_START, uarg, sizeof(struct vertigo_session));
	case VERTIGO_IOC_STOP:    return vertigo_ioc_stop(VERTIGO_HC_SESSION_STOP, uarg);
	case VERTIGO_IOC_MUX_START:
		return vertigo_ioc_start(VERTIGO_HC_MUX_START, uarg, sizeof(struct vertigo_mux));
	case VERTIGO_IOC_MUX_STOP: return vertigo_ioc_stop(VERTIGO_HC_MUX_STOP, uarg);
	case VERTIGO_IOC_SYMBOLS: return vertigo_ioc_symbols(uarg);
	case VERTIGO_IOC_PROCESS: return vertigo_ioc_process(uarg);
	case VERTIGO_IOC_LIST:    return vertigo_ioc_list(uarg);
	case VERTIGO_IOC_KERNEL_ORC: return vertigo_ioc_kernel_orc(uarg);
	default:                  return vertigo_ctr_ioctl(f, cmd, arg);
	}
}

/* Anyone may open it; each request checks its caller (vertigo_perm.h).
 * The misc core leaves the miscdevice in private_data: the fd's counter
 * set (vertigo_threads.c) goes there instead, none at first. */
static int vertigo_open(struct inode *inode, struct file *f)
{
	f->private_data = NULL;
	return 0;
}

static int vertigo_release(struct inode *inode, struct file *f)
{
	vertigo_ctr_release(f);
	return 0;
}

static const struct file_operations vertigo_fops = {
	.owner = THIS_MODULE,
	.open = vertigo_open,
	.release = vertigo_release,
	.mmap = vertigo_ctr_mmap,
	.unlocked_ioctl = vertigo_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice vertigo_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vertigo",
	.fops = &vertigo_fops,
	.mode = 0666,
};

static int __init vertigo_init(void)
{
	int ret;

	if (!vertigo_present()) {
		pr_info("vertigo: not running under Vertigo (CPUID 0x40000000 signature absent)\n");
		return -ENODEV;
	}
	vertigo_ctr_init();
	ret = misc_register(&vertigo_misc);
	if (ret) {
		vertigo_ctr_exit();
		return ret;
	}
	vertigo_procwatch_init();
	pr_info("vertigo: /dev/vertigo ready\n");
	return 0;
}

static void __exit vertigo_exit(void)
{
	vertigo_procwatch_exit();
	misc_deregister(&vertigo_misc);
	vertigo_ctr_exit();
}

module_init(vertigo_init);
module_exit(vertigo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Vertigo hypervisor guest interface: sessions, symbols, process identities, per-thread counters");
