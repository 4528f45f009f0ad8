/* Guest test: try to read and write one physical address through /dev/mem
 * four ways (pread, pwrite, mmap read, mmap write) and report each
 * outcome: refused (an error), faulted (SIGBUS/SIGSEGV, caught) or
 * succeeded. Under Vertigo the address is Vertigo's own memory, so PASS
 * (exit 0) means no access succeeded and this program survived; otherwise
 * it exits 1 after a final "reason: ..." line. A write is only attempted
 * once reading has been shown impossible. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PATTERN 0x5645525449474f21ull   /* "VERTIGO!" */

enum outcome { REFUSED, FAULTED, SUCCEEDED, SKIPPED };

static const char *const outcome_names[] = { "refused", "faulted", "SUCCEEDED", "skipped" };

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_signal;

static void on_fault(int sig)
{
    fault_signal = sig;
    siglongjmp(fault_jmp, 1);
}

static void report(const char *what, uint64_t addr, enum outcome o, const char *detail)
{
    printf("devmem: %-10s 0x%" PRIx64 ": %s%s%s\n", what, addr, outcome_names[o],
           detail ? ": " : "", detail ? detail : "");
}

static enum outcome try_pread(int fd, uint64_t addr)
{
    uint64_t v = 0;
    ssize_t n = pread(fd, &v, sizeof(v), (off_t)addr);
    if (n != (ssize_t)sizeof(v)) {
        report("pread", addr, REFUSED, n < 0 ? strerror(errno) : "short read");
        return REFUSED;
    }
    char buf[64];
    snprintf(buf, sizeof(buf), "value 0x%016" PRIx64, v);
    report("pread", addr, SUCCEEDED, buf);
    return SUCCEEDED;
}

static enum outcome try_pwrite(int fd, uint64_t addr)
{
    uint64_t v = PATTERN;
    ssize_t n = pwrite(fd, &v, sizeof(v), (off_t)addr);
    if (n != (ssize_t)sizeof(v)) {
        report("pwrite", addr, REFUSED, n < 0 ? strerror(errno) : "short write");
        return REFUSED;
    }
    report("pwrite", addr, SUCCEEDED, NULL);
    return SUCCEEDED;
}

/* One access through a mapping, with SIGBUS/SIGSEGV turned into FAULTED. */
static enum outcome try_mapped(volatile uint64_t *p, uint64_t addr, int write)
{
    const char *what = write ? "mmap-write" : "mmap-read";
    char buf[64];
    fault_signal = 0;
    if (sigsetjmp(fault_jmp, 1)) {
        report(what, addr, FAULTED, strsignal(fault_signal));
        return FAULTED;
    }
    if (write) {
        *p = PATTERN;
        report(what, addr, SUCCEEDED, NULL);
    } else {
        snprintf(buf, sizeof(buf), "value 0x%016" PRIx64, *p);
        report(what, addr, SUCCEEDED, buf);
    }
    return SUCCEEDED;
}

static void probe_mmap(int fd, uint64_t addr, enum outcome *rd, enum outcome *wr)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t base = addr & ~(uint64_t)(page - 1);
    void *m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
    if (m == MAP_FAILED) {
        report("mmap", addr, REFUSED, strerror(errno));
        *rd = *wr = REFUSED;
        return;
    }
    volatile uint64_t *p = (volatile uint64_t *)((char *)m + (addr - base));
    *rd = try_mapped(p, addr, 0);
    *wr = *rd == SUCCEEDED ? SKIPPED : try_mapped(p, addr, 1);
    if (*wr == SKIPPED)
        report("mmap-write", addr, SKIPPED, "read already succeeded");
    munmap(m, (size_t)page);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        printf("usage: devmem_probe PHYS_ADDR\nreason: bad usage\n");
        return 2;
    }
    char *end;
    errno = 0;
    uint64_t addr = strtoull(argv[1], &end, 0);
    if (errno || *end || end == argv[1]) {
        printf("reason: bad address \"%s\"\n", argv[1]);
        return 2;
    }
    struct sigaction sa = { .sa_handler = on_fault };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGSEGV, &sa, NULL);

    enum outcome prd = REFUSED, pwr = REFUSED, mrd = REFUSED, mwr = REFUSED;
    int fd = open("/dev/mem", O_RDWR | O_SYNC);
    if (fd < 0) {
        report("open", addr, REFUSED, strerror(errno));
    } else {
        prd = try_pread(fd, addr);
        pwr = prd == SUCCEEDED ? SKIPPED : try_pwrite(fd, addr);
        if (pwr == SKIPPED)
            report("pwrite", addr, SKIPPED, "read already succeeded");
        probe_mmap(fd, addr, &mrd, &mwr);
        close(fd);
    }
    int ok = prd != SUCCEEDED && pwr != SUCCEEDED && mrd != SUCCEEDED && mwr != SUCCEEDED;
    printf("devmem: guest still running after all accesses\n");
    if (!ok)
        printf("reason: access to physical 0x%" PRIx64 " succeeded (pread %s, pwrite %s, "
               "mmap read %s, mmap write %s)\n", addr, outcome_names[prd], outcome_names[pwr],
               outcome_names[mrd], outcome_names[mwr]);
    return ok ? 0 : 1;
}
