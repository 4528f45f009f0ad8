/* Host harness for `make bench-kstack`: the NMI path's guest call-stack
 * walk, counted by callgrind. A guest behind a real EPT (vmx/ept.c) with
 * its own 4-level page tables, read through Vertigo's stack reader
 * (vmm/guest/guest_reader.h) over its checked cursor (vmx/guest_mem.c) and
 * translation cache (vmm/guest/guest_tlb.h), and a synthetic kernel: ORC tables in the Linux 6.1
 * layout copied by vmm/guest/guest_orc_table.c, a kernel stack of 12 call
 * frames under a system call's pt_regs at the top of the stack, and a
 * user stack of 3 frame-pointer frames, each stack in one page (two page
 * walks per sample): a 16-deep sample (12 kernel return addresses, the
 * user RIP, 3 user ones), as pmu_arch_guest_stack walks it. The frames'
 * rules follow the mix of a Debian 6.1 kernel's samples: 7 save the
 * caller's RBP after another register, 2 keep a frame pointer (CFA from
 * RBP), 2 leave RBP alone, 1 pushes it first; 5 of the 12 return
 * addresses lie in a 64-byte block where another rule starts (the
 * index's scan), 7 in a block of one rule.
 *
 *   bench_kstack_harness N [--no-tlb] [--from K]
 *       walks the sample N times (checking each result), prints "walks N
 *       frames F"; --no-tlb: without the translation cache kept across
 *       samples (every sample walks the guest's page tables: the cost of a
 *       sample whose stack pages no recent sample used); --from K: the
 *       sample interrupted the K-th kernel function instead of the
 *       innermost (its walk K frames shorter: the same pages, entry and
 *       user frames, so the difference of two counts is what K frames
 *       cost)
 * Exit status 1 if a walk does not give the expected chain. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/host_ept.h"
#include "vmm/guest/guest_orc.h"
#include "vmm/guest/guest_stack.h"
#include "vmm/vcpu.h"
#include "vmx/ept.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define PAGE          4096ull
#define REGION_PAGES  64u
#define POOL_PAGES    32u
#define KSTACK_VA     0xffffc90000010000ull     /* 4 pages, like THREAD_SIZE */
#define USTACK_VA     0x00007ffffffde000ull     /* 2 pages */
#define KTEXT         0xffffffff81000000ull
#define UTEXT         0x401000ull
#define KERNEL_FRAMES 12u
#define USER_FRAMES   3u
#define DEPTH         (KERNEL_FRAMES + 1 + USER_FRAMES)
#define FRAME_BYTES   0x90u                      /* each call frame's size */
#define CR0_PG        (1ull << 31)
#define PTE_RW        3ull                       /* present, writable */
#define PTE_USER      7ull

static uint8_t *region;
static bool use_tlb = true;     /* the translation cache across samples, as Vertigo runs */
static struct guest_tlb stack_tlb;
static struct domain dom;

static uint64_t gpa(unsigned int page)
{
    return (uint64_t)(uintptr_t)region + page * PAGE;
}

static uint64_t *table(unsigned int page)
{
    return (uint64_t *)(region + page * PAGE);
}

/* Maps `pages` pages at va to RAM pages from `data` on, with the tables at
 * pdpt, pd, pt (PML4 is page 0); each level's tables in its own page, as a
 * kernel's are, so a walk reads four different pages. */
static void map(uint64_t va, unsigned int pages, unsigned int data, unsigned int pdpt,
                unsigned int pd, unsigned int pt, uint64_t flags)
{
    table(0)[(va >> 39) & 511] = gpa(pdpt) | flags;
    table(pdpt)[(va >> 30) & 511] = gpa(pd) | flags;
    table(pd)[(va >> 21) & 511] = gpa(pt) | flags;
    for (unsigned int i = 0; i < pages; i++)
        table(pt)[((va >> 12) + i) & 511] = gpa(data + i) | flags;
}

static void build_guest(void)
{
    region = host_ept_memory(REGION_PAGES, false);
    host_ept_domain(&dom, POOL_PAGES);
    if (ept_map(&dom.vmx.ept, gpa(0), gpa(0), REGION_PAGES * PAGE, EPT_RWX, EPT_MT_WB) != EPT_OK) {
        fprintf(stderr, "bench_kstack_harness: EPT set-up failed\n");
        exit(1);
    }
    map(KSTACK_VA, 4, 20, 1, 2, 3, PTE_RW);
    map(USTACK_VA, 2, 30, 4, 5, 6, PTE_USER);
}

static uint8_t *kstack(uint64_t va)
{
    return region + 20 * PAGE + (va - KSTACK_VA);
}

static uint8_t *ustack(uint64_t va)
{
    return region + 30 * PAGE + (va - USTACK_VA);
}

static void put(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof(v));
}

/* ---- The synthetic kernel's ORC tables (Linux 6.1 layout) ---------------- */

#define ORC_IP_VA  0xffffffff82000000ull
#define ORC_VA     0xffffffff82100000ull
#define ENTRIES    (4 * KERNEL_FRAMES + 1)
#define ENTRY_VA   (KTEXT + 0x100000)

static int32_t orc_ip[ENTRIES];
static uint8_t orc[ENTRIES][6];

static void orc_entry(unsigned int i, uint64_t ip, int16_t sp_off, unsigned int sp_reg,
                      int16_t bp_off, unsigned int bp_reg, unsigned int type)
{
    orc_ip[i] = (int32_t)(int64_t)(ip - (ORC_IP_VA + 4ull * i));
    memcpy(&orc[i][0], &sp_off, 2);
    memcpy(&orc[i][2], &bp_off, 2);
    orc[i][4] = (uint8_t)(sp_reg | bp_reg << 4);
    orc[i][5] = (uint8_t)type;
}

static enum guest_access table_copy(void *ctx, uint64_t va, void *buf, size_t len)
{
    (void)ctx;
    if (va >= ORC_IP_VA && va + len <= ORC_IP_VA + sizeof(orc_ip))
        memcpy(buf, (uint8_t *)orc_ip + (va - ORC_IP_VA), len);
    else if (va >= ORC_VA && va + len <= ORC_VA + sizeof(orc))
        memcpy(buf, (uint8_t *)orc + (va - ORC_VA), len);
    else
        return GUEST_ACCESS_UNMAPPED;
    return GUEST_ACCESS_OK;
}

static void *heap(size_t bytes)
{
    return malloc(bytes);
}

/* The frames' rules, innermost first: S saves the caller's RBP at CFA -
 * 24, F keeps a frame pointer (CFA = RBP + 16, the caller's RBP at CFA -
 * 16), K leaves RBP alone, B pushes it first (CFA - 16). A frame F's RBP
 * is its CFA - 16: the frame inside it (an S) saved it. */
static const char KINDS[KERNEL_FRAMES + 1] = "SSFSKSFBSKSS";
static const bool SPLIT[KERNEL_FRAMES] = { 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1 };
#define CALL_RET   0xa0u        /* each function's call: its return address */
#define BODY       4u           /* each function's body rule from here */

static uint64_t fn_at(unsigned int f)
{
    return KTEXT + f * 0x1000ull;
}

/* Function f: its first byte (nothing pushed yet), a push, its body's
 * rule (the frame of KINDS[f]) and, for SPLIT[f], an epilogue's rule
 * starting in its call's block after the call. The system call entry's
 * rule at ENTRY_VA: pt_regs at SP. */
static void build_tables(struct guest_kernel_unwind *ku)
{
    unsigned int i = 0;
    for (unsigned int f = 0; f < KERNEL_FRAMES; f++) {
        uint64_t fn = fn_at(f);
        orc_entry(i++, fn, 8, 5, 0, 0, 0);
        orc_entry(i++, fn + 1, 16, 5, -16, 1, 0);
        switch (KINDS[f]) {
        case 'S': orc_entry(i++, fn + BODY, FRAME_BYTES, 5, -24, 1, 0); break;
        case 'F': orc_entry(i++, fn + BODY, 16, 4, -16, 1, 0); break;
        case 'K': orc_entry(i++, fn + BODY, FRAME_BYTES, 5, 0, 0, 0); break;
        default:  orc_entry(i++, fn + BODY, FRAME_BYTES, 5, -16, 1, 0); break;
        }
        if (SPLIT[f])
            orc_entry(i++, fn + CALL_RET + 8, 8, 5, 0, 0, 0);
    }
    orc_entry(i++, ENTRY_VA, 0, 5, 0, 0, 1);
    struct vertigo_kernel_orc a = {
        .abi_version = VERTIGO_KERNEL_ORC_ABI, .format = VERTIGO_ORC_LINUX_V1,
        .text_start = KTEXT, .text_end = KTEXT + 0x200000, .ip_table = ORC_IP_VA,
        .orc_table = ORC_VA, .count = i,
    };
    if (guest_kernel_unwind_declare(ku, &a, table_copy, NULL, heap) != 0) {
        fprintf(stderr, "bench_kstack_harness: the ORC declaration was refused\n");
        exit(1);
    }
}

/* Function f's frame returns into function f + 1's call; the last one
 * into the entry code, whose pt_regs sit at the top of the stack. Returns
 * the SP of the innermost frame; *bp0, the RBP the sample starts with. */
static uint64_t build_stacks(uint64_t *bp0)
{
    uint64_t regs = KSTACK_VA + 4 * PAGE - 168;         /* sizeof(struct pt_regs) */
    uint64_t sp = regs - KERNEL_FRAMES * FRAME_BYTES;
    *bp0 = 0x5678;
    for (unsigned int f = 0; f < KERNEL_FRAMES; f++) {
        uint64_t cfa = sp + (f + 1) * FRAME_BYTES;
        uint64_t ret = f + 1 < KERNEL_FRAMES ? fn_at(f + 1) + CALL_RET : ENTRY_VA + 0x10;
        /* the caller's RBP: its frame's CFA - 16 if it keeps a frame pointer */
        uint64_t caller_bp = KINDS[f + 1] == 'F' ? cfa + FRAME_BYTES - 16 : 0x1234;
        put(kstack(cfa - 8), ret);
        if (KINDS[f] == 'S')
            put(kstack(cfa - 24), caller_bp);
        else if (KINDS[f] != 'K')
            put(kstack(cfa - 16), caller_bp);
    }
    uint64_t ubp = USTACK_VA + PAGE + 0x100;
    put(kstack(regs + 32), ubp);                        /* bp */
    put(kstack(regs + 128), UTEXT + 0x500);             /* ip */
    put(kstack(regs + 136), 0x33);                      /* cs: user */
    put(kstack(regs + 152), ubp - 0x40);                /* sp */
    for (unsigned int i = 0; i < USER_FRAMES; i++) {
        uint64_t fp = ubp + i * 0x40;
        put(ustack(fp), i + 1 < USER_FRAMES ? fp + 0x40 : 0);
        put(ustack(fp + 8), UTEXT + 0x100 * (i + 1));
    }
    return sp;
}

/* One sample's walk, as vmx/vmx_pmu_arch.c's pmu_arch_guest_stack does it:
 * a fresh cursor and reader per sample, the VCPU's translation cache
 * (vmm/guest/guest_tlb.h) claimed for it, the first page (RSP's) looked up by a
 * direct call. */
static __attribute__((noinline)) unsigned int sample_walk(const struct guest_unwind_regs *start,
                                                          uint64_t *out)
{
    struct guest_virt_cursor c;
    struct guest_reader rd;
    guest_virt_cursor_setup(&c, &dom.vcpus[0], CR0_PG, gpa(0), 0);
    if (use_tlb)
        guest_virt_cursor_claim_tlb(&c, &stack_tlb);
    guest_reader_init(&rd, guest_virt_cursor_page, &c);
    const uint8_t *first = guest_virt_cursor_page(&c, start->sp & ~(PAGE - 1));
    if (first)
        guest_reader_start(&rd, start->sp & ~(PAGE - 1), first);
    unsigned int n = guest_stack_sample(&dom.kernel_unwind, start, true, DEPTH, &rd, out);
    guest_virt_cursor_release_tlb(&c);
    return n;
}

/* The registers of a sample that interrupted function `from`'s body,
 * frames 0 .. from - 1 being gone: its SP, and its RBP (its CFA - 16 if it
 * keeps a frame pointer, else whatever its callee saw). */
static struct guest_unwind_regs start_in(unsigned int from, uint64_t sp0, uint64_t bp0)
{
    uint64_t sp = sp0 + from * FRAME_BYTES;
    uint64_t bp = !from ? bp0 : KINDS[from] == 'F' ? sp + FRAME_BYTES - 16 : 0x1234;
    return (struct guest_unwind_regs){ .ip = fn_at(from) + 0x20, .sp = sp, .bp = bp };
}

static bool options(int argc, char **argv, unsigned long *n, unsigned int *from)
{
    *n = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
    *from = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--no-tlb"))
            use_tlb = false;
        else if (!strcmp(argv[i], "--from") && i + 1 < argc)
            *from = (unsigned int)strtoul(argv[++i], NULL, 0);
        else
            return false;
    }
    return *n && *from < KERNEL_FRAMES;
}

int main(int argc, char **argv)
{
    unsigned long n;
    unsigned int from;
    if (!options(argc, argv, &n, &from)) {
        fprintf(stderr, "usage: bench_kstack_harness N [--no-tlb] [--from K (0-%u)]\n",
                KERNEL_FRAMES - 1);
        return 2;
    }
    build_guest();
    build_tables(&dom.kernel_unwind);
    uint64_t bp0, sp0 = build_stacks(&bp0);
    struct guest_unwind_regs start = start_in(from, sp0, bp0);
    const unsigned int depth = DEPTH - from, kernel = KERNEL_FRAMES - from;
    uint64_t out[DEPTH];
    unsigned long frames = 0;
    for (unsigned long i = 0; i < n; i++) {
        unsigned int d = sample_walk(&start, out);
        uint64_t first = kernel > 1 ? fn_at(from + 1) + CALL_RET : ENTRY_VA + 0x10;
        if (d != depth || out[0] != first || out[kernel - 1] != ENTRY_VA + 0x10 ||
            out[kernel] != UTEXT + 0x500 || out[depth - 1] != UTEXT + 0x300) {
            fprintf(stderr, "bench_kstack_harness: walk %lu gave %u frames\n", i, d);
            return 1;
        }
        frames += d;
    }
    printf("walks %lu frames %lu\n", n, frames);
    return 0;
}
