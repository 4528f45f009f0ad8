/* ukfault: a unikernel test program that ends its domain on purpose, to
 * check the runtime's failure paths. Its one argument says how:
 *
 *   null      reads address 0 (unmapped by the runtime): #PF, FAIL
 *   ud        executes UD2: #UD, FAIL
 *   gate      INT 0x81, a vector with no gate: #GP, FAIL
 *   exit N    prints a line and exits with status N: PASS iff N is 0
 *   refused   calls VERTIGO_HC_CONSOLE_WRITE from CPL 3 directly: Vertigo
 *             refuses it (-VERTIGO_EPERM), the program exits 0 if it did
 *
 * Each prints "ukfault: MODE" first, so the console shows what was tried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guestlib/unikernel/vertigo_uk.h"

static int refused_from_user(void)
{
    static const char text[] = "ukfault: this line must not appear\n";
    int64_t ret = vertigo_hypercall2(VERTIGO_HC_CONSOLE_WRITE, (uint64_t)text, sizeof(text) - 1);
    printf("ukfault: VERTIGO_HC_CONSOLE_WRITE from CPL 3 returned %lld\n", (long long)ret);
    return ret == -VERTIGO_EPERM ? 0 : 1;
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
    printf("ukfault: unknown mode (null, ud, gate, exit N, refused)\n");
    return 2;
}
