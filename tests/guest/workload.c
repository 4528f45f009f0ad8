/* The demonstration workload profiled by the main job: three user
 * functions with known shares of the user-mode instructions (60/30/10 %,
 * called as main -> run -> hot/warm/cool, with cool calling a leaf so call
 * chains have depth), plus system calls that make the kernel work (write
 * to a pipe, read it back).
 *
 * Each compute function runs an inline-assembly loop whose instruction
 * count per iteration is fixed (5), so the shares are exact in retired
 * instructions; the iteration counts set the shares.
 *
 *   workload [SCALE [wait]]  SCALE multiplies every iteration count (default 1);
 *                            with "wait" it first reads one byte from stdin,
 *                            so a profiler can ship its maps before it runs
 * Prints what it ran and exits 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guestlib/vertigo_measure.h"

#define BASE_ITERATIONS 200000ull   /* the 10 % share at SCALE 1 */

/* vertigo_loop_mix: 5 instructions per iteration; none for 0 iterations. */
static uint64_t spin(uint64_t iterations, uint64_t seed)
{
    return iterations ? vertigo_loop_mix(iterations, seed) : seed;
}

__attribute__((noinline)) static uint64_t hot(uint64_t n)  { return spin(6 * n, 1); }
__attribute__((noinline)) static uint64_t warm(uint64_t n) { return spin(3 * n, 2); }
__attribute__((noinline)) static uint64_t leaf(uint64_t n) { return spin(n, 3); }
__attribute__((noinline)) static uint64_t cool(uint64_t n) { return leaf(n) + 1; }

/* Kernel work: pipe round trips. */
__attribute__((noinline)) static int kernel_work(int rounds)
{
    int fds[2];
    char buf[512] = { 0 };
    if (pipe(fds) != 0)
        return -1;
    for (int i = 0; i < rounds; i++) {
        if (write(fds[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
            read(fds[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
            return -1;
    }
    close(fds[0]);
    close(fds[1]);
    return 0;
}

__attribute__((noinline)) static uint64_t run(uint64_t n)
{
    return hot(n) ^ warm(n) ^ cool(n);
}

int main(int argc, char **argv)
{
    uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    if (scale == 0 || scale > 1000) {
        fprintf(stderr, "workload: SCALE must be 1..1000\n");
        return 2;
    }
    char go;
    if (argc > 2 && (strcmp(argv[2], "wait") || read(STDIN_FILENO, &go, 1) != 1)) {
        fprintf(stderr, "workload: the second argument must be 'wait', then one byte on stdin\n");
        return 2;
    }
    uint64_t n = BASE_ITERATIONS * scale;
    uint64_t r = run(n);
    if (kernel_work(2000 * (int)scale) != 0) {
        perror("workload: pipe");
        return 1;
    }
    printf("workload: hot %llu, warm %llu, cool %llu iterations of %d instructions "
           "(60/30/10 %%), 2000x%llu pipe round trips, result %#llx\n",
           (unsigned long long)(6 * n), (unsigned long long)(3 * n), (unsigned long long)n,
           VERTIGO_LOOP_MIX_INSTRUCTIONS, (unsigned long long)scale, (unsigned long long)r);
    return 0;
}
