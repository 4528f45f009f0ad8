/* DR0-DR3 and DR6 of VCPUs switched on a CPU (see vcpu_debugregs.h). */
#include "vmx/vcpu_debugregs.h"

#include "lib/cpu.h"
#include "vmm/vcpu.h"

/* A VCPU that never ran: the values after reset. */
static const struct vcpu_debugregs reset_values = { .dr = { 0, 0, 0, 0 }, .dr6 = 0xffff0ff0ull };

static void save(struct vcpu *v)
{
    struct vcpu_debugregs *d = &v->vmx.debugregs;
    d->dr[0] = read_dr0();
    d->dr[1] = read_dr1();
    d->dr[2] = read_dr2();
    d->dr[3] = read_dr3();
    d->dr6 = read_dr6();
    d->saved = true;
}

void vcpu_debugregs_switch(struct vcpu *from, struct vcpu *to)
{
    save(from);
    const struct vcpu_debugregs *now = &from->vmx.debugregs;
    const struct vcpu_debugregs *in = to->vmx.debugregs.saved ? &to->vmx.debugregs
                                                              : &reset_values;
    /* Each write only on a change: MOV to a debug register is serializing. */
    if (in->dr[0] != now->dr[0])
        write_dr0(in->dr[0]);
    if (in->dr[1] != now->dr[1])
        write_dr1(in->dr[1]);
    if (in->dr[2] != now->dr[2])
        write_dr2(in->dr[2]);
    if (in->dr[3] != now->dr[3])
        write_dr3(in->dr[3]);
    if (in->dr6 != now->dr6)
        write_dr6(in->dr6);
}

void vcpu_debugregs_reset(struct vcpu *v)
{
    write_dr0(reset_values.dr[0]);
    write_dr1(reset_values.dr[1]);
    write_dr2(reset_values.dr[2]);
    write_dr3(reset_values.dr[3]);
    write_dr6(reset_values.dr6);
    v->vmx.debugregs = reset_values;
}
