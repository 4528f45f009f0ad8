/* ukfault's hostile mode (see ukhostile.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/vertigo_uk.h"
#include "guestlib/unikernel/tests/ukhostile.h"
#include "guestlib/unikernel/tests/uksession.h"

#define VEC_UD 6
#define VEC_GP 13
#define NONCANONICAL 0x8000000000000000ull
#define SYMBOL_SETS 17
#define LOG_FLOOD_CHUNKS 200
#define CONSOLE_FLOOD_WRITES 48
#define CONSOLE_LINE 100

static int failures;

/* One case: its result and the one it must have. */
static void expect(const char *what, int64_t got, int64_t want)
{
    bool ok = got == want;
    printf("ukfault: %s: %s (%lld)\n", what, ok ? "refused" : "ACCEPTED", (long long)got);
    failures += !ok;
}

static int64_t probe(uint64_t kind, uint64_t a, uint64_t b)
{
    return vertigo_uk_syscall(UK_SYS_PROBE, kind, a, b);
}

static int64_t kernel_call(uint64_t nr, uint64_t a, uint64_t b)
{
    return vertigo_uk_syscall(UK_SYS_HYPERCALL, nr, a, b);
}

static void msrs(void)
{
    static const struct { uint32_t msr; uint64_t value; const char *what; } bad[] = {
        { 0xc0000103, 1ull << 32, "wrmsr TSC_AUX with bits 63:32 set" },
        { 0xc0000084, 1ull << 32, "wrmsr SFMASK with bits 63:32 set" },
        { 0x277, 0x0007040600070402ull, "wrmsr PAT with reserved type 2" },
        { 0x175, NONCANONICAL, "wrmsr SYSENTER_ESP non-canonical" },
        { 0x176, NONCANONICAL, "wrmsr SYSENTER_EIP non-canonical" },
        { 0xc0000082, NONCANONICAL, "wrmsr LSTAR non-canonical" },
        { 0xda0, 1ull << 8, "wrmsr XSS with Intel PT's bit 8" },
        { 0xc0000102, NONCANONICAL, "wrmsr KERNEL_GS_BASE non-canonical" },
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect(bad[i].what, probe(UK_PROBE_WRMSR, bad[i].msr, bad[i].value), -VEC_GP);
    /* A unikernel may write only the segment bases (the runtime uses
     * none of them), and those with a canonical address: the check is
     * the value's, not the MSR's. */
    expect("wrmsr KERNEL_GS_BASE canonical: taken (0 expected)",
           probe(UK_PROBE_WRMSR, 0xc0000102, 0x1000), 0);
}

static void xsave_state(void)
{
    unsigned int a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
    bool xsaves = (a & (1u << 3)) != 0;
    printf("ukfault: cpuid 0xd.1: XSAVES %s, supervisor components ecx %#x edx %#x\n",
           xsaves ? "on" : "off", c, d);
    failures += (c | d) != 0;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(8));
    printf("ukfault: cpuid 0xd.8 (Intel PT's component): %#x %#x %#x %#x\n", a, b, c, d);
    failures += (a | b | c | d) != 0;
    expect(xsaves ? "xrstors of Intel PT state (#GP)" : "xrstors of Intel PT state (#UD: no XSAVES)",
           probe(UK_PROBE_XRSTORS_PT, 0, 0), xsaves ? -VEC_GP : -VEC_UD);
}

static void sessions(void)
{
    static struct vertigo_session s;
    uksession_fill(&s, 1);
    expect("sampling session with period 1", kernel_call(VERTIGO_HC_SESSION_START,
                                                         (uint64_t)&s, 0), -VERTIGO_EINVAL);
    s.period = 100000;
    expect("sampling session beside the command line's",
           kernel_call(VERTIGO_HC_SESSION_START, (uint64_t)&s, 0), -VERTIGO_EBUSY);
    expect("stopping the command line's session", kernel_call(VERTIGO_HC_SESSION_STOP, 0, 0),
           -VERTIGO_EPERM);
}

static char text[VERTIGO_SYMBOLS_CHUNK_MAX];

static int64_t ship(uint32_t pid, uint32_t chunk)
{
    static struct vertigo_symbols_chunk c;
    c = (struct vertigo_symbols_chunk){ .kind = 2 /* process maps */, .pid = pid, .chunk = chunk,
                                        .data = (uint64_t)text, .len = sizeof(text) };
    return kernel_call(VERTIGO_HC_SYMBOLS, (uint64_t)&c, 0);
}

static void symbols(void)
{
    static const char line[] = "00400000-00401000 r-xp 00000000 00:00 0 /hostile\n";
    size_t n = strlen(line);
    for (size_t i = 0; i + n <= sizeof(text); i += n)
        memcpy(text + i, line, n);
    int64_t opened = 0;
    for (uint32_t pid = 1; pid <= SYMBOL_SETS; pid++)
        opened += ship(pid, 0) == 0;
    printf("ukfault: %d symbol sets opened at once\n", (int)opened);
    failures += opened != SYMBOL_SETS;
    expect("17 symbol sets: the first given up", ship(1, 1), -VERTIGO_EINVAL);
    expect("17 symbol sets: the last goes on (0 expected)", ship(SYMBOL_SETS, 1), 0);
    int64_t answered = 0;
    for (uint32_t chunk = 2; chunk < 2 + LOG_FLOOD_CHUNKS; chunk++)
        answered += ship(SYMBOL_SETS, chunk) == 0;
    printf("ukfault: log flood: %d of %d chunks of %u bytes answered 0\n", (int)answered,
           LOG_FLOOD_CHUNKS, (unsigned int)sizeof(text));
    failures += answered != LOG_FLOOD_CHUNKS;
}

/* The domain's console over its rate: the calls all return their length;
 * what Vertigo drops it counts and says, in this console, before the next
 * line it lets through, once the rate has refilled (half a second). */
static void console_flood(void)
{
    static char flood[VERTIGO_CONSOLE_WRITE_MAX];
    for (size_t i = 0; i < sizeof(flood); i++)      /* whole lines: the last ends the write */
        flood[i] = (i + 1) % CONSOLE_LINE == 0 || i + 1 == sizeof(flood) ? '\n'
                                                                         : (char)('a' + i % 26);
    int64_t taken = 0;
    for (unsigned int i = 0; i < CONSOLE_FLOOD_WRITES; i++)
        taken += vertigo_uk_syscall(UK_SYS_CONSOLE_RAW, (uint64_t)flood, sizeof(flood), 0) ==
                 (int64_t)sizeof(flood);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) < 500000000ll);
    printf("ukfault: console flood: %d of %d writes of %u bytes returned their length\n",
           (int)taken, CONSOLE_FLOOD_WRITES, (unsigned int)sizeof(flood));
    failures += taken != CONSOLE_FLOOD_WRITES;
}

int ukhostile_run(void)
{
    failures = 0;
    msrs();
    xsave_state();
    sessions();
    symbols();
    printf("ukfault: hostile: %d cases not refused as they must be\n", failures);
    fflush(stdout);
    console_flood();
    return failures ? 1 : 0;
}
