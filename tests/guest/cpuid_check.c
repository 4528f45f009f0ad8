/* Guest test: does the CPU the guest sees say "Vertigo" and hide VMX?
 * Checks CPUID leaf 0x40000000 (hypervisor vendor leaf: EBX, ECX, EDX
 * hold a 12-byte signature) for Vertigo's signature and CPUID.1:ECX.VMX
 * [bit 5] for 0 (Intel SDM Vol. 2A, CPUID). Prints what it found; exits 0
 * on PASS, else 1 after a final "reason: ..." line. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guestlib/vertigo_guest.h"

#define SIGNATURE_LEN 12
#define ECX_VMX       (1u << 5)

static void printable(const char *sig, char *out)
{
    for (int i = 0; i < SIGNATURE_LEN; i++)
        out[i] = (sig[i] >= 0x20 && sig[i] < 0x7f) ? sig[i] : '.';
    out[SIGNATURE_LEN] = '\0';
}

int main(void)
{
    char sig[SIGNATURE_LEN], shown[SIGNATURE_LEN + 1];

    struct vertigo_cpuid_regs r = vertigo_cpuid(VERTIGO_CPUID_LEAF_FEATURES);
    int vmx = !!(r.ecx & ECX_VMX);
    int hyp = !!(r.ecx & VERTIGO_CPUID1_ECX_HYPERVISOR);
    printf("cpuid: leaf 1 ecx=0x%08x: VMX=%d hypervisor=%d\n", r.ecx, vmx, hyp);

    r = vertigo_cpuid(VERTIGO_CPUID_BASE);
    memcpy(sig + 0, &r.ebx, 4);
    memcpy(sig + 4, &r.ecx, 4);
    memcpy(sig + 8, &r.edx, 4);
    printable(sig, shown);
    printf("cpuid: leaf 0x40000000: max leaf=0x%08x signature=\"%s\"\n", r.eax, shown);

    int sig_ok = memcmp(sig, VERTIGO_CPUID_SIGNATURE, SIGNATURE_LEN) == 0;
    if (!sig_ok && vmx)
        printf("reason: signature \"%s\" is not Vertigo's and VMX is visible\n", shown);
    else if (!sig_ok)
        printf("reason: signature \"%s\" is not Vertigo's (not running under Vertigo?)\n", shown);
    else if (vmx)
        printf("reason: VMX (CPUID.1:ECX[5]) is visible to the guest\n");
    return sig_ok && !vmx ? 0 : 1;
}
