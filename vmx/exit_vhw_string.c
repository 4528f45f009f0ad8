/* String I/O (INS, OUTS, with or without REP) at pc-testdev's data port
 * of a multiboot domain: one element an exit (vmm/vhw/string_io.h), moved
 * between the port (vmm/vhw/testdev.h) and the guest's memory at the
 * linear address the exit gives (SDM Vol. 3C 28.2.1: the guest-linear
 * address field; 28.2.5, table 28-8: the instruction's address size in the
 * VM-exit instruction-information field, which IA32_VMX_BASIC bit 54 says
 * the processor provides for INS and OUTS). kvm-unit-tests' emulator.flat
 * sends a string with REP OUTSB and reads the port into its test memory
 * with REP INSB. Anything this does not handle is left to the caller,
 * whose answer to string I/O is #GP: another port, a guest in 32-bit
 * paging (only 4- and 5-level tables are walked), an element in memory
 * that is not the domain's RAM or not mapped by the guest's tables.
 * Limits: the guest's write protection is not checked for INS (the tables
 * are walked for reading): an INS to a read-only page of the guest's own
 * memory is written; and a single-stepped REP instruction traps once, after
 * its last element, where the processor traps after each iteration. */
#include "vmx/exit_vhw.h"

#include "lib/cpu.h"
#include "vmm/domain/domain.h"
#include "vmm/domain/domain_vhw.h"
#include "vmm/vhw/string_io.h"
#include "vmx/guest_mem.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"

#define INSTR_INFO_ADDR_SIZE(i) (((i) >> 7) & 7)    /* 0: 16-bit, 1: 32-bit, 2: 64-bit */
#define RFLAGS_DF               (1ull << 10)

/* Vertigo's pointer to the guest's byte at linear address `la`, through
 * its page tables (with CPL 3's rights at CPL 3) and its EPT; NULL if it
 * is not the domain's RAM. */
static uint8_t *guest_byte(struct vcpu *v, struct guest_virt_cursor *c, uint64_t la)
{
    uint64_t gpa = la;
    if (c->paging && guest_pt_walk(&c->pg, la, c->user, &gpa) != GUEST_ACCESS_OK)
        return NULL;
    void *page;
    if (guest_phys_ram_page(v, gpa & ~(uint64_t)(PAGE_SIZE - 1), &page) != GUEST_ACCESS_OK)
        return NULL;
    return (uint8_t *)page + (gpa & (PAGE_SIZE - 1));
}

/* The element's bytes in guest memory, each translated on its own (an
 * element may cross a page); false if any is not reachable. */
static bool element_bytes(struct vcpu *v, uint64_t la, unsigned int size, uint8_t *bytes[4])
{
    struct guest_virt_cursor c;
    guest_virt_cursor_init(&c, v);
    c.user = vmx_guest_cpl() == 3;
    if (c.paging && !(vmcs_read(VMCS_ENTRY_CONTROLS) & ENTRY_IA32E_MODE_GUEST))
        return false;                   /* 32-bit paging: not walked */
    for (unsigned int i = 0; i < size; i++)
        if (!(bytes[i] = guest_byte(v, &c, la + i)))
            return false;
    return true;
}

static bool describe(const struct vmx_exit *e, struct string_io *s)
{
    static const unsigned int addr_bits[3] = { 16, 32, 64 };
    unsigned int as = INSTR_INFO_ADDR_SIZE(vmcs_read(VMCS_EXIT_INSTRUCTION_INFO));
    if (!(vmx_config.caps.basic & VMX_BASIC_INS_OUTS_INFO) || as > 2)
        return false;
    *s = (struct string_io){
        .in = (e->qualification & IO_QUAL_IN) != 0,
        .rep = (e->qualification & IO_QUAL_REP) != 0,
        .down = (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_DF) != 0,
        .size = IO_QUAL_SIZE(e->qualification),
        .addr_bits = addr_bits[as],
    };
    return true;
}

/* One element between the port and memory; false if either refuses. */
static bool move_element(struct vcpu *v, const struct string_io *s, uint16_t port)
{
    struct testdev *t = &v->domain->vhw->testdev;
    uint8_t *bytes[4];
    uint32_t value = 0;
    if (!element_bytes(v, vmcs_read(VMCS_GUEST_LINEAR_ADDR), s->size, bytes))
        return false;
    if (!s->in)
        for (unsigned int i = 0; i < s->size; i++)
            value |= (uint32_t)*bytes[i] << (8 * i);
    if (!testdev_io(t, port, s->size, s->in, &value))
        return false;
    if (s->in)
        for (unsigned int i = 0; i < s->size; i++)
            *bytes[i] = (uint8_t)(value >> (8 * i));
    return true;
}

bool vhw_string_io(struct vcpu *v, const struct vmx_exit *e)
{
    uint16_t port = (uint16_t)IO_QUAL_PORT(e->qualification);
    struct string_io s;
    if (!v->domain->vhw->has_testdev || !testdev_owns_port(port) || !describe(e, &s))
        return false;
    struct string_io_regs r = { v->regs.rcx, v->regs.rsi, v->regs.rdi };
    if (string_io_empty(&s, &r)) {
        vmx_skip_instruction(v, e);
        return true;
    }
    if (!move_element(v, &s, port))
        return false;
    bool done = string_io_advance(&s, &r);
    v->regs.rcx = r.rcx;
    v->regs.rsi = r.rsi;
    v->regs.rdi = r.rdi;
    if (done)
        vmx_skip_instruction(v, e);     /* else the same instruction runs again: next element */
    return true;
}
