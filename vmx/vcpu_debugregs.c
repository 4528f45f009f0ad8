/* DR0-DR3 and DR6 of VCPUs switched on a CPU (see vcpu_debugregs.h). */
#include "vmx/vcpu_debugregs.h"

#include "boot/cpu.h"
#include "vmm/vcpu.h"

#define DR6_RESET 0xffff0ff0ull

/* A VCPU's saved registers; the reset values until it first ran. */
static void saved_of(const struct vcpu *v, uint64_t dr[4], uint64_t *dr6)
{
    const struct vcpu_debugregs *d = &v->vmx.debugregs;
    for (unsigned int i = 0; i < 4; i++)
        dr[i] = d->saved ? d->dr[i] : 0;
    *dr6 = d->saved ? d->dr6 : DR6_RESET;
}

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
    uint64_t dr[4], dr6;
    save(from);
    saved_of(to, dr, &dr6);
    const struct vcpu_debugregs *now = &from->vmx.debugregs;
    /* Each write only on a change: MOV to a debug register is serializing. */
    if (dr[0] != now->dr[0])
        write_dr0(dr[0]);
    if (dr[1] != now->dr[1])
        write_dr1(dr[1]);
    if (dr[2] != now->dr[2])
        write_dr2(dr[2]);
    if (dr[3] != now->dr[3])
        write_dr3(dr[3]);
    if (dr6 != now->dr6)
        write_dr6(dr6);
}
