/* Counting-session policy: backend choice and totals text (see
 * pmu/backend/pmu_session.h). Portable. */
#include "pmu/backend/pmu_session.h"

#include "lib/format.h"
#include "lib/mem.h"

static enum pmu_session_backend current_backend = PMU_SESSION_NONE;

void pmu_session_set_current(enum pmu_session_backend b)
{
    current_backend = b;
}

enum pmu_session_backend pmu_session_current(void)
{
    return current_backend;
}

bool pmu_choice_parse(const char *text, enum pmu_choice *out)
{
    static const struct { const char *name; enum pmu_choice choice; } names[] = {
        { "auto", PMU_CHOICE_AUTO }, { "hw", PMU_CHOICE_HW },
        { "soft", PMU_CHOICE_SOFT }, { "off", PMU_CHOICE_OFF },
    };
    for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].choice;
            return true;
        }
    }
    return false;
}

enum pmu_session_backend pmu_session_decide(enum pmu_choice choice, enum pmu_verdict verdict)
{
    switch (choice) {
    case PMU_CHOICE_AUTO:
        return verdict == PMU_HARDWARE ? PMU_SESSION_HW : PMU_SESSION_SOFT;
    case PMU_CHOICE_HW:
        return verdict == PMU_HARDWARE ? PMU_SESSION_HW : PMU_SESSION_NONE;
    case PMU_CHOICE_SOFT:
        return PMU_SESSION_SOFT;
    case PMU_CHOICE_OFF:
        break;
    }
    return PMU_SESSION_NONE;
}

const char *pmu_session_backend_name(enum pmu_session_backend b)
{
    switch (b) {
    case PMU_SESSION_HW:   return "hw";
    case PMU_SESSION_SOFT: return "soft";
    case PMU_SESSION_NONE: break;
    }
    return "none";
}

int pmu_session_format_totals(const struct pmu_backend *be, const struct pmu_ctx *ctx,
                              const struct swevent_counts *sw, char *buf, unsigned int size)
{
    unsigned int len = 0;
    if (size)
        buf[0] = '\0';
    for (unsigned int i = 0; i < ctx->count; i++) {
        int n = fmt_snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
                             "%s%s=%lu", i ? " " : "", ctx->counters[i].event.name,
                             (unsigned long)pmu_read_event(be, ctx, sw, i));
        if (n > 0)
            len += (unsigned int)n;
    }
    return (int)len;
}
