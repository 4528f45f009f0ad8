/* phases: a workload in three phases with different behaviour, for
 * interval multiplexing (one row per N retired instructions: the rows of
 * each phase should look like it).
 *
 *   phases [SCALE]
 *
 * compute: arithmetic in user mode, no system call (about 20 million
 *          instructions per SCALE);
 * syscall: getppid() in a loop (each SYSCALL and SYSRET a VM exit while
 *          Vertigo traps mode changes: kernel time and exits);
 * fault:   anonymous memory mapped, every page touched once (a page
 *          fault each), unmapped, again.
 * Prints "phases: NAME tsc START END" per phase (RDTSC: the TSC the log's
 * records carry) and "phases: done". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define COMPUTE_LOOPS   4000000u    /* ~5 instructions each */
#define SYSCALLS        40000u
#define FAULT_PAGES     1024u       /* 4 MiB per mapping */
#define FAULT_ROUNDS    4u
#define PAGE            4096u

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static uint64_t compute(unsigned int scale)
{
    uint64_t x = 1;
    for (uint64_t i = 0; i < (uint64_t)COMPUTE_LOOPS * scale; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static void syscalls(unsigned int scale)
{
    for (unsigned int i = 0; i < SYSCALLS * scale; i++)
        syscall(SYS_getppid);
}

static int faults(unsigned int scale)
{
    for (unsigned int r = 0; r < FAULT_ROUNDS * scale; r++) {
        size_t len = (size_t)FAULT_PAGES * PAGE;
        volatile uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return -1;
        for (size_t off = 0; off < len; off += PAGE)
            m[off] = 1;
        munmap((void *)m, len);
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned int scale = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 1;
    if (scale == 0)
        scale = 1;
    uint64_t t0 = rdtsc();
    uint64_t sink = compute(scale);
    uint64_t t1 = rdtsc();
    syscalls(scale);
    uint64_t t2 = rdtsc();
    if (faults(scale) != 0) {
        printf("phases: FAIL: mmap failed\nreason: phases: mmap failed\n");
        return 1;
    }
    uint64_t t3 = rdtsc();
    printf("phases: compute tsc %llu %llu\n", (unsigned long long)t0, (unsigned long long)t1);
    printf("phases: syscall tsc %llu %llu\n", (unsigned long long)t1, (unsigned long long)t2);
    printf("phases: fault tsc %llu %llu\n", (unsigned long long)t2, (unsigned long long)t3);
    printf("phases: done (%llu)\n", (unsigned long long)(sink & 1));
    return 0;
}
