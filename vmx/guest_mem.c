/* Guest memory reads for exit handlers (see vmx/guest_mem.h). Domain 0 is
 * identity-mapped, so a GPA the EPT maps readable is the same host
 * physical address, reached through Vertigo's identity map (below 4 GiB). */
#include "vmx/guest_mem.h"

#include "boot/cpu.h"
#include "vmm/guest_pt.h"
#include "vmm/mem.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"
#include "vmx/vmx_ops.h"

#define HOST_IDENTITY_LIMIT 0x100000000ull
#define CR4_LA57 (1ull << 12)

static const void *host_pointer(struct vcpu *v, uint64_t gpa)
{
    struct ept_translation t;
    if (!ept_translate(&v->domain->vmx.ept, gpa, &t) || !(t.perms & EPT_READ))
        return NULL;
    if (t.hpa >= HOST_IDENTITY_LIMIT)
        return NULL;
    return (const void *)t.hpa;
}

bool guest_phys_read(struct vcpu *v, uint64_t gpa, void *buf, size_t len)
{
    uint8_t *out = buf;
    while (len) {
        size_t chunk = PAGE_SIZE - (gpa & (PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        const void *src = host_pointer(v, gpa);
        if (!src)
            return false;
        memcpy(out, src, chunk);
        out += chunk;
        gpa += chunk;
        len -= chunk;
    }
    return true;
}

static bool read64_cb(void *ctx, uint64_t gpa, uint64_t *value)
{
    return guest_phys_read(ctx, gpa, value, sizeof(*value));
}

bool guest_virt_read(void *vcpu, uint64_t gva, void *buf, size_t len)
{
    struct vcpu *v = vcpu;
    struct guest_paging pg = {
        .cr3 = vmcs_read(VMCS_GUEST_CR3),
        .la57 = (vmcs_read(VMCS_GUEST_CR4) & CR4_LA57) != 0,
        .read64 = read64_cb,
        .ctx = v,
    };
    uint8_t *out = buf;
    bool paging = (vmcs_read(VMCS_GUEST_CR0) & CR0_PG) != 0;

    while (len) {
        size_t chunk = PAGE_SIZE - (gva & (PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        uint64_t gpa = gva;
        if (paging && !guest_pt_translate(&pg, gva, &gpa))
            return false;
        if (!guest_phys_read(v, gpa, out, chunk))
            return false;
        out += chunk;
        gva += chunk;
        len -= chunk;
    }
    return true;
}
