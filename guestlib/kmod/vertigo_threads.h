/* Per-thread paravirtual counters of vertigo.ko (vertigo_threads.c), as
 * the device (vertigo_dev.c) calls them. */
#ifndef GUESTLIB_KMOD_VERTIGO_THREADS_H
#define GUESTLIB_KMOD_VERTIGO_THREADS_H

#include <linux/fs.h>
#include <linux/mm_types.h>

/* At load: registers every CPU's counter page with Vertigo. Always 0: a
 * Vertigo without paravirtual counters leaves the CTR_ requests ENOSYS. */
int vertigo_ctr_init(void);
void vertigo_ctr_exit(void);

/* The VERTIGO_IOC_CTR_* requests; -ENOTTY for any other. */
long vertigo_ctr_ioctl(struct file *f, unsigned int cmd, unsigned long arg);

/* mmap of the fd's counter pages (read-only, its thread only). */
int vertigo_ctr_mmap(struct file *f, struct vm_area_struct *vma);

/* The fd's last close. */
void vertigo_ctr_release(struct file *f);

/* i-mode, for vertigo_overflow.c: this CPU's count of overflow
 * interrupts Vertigo raised (its page's), and the NMI handler's work:
 * the thread armed on this CPU is checked, signalled and re-armed. */
u64 vertigo_ctr_interrupts_raised(void);
void vertigo_ctr_overflow_interrupt(void);

#endif
