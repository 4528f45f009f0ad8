/* ukfault: a unikernel test program that ends its domain on purpose, to
 * check the runtime's failure paths. Its one argument says how:
 *
 *   null      reads address 0 (unmapped by the runtime): #PF, FAIL
 *   ud        executes UD2: #UD, FAIL
 *   gate      INT 0x81, a vector with no gate: #GP, FAIL
 *   exit N    prints a line and exits with status N: PASS iff N is 0
 *   refused   calls VERTIGO_HC_CONSOLE_WRITE from CPL 3 directly: Vertigo
 *             refuses it (-VERTIGO_EPERM), the program exits 0 if it did
 *   pointers  hands Vertigo guest addresses the domain has no RAM behind
 *             (unmapped, or mapped by its own page tables to guest-physical
 *             memory past its RAM) in hypercalls from CPL 3 and CPL 0: each
 *             must be refused with an error, nothing written; exits 0 if all
 *             were
 *   triple    asks the runtime's kernel side to load an empty IDT and fault:
 *             a triple fault, which ends the domain alone ("triple-faulted")
 *   wild ADDR maps guest-physical ADDR (past its RAM, e.g. the host's local
 *             APIC at 0xfee00000) with its own page tables and reads it:
 *             Vertigo ends the domain ("violated isolation"); exits 1 if the
 *             read returned
 *   hostile   the pointers above, then what a hostile kernel tries from CPL
 *             0 (ukhostile.h): MSR writes with reserved bits or non-canonical
 *             addresses, IA32_XSS with Intel PT's bit, XRSTORS of a PT state,
 *             sampling sessions with period 1 and beside (or stopping) the
 *             command line's, 17 symbol sets, a log flood and a console
 *             flood; exits 0 if each was refused as it must be
 *   owner     starts a sampling session of its own, holds it half a
 *             second, stops it (uksession.h); exits 0 if both calls succeeded
 *   rival     waits for another domain's session, then tries to stop it
 *             (-EPERM) and to start one beside it (-EBUSY); exits 0 if both
 *             were refused
 *
 * Each prints "ukfault: MODE" first, so the console shows what was tried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/vertigo_uk.h"
#include "guestlib/unikernel/tests/ukhostile.h"
#include "guestlib/unikernel/tests/uksession.h"

static int refused_from_user(void)
{
    static const char text[] = "ukfault: this line must not appear\n";
    int64_t ret = vertigo_hypercall2(VERTIGO_HC_CONSOLE_WRITE, (uint64_t)text, sizeof(text) - 1);
    printf("ukfault: VERTIGO_HC_CONSOLE_WRITE from CPL 3 returned %lld\n", (long long)ret);
    return ret == -VERTIGO_EPERM ? 0 : 1;
}

/* One refusal: a hypercall result that must be an error. */
static int refused(const char *what, int64_t ret)
{
    printf("ukfault: %s: %s (%lld)\n", what, ret < 0 ? "refused" : "ACCEPTED", (long long)ret);
    return ret < 0 ? 0 : 1;
}

static int bad_pointers(void)
{
    const uint64_t past_ram = vertigo_uk_info()->mem_bytes, unmapped = 0x1000;
    int bad = 0;

    if (vertigo_uk_syscall(UK_SYS_MAP_PAST_RAM, past_ram, 0, 0) != 0) {
        printf("ukfault: cannot map guest-physical %#llx\n", (unsigned long long)past_ram);
        return 1;
    }
    bad += refused("verdict reason at an unmapped address, CPL 3",
                   vertigo_hypercall2(VERTIGO_HC_SET_VERDICT, 0, unmapped));
    bad += refused("verdict reason past its RAM, CPL 3",
                   vertigo_hypercall2(VERTIGO_HC_SET_VERDICT, 0, past_ram));
    bad += refused("console text at an unmapped address, CPL 0",
                   vertigo_uk_syscall(UK_SYS_CONSOLE_RAW, unmapped, 16, 0));
    bad += refused("console text past its RAM, CPL 0",
                   vertigo_uk_syscall(UK_SYS_CONSOLE_RAW, past_ram, 16, 0));
    bad += refused("console text running off its RAM, CPL 0",
                   vertigo_uk_syscall(UK_SYS_CONSOLE_RAW, past_ram - 8, 16, 0));
    bad += refused("console text at a non-canonical address, CPL 0",
                   vertigo_uk_syscall(UK_SYS_CONSOLE_RAW, 0x8000000000000000ull, 16, 0));
    return bad ? 1 : 0;
}

static int wild_read(const char *arg)
{
    uint64_t addr = arg ? strtoull(arg, NULL, 0) : 0;
    if (vertigo_uk_syscall(UK_SYS_MAP_PAST_RAM, addr, 0, 0) != 0) {
        printf("ukfault: cannot map guest-physical %#llx\n", (unsigned long long)addr);
        return 2;
    }
    printf("ukfault: reading guest-physical %#llx\n", (unsigned long long)addr);
    fflush(stdout);
    uint32_t v = *(volatile uint32_t *)(uintptr_t)addr;
    printf("ukfault: the read returned %#x: Vertigo let it through\n", v);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    printf("ukfault: %s\n", mode);
    fflush(stdout);
    if (!strcmp(mode, "null"))
        return *(volatile int *)0;
    if (!strcmp(mode, "ud"))
        __asm__ volatile("ud2");
    if (!strcmp(mode, "gate"))
        __asm__ volatile("int $0x81");
    if (!strcmp(mode, "exit") && argc > 2)
        return atoi(argv[2]);
    if (!strcmp(mode, "refused"))
        return refused_from_user();
    if (!strcmp(mode, "pointers"))
        return bad_pointers();
    if (!strcmp(mode, "triple"))
        vertigo_uk_syscall(UK_SYS_TRIPLE_FAULT, 0, 0, 0);
    if (!strcmp(mode, "wild"))
        return wild_read(argc > 2 ? argv[2] : NULL);
    if (!strcmp(mode, "hostile"))
        return bad_pointers() | ukhostile_run();
    if (!strcmp(mode, "owner"))
        return uksession_owner();
    if (!strcmp(mode, "rival"))
        return uksession_rival();
    printf("ukfault: unknown mode (null, ud, gate, exit N, refused, pointers, triple, wild ADDR, "
           "hostile, owner, rival)\n");
    return 2;
}
