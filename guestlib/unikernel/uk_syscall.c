/* The system calls behind INT 0x80 (CPL 0): console output of the program's
 * stdout and stderr, and its exit. Errors are newlib's errno values,
 * negated. */
#include <errno.h>

#include "guestlib/unikernel/uk_kernel.h"
#include "guestlib/vertigo_vmcall.h"

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

/* The 2 MiB page at or past the end of the domain's RAM that holds addr,
 * mapped for the program, which then reads or writes memory the domain
 * does not have (Vertigo must stop it there). */
static int64_t sys_map_past_ram(uint64_t addr)
{
    const uint64_t large = 0x200000ull, map_end = 4ull << 30;
    if (addr < uk_boot_info.mem_bytes || addr >= map_end)
        return -EINVAL;
    uk_paging_map_large(addr & ~(large - 1));
    return 0;
}

static int64_t sys_console_raw(uint64_t addr, uint64_t len)
{
    return vertigo_hypercall2(VERTIGO_HC_CONSOLE_WRITE, addr, len);
}

/* An IDT with no gate at all: the #UD, then the #GP of its missing gate,
 * then the #DF of that, find nothing, and the processor shuts down. Under
 * VMX that shutdown is a triple-fault VM exit (SDM Vol. 3C 25.2), which
 * Vertigo turns into this domain's end. */
static void sys_triple_fault(void) __attribute__((noreturn));
static void sys_triple_fault(void)
{
    static const struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } no_gates = { 0, 0 };
    __asm__ volatile("lidt %0\n\tud2" : : "m"(no_gates));
    __builtin_unreachable();
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
    case UK_SYS_MAP_PAST_RAM:
        return sys_map_past_ram(a0);
    case UK_SYS_CONSOLE_RAW:
        return sys_console_raw(a0, a1);
    case UK_SYS_TRIPLE_FAULT:
        sys_triple_fault();
    case UK_SYS_HYPERCALL:
        return vertigo_hypercall2(a0, a1, a2);
    case UK_SYS_PROBE:
        return uk_probe(a0, a1, a2);
    default:
        return -ENOSYS;
    }
}
