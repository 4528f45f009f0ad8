/* Session control from guest user mode (bad input): a CPL 3
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
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"
#include "vertigo/log_format.h"

static unsigned passed, failed;

/* 1 if this Vertigo implements sessions, 0 if it predates them. */
static int sessions_known(void)
{
    int fd = vertigo_dev_open();
    if (fd >= 0) {
        struct vertigo_session s = vertigo_session_timer(0, 0);
        int known = vertigo_dev_session_start(fd, &s) == -EINVAL;
        close(fd);
        return known;
    }
    return vertigo_has_features(VERTIGO_FEAT_SAMPLING);
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
    if (!vertigo_present()) {
        printf("reason: not running under Vertigo\n");
        return 1;
    }
    int known = sessions_known();
    int64_t want = known ? -VERTIGO_EPERM : -VERTIGO_ENOSYS;
    printf("user_session: this Vertigo %s sessions\n", known ? "knows" : "predates");
    struct vertigo_session s = vertigo_session_timer(1000, 0);
    static const char text[] = "7f0000001000 20 user_session_probe\n";
    struct vertigo_symbols_chunk c = { .kind = LOG_SYM_JIT_MAP, .pid = (uint32_t)getpid(),
                                       .epoch = 1, .last = 1,
                                       .data = (uint64_t)(uintptr_t)text,
                                       .len = sizeof(text) - 1 };
    expect("VMCALL HC_SESSION_START (valid)",
           vertigo_hypercall1(VERTIGO_HC_SESSION_START, (uint64_t)(uintptr_t)&s), want);
    expect("VMCALL HC_SESSION_STOP", vertigo_hypercall0(VERTIGO_HC_SESSION_STOP), want);
    expect("VMCALL HC_SYMBOLS (valid chunk)",
           vertigo_hypercall1(VERTIGO_HC_SYMBOLS, (uint64_t)(uintptr_t)&c), want);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
