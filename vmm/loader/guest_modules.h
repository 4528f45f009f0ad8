/* Finding the guest's pieces among the boot modules. The GRUB menu tags
 * each module with a role as the first word of its command line:
 *     module2 /boot/vmlinuz kernel console=ttyS0 ...   (rest: guest cmdline)
 *     module2 /boot/initrd.gz initrd
 * Portable and host-tested. */
#ifndef VMM_GUEST_MODULES_H
#define VMM_GUEST_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/loader/boot_info.h"

/* Returns the first module whose role word equals `role`, or NULL. When
 * found and `args` is not NULL, *args points at the rest of its command
 * line after the role word and separating spaces ("" if none). */
const struct boot_module *guest_module_find(const struct boot_info *bi, const char *role,
                                            const char **args);

/* Checks that every role in the NULL-terminated `roles` list is present.
 * On failure writes a specific message into msg ("no 'initrd' module:
 * ...; modules passed: ...") and returns false. */
bool guest_modules_check(const struct boot_info *bi, const char *const *roles,
                         char *msg, size_t msg_size);

#endif
