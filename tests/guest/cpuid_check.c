/* Guest test: does the CPU the guest sees say "Vertigo" and hide VMX?
 * Checks CPUID leaf 0x40000000 (hypervisor vendor leaf: EBX, ECX, EDX
 * hold a 12-byte signature) for Vertigo's signature and CPUID.1:ECX.VMX
 * [bit 5] for 0 (Intel SDM Vol. 2A, CPUID). Prints what it found; exits 0
 * on PASS, else 1 after a final "reason: ..." line. */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vertigo/hypercall.h"

#define SIGNATURE_LEN           12
#define LEAF_FEATURES           0x1u
#define LEAF_HYPERVISOR_BASE    VERTIGO_CPUID_BASE
#define ECX_VMX                 (1u << 5)
#define ECX_HYPERVISOR          (1u << 31)

static void printable(const char *sig, char *out)
{
    for (int i = 0; i < SIGNATURE_LEN; i++)
        out[i] = (sig[i] >= 0x20 && sig[i] < 0x7f) ? sig[i] : '.';
    out[SIGNATURE_LEN] = '\0';
}

int main(void)
{
    uint32_t a, b, c, d;
    char sig[SIGNATURE_LEN], shown[SIGNATURE_LEN + 1];

    __cpuid(LEAF_FEATURES, a, b, c, d);
    int vmx = !!(c & ECX_VMX);
    int hyp = !!(c & ECX_HYPERVISOR);
    printf("cpuid: leaf 1 ecx=0x%08x: VMX=%d hypervisor=%d\n", c, vmx, hyp);

    __cpuid(LEAF_HYPERVISOR_BASE, a, b, c, d);
    memcpy(sig + 0, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    printable(sig, shown);
    printf("cpuid: leaf 0x40000000: max leaf=0x%08x signature=\"%s\"\n", a, shown);

    int sig_ok = memcmp(sig, VERTIGO_CPUID_SIGNATURE, SIGNATURE_LEN) == 0;
    if (!sig_ok && vmx)
        printf("reason: signature \"%s\" is not Vertigo's and VMX is visible\n", shown);
    else if (!sig_ok)
        printf("reason: signature \"%s\" is not Vertigo's (not running under Vertigo?)\n", shown);
    else if (vmx)
        printf("reason: VMX (CPUID.1:ECX[5]) is visible to the guest\n");
    return sig_ok && !vmx ? 0 : 1;
}
