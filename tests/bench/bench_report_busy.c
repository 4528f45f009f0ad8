/* A busy program for tests/bench/bench_report.sh: `perf record -e
 * cpu-clock` samples it to build a perf.data of a given sample count.
 * main calls f and h, f calls g (the shape of the synthetic capture);
 * runs for argv[1] seconds. */
#include <stdlib.h>
#include <time.h>

#define NS_PER_S 1e9

static volatile unsigned long sink;

__attribute__((noinline)) static void g(void)
{
    for (int i = 0; i < 600; i++)
        sink += (unsigned long)i;
}

__attribute__((noinline)) static void f(void)
{
    for (int i = 0; i < 300; i++)
        sink ^= (unsigned long)i;
    g();
}

__attribute__((noinline)) static void h(void)
{
    for (int i = 0; i < 100; i++)
        sink += 3u;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / NS_PER_S;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        f();
        h();
    } while (since(&t0) < seconds);
    return 0;
}
