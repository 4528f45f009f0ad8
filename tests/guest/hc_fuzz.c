/* Guest test: hostile hypercalls from user mode (CPL 3), from two threads
 * pinned to two CPUs at once (tests/guest/hostile.h draws them): random
 * call numbers, kernel-only calls, and pointers that are NULL,
 * non-canonical, unmapped, supervisor-only, device memory (/dev/mem at the
 * legacy VGA window), Vertigo's own memory (/dev/mem at its image), or
 * readable only for a few bytes. Every call must get its documented
 * result, and the guest keeps running. Usage: hc_fuzz CALLS [SEED];
 * prints "hc_fuzz: N calls on C CPUs, M unexpected results" and exits 0
 * only when M is 0 (else a final "reason: ..." line). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guestlib/vertigo_guest.h"
#include "tests/guest/hostile.h"

#define VGA_WINDOW      0xa0000ul       /* legacy VGA memory: device memory */
#define VERTIGO_IMAGE   0x200000ul      /* Vertigo's image (linker.ld) */
/* The read-only IDT page of the CPU entry area: mapped, supervisor-only,
 * in the kernel's and (with page-table isolation) the user page tables
 * alike (Linux Documentation/x86/x86_64/mm.rst). */
#define KERNEL_PAGE     0xfffffe0000000000ull
#define NONCANONICAL    0x8000000000001000ull
#define PAGE            4096ul
#define THREADS         2
#define REPORT_MAX      8

struct worker {
    const struct hostile_target *t;
    unsigned int cpu;
    unsigned long calls;
    uint64_t seed;
    unsigned long bad;
};

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int reported;

/* A page of /dev/mem at physical `addr`, or 0 if it cannot be mapped. */
static uint64_t devmem_page(unsigned long addr)
{
    int fd = open("/dev/mem", O_RDONLY | O_SYNC);
    if (fd < 0)
        return 0;
    void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (off_t)addr);
    close(fd);
    return p == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)p;
}

/* The pointer of every class in this process. */
static int build_target(struct hostile_target *t)
{
    uint8_t *pages = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (pages == MAP_FAILED || mprotect(pages + 2 * PAGE, PAGE, PROT_NONE) != 0)
        return -1;
    memset(pages, 0xa5, 2 * PAGE);
    pages[HOSTILE_READABLE_BYTES - 1] = '\0';
    t->user = 1;
    t->ptr[HOSTILE_NULL] = 0;
    t->ptr[HOSTILE_NONCANONICAL] = NONCANONICAL;
    t->ptr[HOSTILE_UNMAPPED] = (uint64_t)(uintptr_t)(pages + 2 * PAGE);
    t->ptr[HOSTILE_SUPERVISOR] = KERNEL_PAGE;
    t->ptr[HOSTILE_MMIO] = devmem_page(VGA_WINDOW);
    t->ptr[HOSTILE_VERTIGO] = devmem_page(VERTIGO_IMAGE);
    t->ptr[HOSTILE_READABLE] = (uint64_t)(uintptr_t)pages;
    t->ptr[HOSTILE_RUNS_OFF] = (uint64_t)(uintptr_t)(pages + 2 * PAGE - HOSTILE_RUNS_OFF_BYTES);
    if (!t->ptr[HOSTILE_MMIO] || !t->ptr[HOSTILE_VERTIGO]) {
        printf("reason: cannot map /dev/mem at %#lx and %#lx\n", VGA_WINDOW, VERTIGO_IMAGE);
        return -1;
    }
    return 0;
}

static void report_bad(const struct worker *w, const struct hostile_call *c)
{
    pthread_mutex_lock(&print_lock);
    if (reported++ < REPORT_MAX)
        printf("hc_fuzz: cpu %u: call %#" PRIx64 "(%#" PRIx64 ", %#" PRIx64 ") returned %" PRId64
               ", want %" PRId64 "\n", w->cpu, c->nr, c->arg[0], c->arg[1], c->got, c->want);
    pthread_mutex_unlock(&print_lock);
}

static void *run(void *arg)
{
    struct worker *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
    uint64_t rng = w->seed;
    for (unsigned long i = 0; i < w->calls; i++) {
        struct hostile_call c;
        hostile_draw(w->t, &rng, &c, NULL, 0);
        c.got = hostile_vmcall(&c);
        if (c.got != c.want) {
            w->bad++;
            report_bad(w, &c);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct hostile_target t;
    struct worker w[THREADS];
    pthread_t th[THREADS];
    unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed1234abcdull;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!vertigo_present()) {
        printf("hc_fuzz: not under Vertigo\nreason: not under Vertigo\n");
        return 1;
    }
    if (build_target(&t) != 0)
        return 1;
    unsigned long bad = 0;
    for (unsigned int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){ &t, i % (unsigned int)(cpus > 0 ? cpus : 1),
                                calls / THREADS + (i < calls % THREADS), seed + i * 7919, 0 };
        pthread_create(&th[i], NULL, run, &w[i]);
    }
    for (unsigned int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        bad += w[i].bad;
    }
    printf("hc_fuzz: %lu calls on %ld CPUs, %lu unexpected results\n", calls, cpus, bad);
    if (bad)
        printf("reason: %lu of %lu hostile hypercalls got an unexpected result\n", bad, calls);
    return bad ? 1 : 0;
}
