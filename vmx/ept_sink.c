/* The zero-fill sink's EPT windows (see vmx/ept_sink.h). */
#include "vmx/ept_sink.h"

#define SINK_PAGE 0x1000ull

void ept_sink_init(struct ept_sink *s, struct ept *ept, uint64_t scratch_hpa,
                   const struct phys_range *hidden, unsigned int count)
{
    *s = (struct ept_sink){ .lock = SPINLOCK_INIT, .ept = ept, .scratch_hpa = scratch_hpa };
    for (unsigned int i = 0; i < count && s->range_count < EPT_SINK_RANGES_MAX; i++)
        s->ranges[s->range_count++] = hidden[i];
}

static bool hidden_page(const struct ept_sink *s, uint64_t gpa)
{
    for (unsigned int i = 0; i < s->range_count; i++)
        if (gpa + SINK_PAGE > s->ranges[i].base && gpa < s->ranges[i].end)
            return true;
    return false;
}

/* Is `gpa` some VCPU's window other than `except`'s? */
static bool page_in_use(const struct ept_sink *s, uint64_t gpa, unsigned int except)
{
    for (unsigned int i = 0; i < MAX_CPUS; i++)
        if (i != except && s->window[i] == gpa)
            return true;
    return false;
}

/* Maps the page (lock held): the tables it adds count against the budget,
 * which must hold the most one mapping can take before it is tried. */
static enum ept_sink_status map_page(struct ept_sink *s, uint64_t gpa)
{
    if (s->tables_added + EPT_SINK_MAP_TABLES > EPT_SINK_TABLES_MAX)
        return EPT_SINK_EXHAUSTED;
    unsigned int before = s->ept->tables;
    int r = ept_map(s->ept, gpa, s->scratch_hpa, SINK_PAGE, EPT_READ | EPT_WRITE, EPT_MT_WB);
    s->tables_added += s->ept->tables - before;
    return r == EPT_OK ? EPT_SINK_OPENED : EPT_SINK_FAILED;
}

enum ept_sink_status ept_sink_open(struct ept_sink *s, unsigned int vcpu, uint64_t gpa)
{
    enum ept_sink_status st;
    gpa &= ~(SINK_PAGE - 1);
    if (vcpu >= MAX_CPUS || !gpa || !hidden_page(s, gpa))
        return EPT_SINK_REFUSED;
    spin_lock(&s->lock);
    if (s->window[vcpu]) {
        st = EPT_SINK_REFUSED;
    } else if (page_in_use(s, gpa, vcpu)) {
        s->window[vcpu] = gpa;
        st = EPT_SINK_SHARED;
    } else {
        st = map_page(s, gpa);
        if (st == EPT_SINK_OPENED) {
            s->window[vcpu] = gpa;
            __atomic_store_n(&s->generation, s->generation + 1, __ATOMIC_RELEASE);
        }
    }
    spin_unlock(&s->lock);
    return st;
}

bool ept_sink_close(struct ept_sink *s, unsigned int vcpu)
{
    bool ok = true;
    if (vcpu >= MAX_CPUS)
        return true;
    spin_lock(&s->lock);
    uint64_t gpa = s->window[vcpu];
    s->window[vcpu] = 0;
    if (gpa && !page_in_use(s, gpa, vcpu)) {
        ok = ept_unmap(s->ept, gpa, SINK_PAGE) == EPT_OK;
        __atomic_store_n(&s->generation, s->generation + 1, __ATOMIC_RELEASE);
    }
    spin_unlock(&s->lock);
    return ok;
}

/* Only VCPU `vcpu` itself opens and closes its window: no lock needed. */
uint64_t ept_sink_window(struct ept_sink *s, unsigned int vcpu)
{
    return vcpu < MAX_CPUS ? s->window[vcpu] : 0;
}

bool ept_sink_stale(struct ept_sink *s, unsigned int vcpu)
{
    uint64_t now = __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);
    if (vcpu >= MAX_CPUS || s->seen[vcpu] == now)
        return false;
    s->seen[vcpu] = now;
    return true;
}
