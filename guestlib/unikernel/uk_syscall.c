/* The system calls behind INT 0x80 (CPL 0): console output of the program's
 * stdout and stderr, and its exit. Errors are newlib's errno values,
 * negated. */
#include <errno.h>

#include "guestlib/unikernel/uk_kernel.h"

#define UK_STDOUT  1
#define UK_STDERR  2
#define LOW_UNMAPPED 0x200000ull   /* uk_paging.c leaves [0, 2 MiB) unmapped */

/* The buffer lies inside the RAM the program sees (no wrap). */
static int user_range_ok(uint64_t addr, uint64_t len)
{
    return addr >= LOW_UNMAPPED && len <= uk_boot_info.mem_bytes &&
           addr <= uk_boot_info.mem_bytes - len;
}

static int64_t sys_write(uint64_t fd, uint64_t buf, uint64_t len)
{
    if (fd != UK_STDOUT && fd != UK_STDERR)
        return -EBADF;
    if (!user_range_ok(buf, len))
        return -EFAULT;
    uk_console_write((const char *)buf, len);
    return (int64_t)len;
}

/* "exit status N" as the verdict's reason. */
static void sys_exit(uint64_t status) __attribute__((noreturn));
static void sys_exit(uint64_t status)
{
    static char reason[32] = "exit status ";
    char digits[12];
    int32_t s = (int32_t)status;
    uint32_t v = s < 0 ? 0u - (uint32_t)s : (uint32_t)s;
    size_t n = 12, d = sizeof(digits);

    do {
        digits[--d] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (s < 0)
        reason[n++] = '-';
    while (d < sizeof(digits))
        reason[n++] = digits[d++];
    reason[n] = 0;
    uk_end(s == 0, s == 0 ? 0 : reason);
}

int64_t uk_syscall(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
    switch (nr) {
    case UK_SYS_WRITE:
        return sys_write(a0, a1, a2);
    case UK_SYS_EXIT:
        sys_exit(a0);
    default:
        return -ENOSYS;
    }
}
