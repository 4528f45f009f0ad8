/* The log's run-wide event ids (pmu/run/pmu_log_ids.h). */
#include "pmu/run/pmu_log_ids.h"

#include "lib/mem.h"
#include "lib/spinlock.h"
#include "vmm/domain/domain_config.h"

#define IDS_MAX (DOMAIN_MAX * PMU_LOG_IDS_PER_DOMAIN)

struct named_event {
    char name[PMU_EVENT_NAME_MAX];
    uint64_t code;
};

static struct spinlock lock = SPINLOCK_INIT;
static struct named_event table[IDS_MAX];   /* table[i] has id id_of(i) */
static uint32_t count;
static uint32_t added[DOMAIN_MAX];          /* ids each domain added */

_Static_assert(IDS_MAX < UINT32_MAX - 1, "ids fit 32 bits");

static uint32_t id_of(uint32_t index)
{
    return index < PMU_LOG_ID_TIMER ? index : index + 1;
}

static bool same(const struct named_event *e, const struct pmu_event *ev, uint64_t code)
{
    return e->code == code && !strncmp(e->name, ev->name, sizeof(e->name));
}

/* The table index of ev, added at the end if new; IDS_MAX if it is new
 * and there is no room. Under the lock. */
static uint32_t index_of(const struct pmu_event *ev)
{
    uint64_t code = pmu_event_log_code(ev);
    for (uint32_t i = 0; i < count; i++)
        if (same(&table[i], ev, code))
            return i;
    if (count == IDS_MAX)
        return IDS_MAX;
    memcpy(table[count].name, ev->name, sizeof(table[count].name));
    table[count].code = code;
    return count++;
}

bool pmu_log_ids_assign(uint32_t domain, const struct pmu_event_list *list, uint32_t *ids)
{
    uint32_t *share = &added[domain % DOMAIN_MAX];
    spin_lock(&lock);
    uint32_t before = count;
    bool ok = true;
    for (unsigned int i = 0; ok && i < list->count; i++) {
        uint32_t index = index_of(&list->events[i]);
        ok = index < IDS_MAX && *share + (count - before) <= PMU_LOG_IDS_PER_DOMAIN;
        ids[i] = id_of(index);
    }
    if (ok)
        *share += count - before;
    else
        count = before;             /* the ids this call added, taken back */
    spin_unlock(&lock);
    return ok;
}

void pmu_log_ids_reset(void)
{
    spin_lock(&lock);
    count = 0;
    memset(added, 0, sizeof(added));
    spin_unlock(&lock);
}
_Static_assert(PMU_LOG_IDS_PER_DOMAIN == 128u, "pmu_status_text (pmu/backend/pmu_ctx.c) names the share");
