/* smp_spin: the compute loop of the SMP domains' sharing benchmark
 * (tests/bench/bench_domains.sh, the smp boot): the Linux counterpart of
 * the unikernel's ukspin, one thread on each online CPU.
 *
 *   smp_spin ROUNDS ITERATIONS
 *
 * One thread per online CPU, pinned to it (sched_setaffinity), released
 * together; each runs ROUNDS rounds of ITERATIONS iterations of
 * vertigo_loop_inc (3 instructions each) and times each round with the
 * TSC. After all threads end it prints one line a round:
 *   smp_spin: cpu C round R: instructions I ticks T
 * and "smp_spin: PASS: N threads" (or FAIL with a reason line and exit
 * status 1 when a thread could not be pinned or was moved). The lines are
 * printed at the end so no console output runs during the rounds. In
 * Bochs one tick is about one instruction each emulated CPU ran, so T / I
 * is a round's slowdown: about 1 with the CPU to itself plus the kernel's
 * own interrupts, about the number of busy domains sharing the CPU
 * otherwise. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guestlib/vertigo_measure.h"

#define MAX_THREADS 8
#define MAX_ROUNDS 1000

struct spinner {
    pthread_t thread;
    int cpu, moved;
    uint64_t ticks[MAX_ROUNDS];
};

static pthread_barrier_t start;
static unsigned long rounds;
static uint64_t iterations;

static void *spin(void *arg)
{
    struct spinner *s = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->cpu, &set);
    s->moved = sched_setaffinity(0, sizeof(set), &set) != 0 || sched_getcpu() != s->cpu;
    pthread_barrier_wait(&start);
    for (unsigned long r = 0; r < rounds; r++) {
        uint64_t t0 = vertigo_tsc_read();
        vertigo_loop_inc(iterations);
        s->ticks[r] = vertigo_tsc_read() - t0;
    }
    s->moved |= sched_getcpu() != s->cpu;
    return NULL;
}

int main(int argc, char **argv)
{
    static struct spinner spinners[MAX_THREADS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int moved = 0;

    rounds = argc == 3 ? strtoul(argv[1], NULL, 10) : 0;
    iterations = argc == 3 ? strtoull(argv[2], NULL, 10) : 0;
    if (!rounds || rounds > MAX_ROUNDS || !iterations || cpus < 1 || cpus > MAX_THREADS) {
        printf("usage: smp_spin ROUNDS ITERATIONS (1..%d rounds, iterations above 0, "
               "1..%d CPUs online)\nreason: bad arguments\n", MAX_ROUNDS, MAX_THREADS);
        return 2;
    }
    pthread_barrier_init(&start, NULL, (unsigned int)cpus);
    for (int i = 0; i < cpus; i++) {
        spinners[i].cpu = i;
        if (pthread_create(&spinners[i].thread, NULL, spin, &spinners[i]) != 0) {
            printf("smp_spin: FAIL: cannot create thread %d\nreason: pthread_create\n", i);
            return 1;
        }
    }
    for (int i = 0; i < cpus; i++)
        pthread_join(spinners[i].thread, NULL);
    for (int i = 0; i < cpus; i++) {
        for (unsigned long r = 0; r < rounds; r++)
            printf("smp_spin: cpu %d round %lu: instructions %llu ticks %llu\n", i, r,
                   (unsigned long long)(VERTIGO_LOOP_INC_INSTRUCTIONS * iterations),
                   (unsigned long long)spinners[i].ticks[r]);
        moved += spinners[i].moved;
    }
    if (moved) {
        printf("smp_spin: FAIL: %d thread(s) not on their CPU\nreason: a thread moved\n", moved);
        return 1;
    }
    printf("smp_spin: PASS: %ld threads, %lu rounds each\n", cpus, rounds);
    return 0;
}
