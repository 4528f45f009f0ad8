/* Bad input through /dev/vertigo: malformed symbol chunks and
 * bad session arguments must each get their specific error, and neither
 * may harm the data set being shipped or the session that runs.
 *
 *   bad_symbols            (root, vertigo.ko loaded)
 * Errors the module finds are always checked (EMSGSIZE, EFAULT). What
 * Vertigo checks depends on what this Vertigo has, probed first:
 *   sessions known  - START with period 0 gives EINVAL (ENOSYS: predates)
 *   sampling wired  - a well-formed chunk is taken (ENOSYS: no sampler)
 * Prints one line per check, "reason: ..." for the first failure and
 * "N passed, N failed"; exits 0 when nothing failed. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"
#include "vertigo/log_format.h"

static int dev;
static unsigned passed, failed;
static uint32_t own_pid;

/* The errno of one /dev/vertigo request (0 on success), as expect() takes it. */
static int ship(const struct vertigo_symbols_chunk *c)
{
    return -vertigo_dev_symbols(dev, c);
}

static int start(const struct vertigo_session *s)
{
    return -vertigo_dev_session_start(dev, s);
}

static int stop(uint64_t *samples)
{
    return -vertigo_dev_session_stop(dev, samples);
}

static const char *err_name(int e)
{
    switch (e) {
    case 0: return "success";
    case EINVAL: return "EINVAL";
    case EMSGSIZE: return "EMSGSIZE";
    case EFAULT: return "EFAULT";
    case ENOSYS: return "ENOSYS";
    case EBUSY: return "EBUSY";
    case EPERM: return "EPERM";
    default: return strerror(e);
    }
}

static void expect(const char *what, int got, int want)
{
    int ok = got == want;
    printf("bad_symbols: %-44s %-8s (want %s)%s\n", what, err_name(got), err_name(want),
           ok ? "" : "  <-- FAIL");
    if (ok) {
        passed++;
        return;
    }
    if (!failed)
        printf("reason: %s gave %s, expected %s\n", what, err_name(got), err_name(want));
    failed++;
}

static const char jit_line0[] = "7f0000001000 20 bad_symbols_probe_a\n";
static const char jit_line1[] = "7f0000002000 20 bad_symbols_probe_b\n";

/* A well-formed chunk of this program's own JIT map set (kind 3): harmless
 * to the host's kernel and process tables. */
static struct vertigo_symbols_chunk good_chunk(uint64_t epoch, uint32_t chunk, uint32_t last,
                                               const char *text)
{
    return (struct vertigo_symbols_chunk){
        .kind = LOG_SYM_JIT_MAP, .pid = own_pid, .epoch = epoch, .chunk = chunk,
        .last = last, .data = (uint64_t)(uintptr_t)text, .len = (uint32_t)strlen(text) };
}

static void module_checks(void)
{
    struct vertigo_symbols_chunk c = good_chunk(90, 0, 1, jit_line0);
    c.len = VERTIGO_SYMBOLS_CHUNK_MAX + 1;
    expect("chunk len above VERTIGO_SYMBOLS_CHUNK_MAX", ship(&c), EMSGSIZE);
    c = good_chunk(90, 0, 1, jit_line0);
    c.data = 0;
    expect("chunk data at address 0", ship(&c), EFAULT);
    c.data = 0x1000;
    expect("chunk data at an unmapped address", ship(&c), EFAULT);
    expect("SYMBOLS with an unreadable argument", ship((const struct vertigo_symbols_chunk *)8),
           EFAULT);
}

/* Malformed chunks in the middle of a set: the set goes on afterwards. */
static void symbol_checks(int want_invalid, int want_ok)
{
    struct vertigo_symbols_chunk c = good_chunk(91, 0, 0, jit_line0);
    expect("set epoch 91: chunk 0 of 2", ship(&c), want_ok);
    c = good_chunk(91, 1, 1, jit_line1);
    c.reserved = 1;
    expect("chunk with reserved != 0", ship(&c), want_invalid);
    c.reserved = 0;
    c.kind = 0;
    expect("chunk of kind 0", ship(&c), want_invalid);
    c.kind = LOG_SYM_KIND_COUNT;
    expect("chunk of an unknown kind", ship(&c), want_invalid);
    c.kind = LOG_SYM_JIT_MAP;
    c.last = 2;
    expect("chunk with last = 2", ship(&c), want_invalid);
    c.last = 1;
    c.chunk = 7;
    expect("chunk 7 where chunk 1 is due", ship(&c), want_invalid);
    c.chunk = 1;
    expect("set epoch 91: chunk 1 of 2 still taken", ship(&c), want_ok);
}

/* Bad starts and malformed chunks while a good session runs (or while
 * none could start: want_ok = ENOSYS, no sampler). */
static void session_checks(int want_ok)
{
    struct vertigo_session s = vertigo_session_timer(1000, 4);
    uint64_t samples = 0;
    expect("START timer session 1000 Hz", start(&s), want_ok);
    expect("START while one runs", start(&s), want_ok ? want_ok : EBUSY);
    struct vertigo_session bad[6];
    const char *what[6] = { "START abi_version 99", "START unknown flags", "START depth 33",
                            "START timer_hz 0", "START period 2^48+1", "START with no events" };
    for (int i = 0; i < 6; i++)
        bad[i] = vertigo_session_timer(1000, 4);
    bad[0].abi_version = 99;
    bad[1].flags |= 1u << 7;
    bad[2].stack_depth = VERTIGO_STACK_MAX + 1;
    bad[3].timer_hz = 0;
    bad[4] = vertigo_session_new();
    bad[4].period = (1ull << 48) + 1;
    snprintf(bad[4].events, sizeof(bad[4].events), "cycles:u");
    bad[5] = vertigo_session_new();
    bad[5].period = 1000;
    for (int i = 0; i < 6; i++)
        expect(what[i], start(&bad[i]), EINVAL);
    symbol_checks(want_ok ? ENOSYS : EINVAL, want_ok);
    /* Without a sampler there is no session to stop: EINVAL. */
    expect("STOP the session (unharmed)", stop(&samples),
           want_ok ? EINVAL : 0);
    if (!want_ok)
        printf("bad_symbols: session logged %llu samples\n", (unsigned long long)samples);
    expect("STOP with no session", stop(&samples), EINVAL);
}

int main(void)
{
    own_pid = (uint32_t)getpid();
    dev = vertigo_dev_open();
    if (dev < 0) {
        printf("reason: %s: %s (load vertigo.ko first)\n", VERTIGO_DEV_PATH, strerror(-dev));
        return 1;
    }
    module_checks();
    struct vertigo_session probe = vertigo_session_timer(1000, 4);
    probe.timer_hz = 0;
    int sessions = start(&probe) == EINVAL;
    struct vertigo_symbols_chunk c = good_chunk(89, 0, 1, jit_line0);
    int sampling = ship(&c) == 0;
    printf("bad_symbols: Vertigo %s sessions; sampler %s\n", sessions ? "knows" : "predates",
           sampling ? "wired (strict checks)" : "absent (its calls must give ENOSYS)");
    if (!sessions) {
        struct vertigo_session s = vertigo_session_timer(1000, 4);
        expect("START on a Vertigo without sessions", start(&s), ENOSYS);
        symbol_checks(ENOSYS, ENOSYS);
    } else if (!sampling) {
        session_checks(ENOSYS);
    } else {
        session_checks(0);
    }
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
