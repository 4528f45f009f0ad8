/* pv_user UID: per-thread counters for a thread without privileges, as
 * perf's rule for a thread counting itself has it (guestlib/kmod/
 * vertigo_perm.h): run as root, it gives up every privilege (its groups,
 * group and user ids become UID, its capabilities go with root's uid),
 * then, by the guest's kernel.perf_event_paranoid (the scenario sets it):
 *   2: instructions:u counts its own loops exactly, read through the
 *      module (the set has no pages: vertigo_counters_tsc says so);
 *      instructions:k and a guest-wide request (LIST) are refused;
 *   3: even instructions:u is refused.
 * Exactness: spin(N) then spin(2N), each between two reads by the same
 * code (delta); the second difference less the first is 2N instructions
 * (DEC, JNZ: two a turn), the reads' own user instructions cancelling
 * out. Prints "pv_user: PASS: ..." / "pv_user: FAIL: ..." lines; exits 1
 * if any check failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "guestlib/kmod/vertigo_ioctl.h"
#include "guestlib/vertigo_counters.h"

#define LOOP 100000u

static int failures;

static void result(int ok, const char *what, const char *detail)
{
    printf("pv_user: %s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail[0] ? ": " : "", detail);
    failures += !ok;
}

static void spin(uint64_t n)
{
    __asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n));
}

static int paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 99;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 99;
        fclose(f);
    }
    return v;
}

/* The set's count across spin(n): the same code reads around every n, so
 * the reads' own user instructions are the same each time. */
static __attribute__((noinline)) int delta(struct vertigo_counters *set, uint64_t n,
                                           uint64_t *d)
{
    uint64_t before = 0, after = 0;
    int e = vertigo_counters_read(set, 0, &before);
    spin(n);
    int e2 = vertigo_counters_read(set, 0, &after);
    *d = after - before;
    return e ? e : e2;
}

/* The set's count of 2N less N, as described above. */
static int exact(struct vertigo_counters *set, uint64_t *diff)
{
    uint64_t one, two;
    int e = delta(set, LOOP, &one);
    e = e ? e : delta(set, 2 * LOOP, &two);
    *diff = e ? 0 : two - one;
    return e;
}

static void level2(void)
{
    struct vertigo_counters *set;
    char detail[160];
    int e = vertigo_counters_open("instructions:u", &set);
    result(e == 0, "an unprivileged thread opens instructions:u at paranoid 2",
           e ? vertigo_counters_strerror(e) : "");
    if (e)
        return;
    uint64_t diff = 0, ticks;
    e = vertigo_counters_start(set);
    e = e ? e : exact(set, &diff);
    snprintf(detail, sizeof(detail), "%" PRIu64 " instructions:u for 2N - N, N = %u (want %u)%s%s",
             diff, LOOP, 2 * LOOP, e ? ", " : "", e ? vertigo_counters_strerror(e) : "");
    result(!e && diff == 2 * LOOP, "it counts its own instructions:u exactly", detail);
    e = vertigo_counters_tsc(set, &ticks);
    result(e == VERTIGO_CTR_EUNSUPPORTED,
           "its set reads through the module, no pages (the VCPU's counts stay hidden)",
           vertigo_counters_strerror(e));
    vertigo_counters_free(set);
    e = vertigo_counters_open("instructions:k", &set);
    result(e == VERTIGO_CTR_EPARANOID, "instructions:k refused at paranoid 2",
           vertigo_counters_strerror(e));
    if (!e)
        vertigo_counters_free(set);
    int fd = open(VERTIGO_DEV_PATH, O_RDWR);
    struct vertigo_process_entry entries[4];
    struct vertigo_process_list l = { (uint64_t)(uintptr_t)entries, 4, 0 };
    int r = fd >= 0 ? ioctl(fd, VERTIGO_IOC_LIST, &l) : -1;
    snprintf(detail, sizeof(detail), "open %s, LIST %d (%s)", fd >= 0 ? "ok" : "failed", r,
             strerror(errno));
    result(fd >= 0 && r < 0 && errno == EACCES, "a guest-wide request (LIST) refused: EACCES",
           detail);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    uid_t uid = argc > 1 ? (uid_t)strtoul(argv[1], NULL, 10) : 1000;
    gid_t gid = uid;
    if (!uid || setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
        printf("pv_user: FAIL: cannot become uid %u: %s\n", (unsigned int)uid, strerror(errno));
        return 1;
    }
    char detail[64];
    snprintf(detail, sizeof(detail), "uid %u, euid %u", (unsigned int)getuid(),
             (unsigned int)geteuid());
    result(getuid() == uid && geteuid() == uid, "running without root", detail);
    int level = paranoid();
    if (level == 2) {
        level2();
    } else {
        struct vertigo_counters *set;
        int e = vertigo_counters_open("instructions:u", &set);
        snprintf(detail, sizeof(detail), "paranoid %d: %s", level, vertigo_counters_strerror(e));
        result(level >= 3 && e == VERTIGO_CTR_EPARANOID, "every event refused at paranoid 3", detail);
    }
    return failures ? 1 : 0;
}
