/* The xAPIC page of a domain with virtual hardware (vmm/vhw/vlapic.h): the
 * domain's EPT maps only its RAM, so an access to the APIC's page (at its
 * base address, wherever the guest moved it) is an EPT violation. The
 * instruction is fetched and decoded (vmm/vhw/mmio_decode.h) and the access
 * emulated: in xAPIC mode on the virtual APIC's registers; while the APIC
 * is disabled or in x2APIC mode the page's registers are not decoded, so
 * it reads as absent memory (all ones) and writes go nowhere. */
#include "vmx/exit_vhw.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_vhw.h"
#include "vmm/vhw/mmio_decode.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_ops.h"

#define MAX_INSN   15u
#define PAGE_MASK  0xfffull

/* A byte load: the register's byte at that offset (all ones where the
 * page is absent) into the low or high byte of the GPR, the rest of the
 * GPR unchanged, as MOV r8 leaves it. */
static void read_byte(struct vcpu *v, struct vlapic *a, uint32_t offset, bool decoded,
                      const struct mmio_access *acc)
{
    uint32_t byte = 0xff;
    if (decoded) {
        uint32_t reg = vlapic_mmio_read(a, offset & ~0xfu, vhw_guest_tsc(v));
        byte = (offset & 0xf) < 4 ? (reg >> ((offset & 3) * 8)) & 0xff : 0;
    }
    unsigned int shift = acc->high_byte ? 8 : 0;
    uint64_t old = vmx_gpr_read(v, acc->reg);
    vmx_gpr_write(v, acc->reg, (old & ~(0xffull << shift)) | (uint64_t)byte << shift);
}

static void emulate(struct vcpu *v, struct vlapic *a, uint32_t offset,
                    const struct mmio_access *acc)
{
    bool decoded = vlapic_mode(a) == VLAPIC_MODE_XAPIC;
    if (acc->size == 1) {
        /* Byte stores are ignored, as KVM ignores them: the registers
         * are accessed as aligned dwords (SDM Vol. 3A 11.4.1). */
        if (!acc->write)
            read_byte(v, a, offset, decoded, acc);
        return;
    }
    if (!acc->write) {
        uint64_t absent = acc->size == 8 ? ~0ull : 0xffffffffull;
        vmx_gpr_write(v, acc->reg, decoded ? vlapic_mmio_read(a, offset, vhw_guest_tsc(v)) : absent);
        return;
    }
    if (!decoded)
        return;
    uint32_t value = acc->from_register ? (uint32_t)vmx_gpr_read(v, acc->reg) : acc->immediate;
    vhw_lapic_result(v, vlapic_mmio_write(a, offset, value, vhw_guest_tsc(v)));
}

bool vhw_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
    struct vlapic *a = &v->domain->vhw->lapic[v->id];
    uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDR);
    if ((gpa & ~PAGE_MASK) != vlapic_mmio_base(a) || (e->qualification & EPT_QUAL_FETCH))
        return false;

    uint8_t insn[MAX_INSN];
    struct mmio_access acc;
    size_t n = guest_virt_fetch(v, e->rip, insn, MAX_INSN);
    bool long_mode = (vmcs_read(VMCS_GUEST_CS_ACCESS_RIGHTS) & (1u << 13)) != 0;  /* CS.L */
    if (!mmio_decode_access(insn, n, long_mode, &acc) ||
        (acc.write != ((e->qualification & EPT_QUAL_WRITE) != 0))) {
        printk("apic: domain %u (%s): cannot decode the access to its APIC page at rip %#lx "
               "(%02x %02x %02x %02x)\n", v->domain->id, v->domain->name, e->rip,
               n > 0 ? insn[0] : 0, n > 1 ? insn[1] : 0, n > 2 ? insn[2] : 0,
               n > 3 ? insn[3] : 0);
        domain_end(v->domain, GUEST_END_ERROR, "undecodable access to its APIC page");
    }
    emulate(v, a, (uint32_t)(gpa & PAGE_MASK), &acc);
    struct vmx_exit done = *e;
    done.instruction_len = acc.length;
    vmx_skip_instruction(v, &done);
    return true;
}
