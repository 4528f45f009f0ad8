/* Session control from guest user mode (issue 6, bad input): a CPL 3
 * program making the kernel-only hypercalls HC_SESSION_START, _STOP and
 * HC_SYMBOLS itself, with well-formed arguments, must get -VERTIGO_EPERM.
 *
 *   user_session
 * A Vertigo that predates sessions answers -VERTIGO_ENOSYS instead; which
 * one this is comes from /dev/vertigo when vertigo.ko is loaded (a START
 * with timer_hz 0 from kernel mode gives EINVAL only where sessions
 * exist), else from the VERTIGO_FEAT_SAMPLING feature bit.
 * Prints one line per call, "reason: ..." on failure and
 * "N passed, N failed"; exits 0 when nothing failed. */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "vertigo/log_format.h"

static unsigned passed, failed;

static int64_t hypercall(uint64_t nr, uint64_t a0)
{
    int64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(0ull) : "memory");
    return ret;
}

static int under_vertigo(void)
{
    unsigned int eax, ebx, ecx, edx;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!(ecx & (1u << 31)))
        return 0;
    __cpuid(VERTIGO_CPUID_BASE, eax, ebx, ecx, edx);
    return ebx == VERTIGO_CPUID_SIG_EBX && ecx == VERTIGO_CPUID_SIG_ECX &&
           edx == VERTIGO_CPUID_SIG_EDX;
}

/* 1 if this Vertigo implements sessions, 0 if it predates them. */
static int sessions_known(void)
{
    int fd = open(VERTIGO_DEV_PATH, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI,
                                     .flags = VERTIGO_SESSION_TIMER };
        int known = ioctl(fd, VERTIGO_IOC_START, &s) != 0 && errno == EINVAL;
        close(fd);
        return known;
    }
    unsigned int eax, ebx, ecx, edx;
    __cpuid(VERTIGO_CPUID_FEATURES, eax, ebx, ecx, edx);
    return (ebx & VERTIGO_FEAT_SAMPLING) != 0;
}

static void expect(const char *what, int64_t got, int64_t want)
{
    int ok = got == want;
    printf("user_session: %-36s -> %lld (want %lld)%s\n", what, (long long)got,
           (long long)want, ok ? "" : "  <-- FAIL");
    if (ok) {
        passed++;
        return;
    }
    if (!failed)
        printf("reason: %s from CPL 3 gave %lld, expected %lld\n", what, (long long)got,
               (long long)want);
    failed++;
}

int main(void)
{
    if (!under_vertigo()) {
        printf("reason: not running under Vertigo\n");
        return 1;
    }
    int known = sessions_known();
    int64_t want = known ? -VERTIGO_EPERM : -VERTIGO_ENOSYS;
    printf("user_session: this Vertigo %s sessions\n", known ? "knows" : "predates");
    struct vertigo_session s = { .abi_version = VERTIGO_SESSION_ABI,
                                 .flags = VERTIGO_SESSION_TIMER, .timer_hz = 1000 };
    static const char text[] = "7f0000001000 20 user_session_probe\n";
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_JIT_MAP, .pid = (uint32_t)getpid(),
                                       .epoch = 1, .last = 1,
                                       .data = (uint64_t)(uintptr_t)text,
                                       .len = sizeof(text) - 1 };
    expect("VMCALL HC_SESSION_START (valid)", hypercall(VERTIGO_HC_SESSION_START,
                                                        (uint64_t)(uintptr_t)&s), want);
    expect("VMCALL HC_SESSION_STOP", hypercall(VERTIGO_HC_SESSION_STOP, 0), want);
    expect("VMCALL HC_SYMBOLS (valid chunk)", hypercall(VERTIGO_HC_SYMBOLS,
                                                        (uint64_t)(uintptr_t)&c), want);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
