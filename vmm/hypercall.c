/* Hypercall dispatch: validates every argument, never trusts a guest
 * pointer, and answers unknown numbers with -VERTIGO_ENOSYS. */
#include "vmm/hypercall.h"

#include "vertigo/hypercall.h"
#include "vmm/mem.h"
#include "vmm/vcpu.h"

#define VERDICT_REASON_MAX 63

static int64_t hc_version(void)
{
    return ((int64_t)VERTIGO_HYPERCALL_VERSION << 32) | VERTIGO_FEATURES;
}

/* Without PMU wiring there is no session: zero events, no step to set. */
static int64_t hc_pmu_read(const struct hypercall_args *a)
{
    if (a->pmu)
        return a->pmu->read(a->pmu->ctx, a->arg[0]);
    return a->arg[0] == VERTIGO_PMU_EVENT_COUNT ? 0 : -VERTIGO_EINVAL;
}

static int64_t hc_pmu_step(const struct hypercall_args *a)
{
    return a->pmu ? a->pmu->set_step(a->pmu->ctx, a->arg[0]) : -VERTIGO_EINVAL;
}

/* Reads a NUL-terminated guest string byte by byte (it may cross pages). */
static bool read_guest_string(guest_read_fn read, void *ctx, uint64_t gva,
                              char *out, size_t size)
{
    for (size_t i = 0; i + 1 < size; i++) {
        if (!read(ctx, gva + i, &out[i], 1))
            return false;
        if (!out[i])
            return true;
    }
    out[size - 1] = '\0';
    return true;
}

static int64_t hc_set_verdict(struct domain *d, const struct hypercall_args *a,
                              guest_read_fn read, void *ctx)
{
    char reason[VERDICT_REASON_MAX + 1] = "";
    if (a->arg[0] > 1)
        return -VERTIGO_EINVAL;
    if (a->arg[1] && !read_guest_string(read, ctx, a->arg[1], reason, sizeof(reason)))
        return -VERTIGO_EFAULT;
    d->verdict = a->arg[0] == 0 ? GUEST_VERDICT_PASS : GUEST_VERDICT_FAIL;
    memcpy(d->verdict_text, reason, sizeof(d->verdict_text));
    d->verdict_text[sizeof(d->verdict_text) - 1] = '\0';
    return 0;
}

int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_read_fn read, void *read_ctx)
{
    switch (a->nr) {
    case VERTIGO_HC_VERSION:
        return hc_version();
    case VERTIGO_HC_SET_VERDICT:
        return hc_set_verdict(d, a, read, read_ctx);
    case VERTIGO_HC_PMU_READ:
        return hc_pmu_read(a);
    case VERTIGO_HC_PMU_STEP:
        return hc_pmu_step(a);
    default:
        return -VERTIGO_ENOSYS;
    }
}
