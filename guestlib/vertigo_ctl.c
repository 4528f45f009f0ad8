/* vertigo-ctl: the guest's command-line handle on Vertigo's hypercalls
 * (ABI: include/vertigo/hypercall.h).
 *
 *   vertigo-ctl detect                 exit 0 if running under Vertigo
 *   vertigo-ctl version                print the hypercall interface version
 *   vertigo-ctl verdict pass|fail [REASON]
 *                                      report the guest's test verdict
 * Exit status: 0 done, 1 Vertigo refused the call, 2 usage error,
 * 3 not running under Vertigo (nothing was attempted). */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vertigo/hypercall.h"

static int under_vertigo(void)
{
    unsigned int eax, ebx, ecx, edx;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!(ecx & (1u << 31)))
        return 0;   /* no hypervisor at all */
    __cpuid(VERTIGO_CPUID_BASE, eax, ebx, ecx, edx);
    return ebx == VERTIGO_CPUID_SIG_EBX && ecx == VERTIGO_CPUID_SIG_ECX &&
           edx == VERTIGO_CPUID_SIG_EDX;
}

static int64_t hypercall(uint64_t nr, uint64_t a0, uint64_t a1)
{
    int64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1) : "memory");
    return ret;
}

static const char *error_text(int64_t r)
{
    switch (-r) {
    case VERTIGO_ENOSYS: return "unknown hypercall";
    case VERTIGO_EINVAL: return "invalid argument";
    case VERTIGO_EPERM: return "not permitted from this privilege level";
    case VERTIGO_EFAULT: return "bad guest address";
    default: return "unknown error";
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: vertigo-ctl detect | version | verdict pass|fail [REASON]\n");
    return 2;
}

static int report(int64_t r, const char *what)
{
    if (r >= 0)
        return 0;
    fprintf(stderr, "vertigo-ctl: %s: %s\n", what, error_text(r));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    int known = !strcmp(argv[1], "detect") || !strcmp(argv[1], "version") ||
                !strcmp(argv[1], "verdict");
    if (!known)
        return usage();
    if (!under_vertigo()) {
        if (strcmp(argv[1], "detect") != 0)
            fprintf(stderr, "vertigo-ctl: not running under Vertigo\n");
        return 3;
    }
    if (!strcmp(argv[1], "detect"))
        return 0;
    if (!strcmp(argv[1], "version")) {
        int64_t r = hypercall(VERTIGO_HC_VERSION, 0, 0);
        if (r >= 0)
            printf("vertigo hypercall interface %u, features %#x\n",
                   (unsigned)(r >> 32), (unsigned)r);
        return report(r, "version");
    }
    if (argc < 3 || (strcmp(argv[2], "pass") && strcmp(argv[2], "fail")))
        return usage();
    const char *reason = argc > 3 ? argv[3] : "";
    int64_t r = hypercall(VERTIGO_HC_SET_VERDICT, strcmp(argv[2], "pass") ? 1 : 0,
                          (uint64_t)(uintptr_t)reason);
    return report(r, "verdict");
}
