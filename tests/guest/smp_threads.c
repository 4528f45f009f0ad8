/* smp_threads: a threaded workload on every CPU of the guest.
 *
 *   smp_threads ITERATIONS
 *
 * One thread per online CPU, each pinned to its CPU (sched_setaffinity),
 * all released together by a barrier; each runs ITERATIONS rounds of a
 * 64-bit linear congruential step and checks its result against the one
 * main computed alone, and that it ran on its CPU at the start and at the
 * end. The threads also bounce a shared counter (an atomic add each 1024
 * rounds), so each CPU's writes reach the others' caches. Prints
 * "smp_threads: PASS: ..." or "smp_threads: FAIL: ..." per thread and a
 * last "reason: ..." on failure; exit status 0 when all pass. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 64

struct worker {
    pthread_t thread;
    int cpu;
    int cpu_at_start, cpu_at_end;
    uint64_t result;
};

static pthread_barrier_t start;
static uint64_t iterations;
static uint64_t shared_adds;

static uint64_t lcg(uint64_t x, uint64_t n, int share)
{
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if (share && (i & 1023) == 0)
            __atomic_fetch_add(&shared_adds, 1, __ATOMIC_SEQ_CST);
    }
    return x;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        w->cpu_at_start = -1;
    else
        w->cpu_at_start = sched_getcpu();
    pthread_barrier_wait(&start);
    w->result = lcg((uint64_t)w->cpu, iterations, 1);
    w->cpu_at_end = sched_getcpu();
    return NULL;
}

int main(int argc, char **argv)
{
    static struct worker workers[MAX_THREADS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int failures = 0;

    if (argc != 2 || (iterations = strtoull(argv[1], NULL, 0)) == 0 || cpus < 1 ||
        cpus > MAX_THREADS) {
        printf("usage: smp_threads ITERATIONS (1..%d CPUs online)\nreason: bad arguments\n",
               MAX_THREADS);
        return 2;
    }
    pthread_barrier_init(&start, NULL, (unsigned int)cpus);
    for (int i = 0; i < cpus; i++) {
        workers[i].cpu = i;
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0) {
            printf("smp_threads: FAIL: cannot create thread %d\nreason: pthread_create\n", i);
            return 1;
        }
    }
    for (int i = 0; i < cpus; i++)
        pthread_join(workers[i].thread, NULL);
    for (int i = 0; i < cpus; i++) {
        const struct worker *w = &workers[i];
        uint64_t want = lcg((uint64_t)i, iterations, 0);
        int ok = w->result == want && w->cpu_at_start == i && w->cpu_at_end == i;
        printf("smp_threads: %s: thread %d on cpu %d (start %d, end %d): %llu rounds, "
               "result %#llx%s\n", ok ? "PASS" : "FAIL", i, i, w->cpu_at_start, w->cpu_at_end,
               (unsigned long long)iterations, (unsigned long long)w->result,
               w->result == want ? "" : " (wrong)");
        failures += !ok;
    }
    uint64_t adds = (uint64_t)cpus * ((iterations + 1023) / 1024);
    int shared_ok = __atomic_load_n(&shared_adds, __ATOMIC_SEQ_CST) == adds;
    printf("smp_threads: %s: %lu shared atomic adds of %llu expected\n",
           shared_ok ? "PASS" : "FAIL", (unsigned long)shared_adds, (unsigned long long)adds);
    failures += !shared_ok;
    if (failures)
        printf("reason: %d thread check(s) failed\n", failures);
    return failures ? 1 : 0;
}
