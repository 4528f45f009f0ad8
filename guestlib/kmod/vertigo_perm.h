/* SPDX-License-Identifier: GPL-2.0 */
/* Who may use /dev/vertigo (mode 0666): the requests that steer the
 * whole guest (sessions, symbols, process identities, multiplexing, the
 * kernel's ORC tables, the module's switch figures) need CAP_SYS_ADMIN in
 * the opener; a thread counting its own events (CTR_OPEN) is allowed by
 * perf's rule for perf_event_open of the calling thread, from the guest's
 * kernel.perf_event_paranoid:
 *   CAP_PERFMON or CAP_SYS_ADMIN   always
 *   paranoid 2 (Linux's default)   events of user mode only (":u")
 *   paranoid 1, 0, -1              events of kernel mode as well
 *   paranoid 3 (Debian's default)  refused (EACCES)
 * A set opened that way with paranoid above 0 is restricted: its pages are
 * not mapped into the thread and it gets no user RDPMC, because both carry
 * the VCPU's count of the events, the sum of every thread that ran there,
 * which perf shows an unprivileged user only at paranoid 0 or below (a
 * CPU-wide count). Its reads go through CTR_READ, exact all the same. */
#ifndef GUESTLIB_KMOD_VERTIGO_PERM_H
#define GUESTLIB_KMOD_VERTIGO_PERM_H

#include <linux/fs.h>
#include <linux/types.h>

/* Whether f was opened with CAP_SYS_ADMIN. */
bool vertigo_perm_admin(const struct file *f);

/* Whether the calling thread may count events (the CTR_OPEN string) for
 * itself: 0, with *restricted set for a set to keep to CTR_READ, or
 * -EACCES. */
int vertigo_perm_self_count(const char *events, bool *restricted);

#endif
