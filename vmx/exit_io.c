/* I/O-instruction exits (SDM Vol. 3C 28.2.1, exit qualification for I/O
 * instructions): only accesses that touch a port in the I/O bitmaps exit;
 * vmx/io_policy.c performs them, and a reset or power-off request ends
 * the guest here. */
#include "lib/console.h"
#include "vmm/domain/domain.h"
#include "vmx/exit.h"
#include "vmx/io_policy.h"
#include "vmx/vmx_ops.h"

static const uint32_t size_mask[5] = { 0, 0xff, 0xffff, 0, 0xffffffff };

void handle_io(struct vcpu *v, const struct vmx_exit *e)
{
    uint64_t q = e->qualification;
    unsigned int size = IO_QUAL_SIZE(q);
    uint16_t port = (uint16_t)IO_QUAL_PORT(q);
    int is_in = (q & IO_QUAL_IN) != 0;

    if (q & IO_QUAL_STRING) {
        /* No guest driver uses string I/O on these ports; dropping the
         * access keeps Vertigo's ports safe without an instruction emulator. */
        static int reported;
        if (!reported++)
            printk("vmx: vcpu %u: string I/O on owned port %#x at rip %#lx dropped\n",
                   v->id, port, e->rip);
        vmx_skip_instruction(v, e);
        return;
    }
    uint32_t value = (uint32_t)v->regs.rax & size_mask[size];
    struct io_outcome o = io_policy_access(port, (unsigned int)size, is_in, &value);
    if (o.end != IO_CONTINUE)
        domain_end(v->domain, o.end == IO_END_RESET ? GUEST_END_RESET : GUEST_END_POWER_OFF,
                   o.why);
    if (is_in) {
        value &= size_mask[size];
        if (size == 4)
            v->regs.rax = value;    /* 32-bit results zero-extend */
        else
            v->regs.rax = (v->regs.rax & ~(uint64_t)size_mask[size]) | value;
    }
    vmx_skip_instruction(v, e);
}
