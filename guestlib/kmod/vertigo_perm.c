// SPDX-License-Identifier: GPL-2.0
/* Who may use /dev/vertigo (see vertigo_perm.h). */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "guestlib/kmod/vertigo_perm.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define PARANOID_DENY 3         /* what an unreadable setting counts as */

bool vertigo_perm_admin(const struct file *f)
{
	return file_ns_capable(f, &init_user_ns, CAP_SYS_ADMIN);
}

/* kernel.perf_event_paranoid: the kernel keeps it in a variable it does
 * not export to modules, so it is read as user space reads it. */
static int vt_paranoid(void)
{
	char buf[16] = { 0 };
	loff_t pos = 0;
	struct file *f = filp_open(PARANOID_PATH, O_RDONLY, 0);
	ssize_t n;
	int value;

	if (IS_ERR(f))
		return PARANOID_DENY;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &value))
		return PARANOID_DENY;
	return value;
}

/* Whether an event of the list counts kernel mode: one without a mode
 * suffix counts every mode, one with counts those its letters name. */
static bool vt_counts_kernel(const char *events)
{
	while (*events) {
		size_t len = strcspn(events, ",");
		const char *colon = strnchr(events, len, ':');

		if (!colon || strnchr(colon, len - (size_t)(colon - events), 'k'))
			return true;
		events += len + (events[len] == ',');
	}
	return false;
}

int vertigo_perm_self_count(const char *events, bool *restricted)
{
	int paranoid;

	*restricted = false;
	if (perfmon_capable())
		return 0;
	paranoid = vt_paranoid();
	if (paranoid > 2 || (paranoid > 1 && vt_counts_kernel(events)))
		return -EACCES;
	*restricted = paranoid > 0;
	return 0;
}
