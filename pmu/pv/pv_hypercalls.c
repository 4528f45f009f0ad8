/* The paravirtual counters' hypercalls: argument checks and handlers (see
 * pmu/pv/pv_hypercalls.h). */
#include "pmu/pv/pv_hypercalls.h"

#include "lib/mem.h"
#include "pmu/pv/pv_guest.h"
#include "vmm/hypercall.h"

/* The page is guest-physical: Vertigo writes it before every entry, and a
 * guest-virtual address would mean nothing once the guest switches CR3. */
static int64_t hc_pv_page(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    if (a->arg[0] & (VERTIGO_PV_PAGE_BYTES - 1))
        return -VERTIGO_EINVAL;
    return pv_guest_page(a->vcpu, a->arg[0]);
}

int64_t pv_program_check(const struct vertigo_pv_program *p)
{
    if (p->abi_version != VERTIGO_PV_ABI || p->reserved)
        return -VERTIGO_EINVAL;
    return strnlen(p->events, sizeof(p->events)) < sizeof(p->events) ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_pv_program(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    struct vertigo_pv_program p;
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], &p, sizeof(p));
    if (!r)
        r = pv_program_check(&p);
    if (r)
        return r;
    return pv_guest_program(a->vcpu, &p);
}

static int64_t hc_pv_read(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return pv_guest_read(a->vcpu, a->arg[0]);
}

static int64_t hc_pv_vector(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    (void)read, (void)ctx;
    return pv_guest_vector(a->vcpu, a->arg[0]);
}

static const struct hypercall_def pv_calls[] = {
    { VERTIGO_HC_PV_PAGE, true, hc_pv_page },
    { VERTIGO_HC_PV_PROGRAM, true, hc_pv_program },
    { VERTIGO_HC_PV_READ, false, hc_pv_read },
    { VERTIGO_HC_PV_VECTOR, true, hc_pv_vector },
};

bool pv_hypercalls_register(void)
{
    return hypercall_register(pv_calls, sizeof(pv_calls) / sizeof(pv_calls[0]));
}
