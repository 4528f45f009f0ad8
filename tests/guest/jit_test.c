/* A tiny "JIT": writes machine code for a counting loop into an
 * executable buffer, registers it in /tmp/perf-PID.map (the perf JIT map
 * convention: "START SIZE NAME" per line, hex addresses), runs it, then
 * moves the code to a new buffer at a different address, re-registers it
 * under a new name and runs it again. A profiler that honours map epochs
 * (VIProf) attributes the first run's samples to jit_loop_epoch1 and the
 * second run's to jit_loop_epoch2, although both executed the same bytes.
 *
 *   jit_test [ITERATIONS]     loop iterations per run (default 2000000)
 * Prints both code addresses; exits 0 when both runs returned the right
 * result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* uint64_t f(uint64_t n): rax = 0; do { rax += n; n--; } while (n); ret
 *   31 c0          xor  %eax,%eax
 *   48 01 f8       add  %rdi,%rax     <- loop
 *   48 ff cf       dec  %rdi
 *   75 f8          jnz  loop
 *   c3             ret                                                    */
static const uint8_t loop_code[] = {
    0x31, 0xc0, 0x48, 0x01, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xf8, 0xc3,
};
#define CODE_SIZE sizeof(loop_code)

typedef uint64_t (*jit_fn)(uint64_t);

static void *place_code(size_t offset)
{
    uint8_t *buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE | PROT_EXEC,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return NULL;
    memcpy(buf + offset, loop_code, CODE_SIZE);
    return buf + offset;
}

static int register_code(FILE *map, void *code, const char *name)
{
    fprintf(map, "%lx %zx %s\n", (unsigned long)(uintptr_t)code, CODE_SIZE, name);
    return fflush(map);
}

static int run(jit_fn f, uint64_t n, const char *name)
{
    uint64_t expect = n * (n + 1) / 2;
    uint64_t got = f(n);
    printf("jit_test: %s at %p: %s\n", name, (void *)f, got == expect ? "ok" : "WRONG RESULT");
    return got == expect ? 0 : 1;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
    char path[64];
    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(path, "w");
    if (!map) {
        perror("jit_test: perf map");
        return 1;
    }
    void *first = place_code(0x100);
    if (!first || register_code(map, first, "jit_loop_epoch1") != 0)
        return 1;
    int bad = run((jit_fn)first, n, "jit_loop_epoch1");

    /* Move: new buffer, different offset; the old one goes away. */
    void *second = place_code(0x740);
    munmap((uint8_t *)first - 0x100, 65536);
    if (!second || register_code(map, second, "jit_loop_epoch2") != 0)
        return 1;
    bad |= run((jit_fn)second, n, "jit_loop_epoch2");
    fclose(map);
    return bad;
}
