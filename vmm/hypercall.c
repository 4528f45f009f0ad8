/* Hypercall dispatch: the core's own calls, and the table of the calls the
 * features registered at start-up (see vmm/hypercall.h). Every argument is
 * validated, no guest pointer trusted (each is read with the caller's
 * access rights, and one that is unmapped, non-canonical, supervisor-only
 * for a user-mode caller or device memory gets its own error), and a
 * number no one answers gets -VERTIGO_ENOSYS. */
#include "vmm/hypercall.h"

#include "vertigo/hypercall.h"
#include "vertigo/log_format.h"
#include "lib/mem.h"
#include "vmm/vcpu.h"

#define VERDICT_REASON_MAX 63
#define KERNEL_CPL         0u

/* The features' calls by number, filled at start-up before any guest runs
 * and only read after. */
static const struct hypercall_def *registered[VERTIGO_HC_COUNT];

static int64_t hc_version(void)
{
    return ((int64_t)VERTIGO_HYPERCALL_VERSION << 32) | VERTIGO_FEATURES;
}

int64_t hypercall_access_error(enum guest_access access)
{
    switch (access) {
    case GUEST_ACCESS_OK:
        return 0;
    case GUEST_ACCESS_SUPERVISOR:
        return -VERTIGO_EACCES;
    case GUEST_ACCESS_NOT_RAM:
        return -VERTIGO_EMMIO;
    default:
        return -VERTIGO_EFAULT;
    }
}

int64_t hypercall_copy_in(guest_copy_fn read, void *read_ctx, uint64_t gva, void *buf,
                          size_t len)
{
    return hypercall_access_error(read(read_ctx, gva, buf, len));
}

static bool core_call(uint64_t nr)
{
    return nr == VERTIGO_HC_VERSION || nr == VERTIGO_HC_SET_VERDICT ||
           nr == VERTIGO_HC_CONSOLE_WRITE || nr == VERTIGO_HC_POWER_OFF;
}

bool hypercall_register(const struct hypercall_def *defs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (defs[i].nr >= VERTIGO_HC_COUNT || core_call(defs[i].nr) ||
            registered[defs[i].nr] || !defs[i].handler)
            return false;
    for (size_t i = 0; i < count; i++)
        registered[defs[i].nr] = &defs[i];
    return true;
}

void hypercall_unregister_all(void)
{
    memset(registered, 0, sizeof(registered));
}

/* Reads a NUL-terminated guest string byte by byte (it may cross pages):
 * 0 or the error for the first byte that cannot be read. */
static int64_t read_guest_string(guest_copy_fn read, void *ctx, uint64_t gva,
                                 char *out, size_t size)
{
    for (size_t i = 0; i + 1 < size; i++) {
        int64_t r = hypercall_copy_in(read, ctx, gva + i, &out[i], 1);
        if (r)
            return r;
        if (!out[i])
            return 0;
    }
    out[size - 1] = '\0';
    return 0;
}

/* The reason is printed on Vertigo's console, whose lines decide the run:
 * a control byte (a newline would start a line of the guest's choosing)
 * becomes '?'. */
static void sanitize_reason(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            *s = '?';
}

static int64_t hc_set_verdict(struct domain *d, const struct hypercall_args *a,
                              guest_copy_fn read, void *ctx)
{
    char reason[VERDICT_REASON_MAX + 1] = "";
    if (a->arg[0] > 1)
        return -VERTIGO_EINVAL;
    int64_t r = a->arg[1] ? read_guest_string(read, ctx, a->arg[1], reason, sizeof(reason)) : 0;
    if (r)
        return r;
    sanitize_reason(reason);
    d->verdict = a->arg[0] == 0 ? GUEST_VERDICT_PASS : GUEST_VERDICT_FAIL;
    memcpy(d->verdict_text, reason, sizeof(d->verdict_text));
    d->verdict_text[sizeof(d->verdict_text) - 1] = '\0';
    return 0;
}

static int64_t hc_console_write(const struct hypercall_args *a, guest_copy_fn read, void *ctx)
{
    const struct hypercall_domain *dom = a->domain;
    uint64_t len = a->arg[1];
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (len == 0 || len > VERTIGO_CONSOLE_WRITE_MAX)
        return -VERTIGO_EINVAL;
    if (!dom || !dom->console)
        return -VERTIGO_ENOSYS;
    int64_t r = hypercall_copy_in(read, ctx, a->arg[0], dom->buffer, len);
    return r ? r : dom->console(dom->ctx, dom->buffer, len);
}

static int64_t hc_power_off(const struct hypercall_args *a)
{
    if (a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    if (!a->domain)
        return -VERTIGO_ENOSYS;
    a->domain->power_off(a->domain->ctx);
    return 0;
}

/* A feature's call: its privilege, then its handler. */
static int64_t feature_call(const struct hypercall_args *a, guest_copy_fn read, void *read_ctx)
{
    const struct hypercall_def *def = a->nr < VERTIGO_HC_COUNT ? registered[a->nr] : NULL;
    if (!def)
        return -VERTIGO_ENOSYS;
    if (def->kernel_only && a->cpl != KERNEL_CPL)
        return -VERTIGO_EPERM;
    return def->handler(a, read, read_ctx);
}

int64_t hypercall_dispatch(struct domain *d, const struct hypercall_args *a,
                           guest_copy_fn read, void *read_ctx)
{
    switch (a->nr) {
    case VERTIGO_HC_VERSION:
        return hc_version();
    case VERTIGO_HC_SET_VERDICT:
        return hc_set_verdict(d, a, read, read_ctx);
    case VERTIGO_HC_CONSOLE_WRITE:
        return hc_console_write(a, read, read_ctx);
    case VERTIGO_HC_POWER_OFF:
        return hc_power_off(a);
    default:
        return feature_call(a, read, read_ctx);
    }
}
