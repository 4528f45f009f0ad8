/* A domain's TSC offset and TSC_ADJUST (see vmm/vhw/vtsc.h). */
#include "vmm/vhw/vtsc.h"

uint64_t vtsc_guest(const struct vtsc *t, uint64_t host)
{
    return host + t->offset;
}

uint64_t vtsc_host(const struct vtsc *t, uint64_t guest)
{
    return guest == UINT64_MAX ? UINT64_MAX : guest - t->offset;
}

void vtsc_write_tsc(struct vtsc *t, uint64_t host, uint64_t value)
{
    uint64_t before = host + t->offset;
    t->offset = value - host;
    t->adjust += value - before;
}

void vtsc_write_adjust(struct vtsc *t, uint64_t value)
{
    t->offset += value - t->adjust;
    t->adjust = value;
}
