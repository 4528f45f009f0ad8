/* Event names, parsing and counter assignment (see pmu/backend/pmu_events.h).
 * Architectural event encodings: SDM Vol. 3B, 20.2.1.2 table 20-1 "UMask
 * and Event Select Encodings for Pre-Defined Architectural Performance
 * Events"; fixed counters: 20.2.2 and 20.2.5 (fixed counter 0 counts
 * INST_RETIRED.ANY, 1 CPU_CLK_UNHALTED.CORE, 2 CPU_CLK_UNHALTED.REF_TSC,
 * 3 TOPDOWN.SLOTS). */
#include "pmu/backend/pmu_events.h"

#include "vertigo/log_format.h"
#include "lib/format.h"
#include "lib/mem.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define RAW_UMASK_SHIFT   8         /* rUUEE: unit mask above event select */
#define RAW_EVENT_SELECT_MASK 0xffu
#define RAW_MAX           0xffffu
#define HEX_DIGIT_BITS    4
#define HEX_LETTER_BASE   10
#define NO_FIXED          (-1)
#define EVENT_INST_RETIRED 0xc0     /* raw form of "instructions" */

struct arch_event_def {
    const char *name;
    enum pmu_arch_event arch;
    uint8_t event_select;
    uint8_t umask;
    int8_t fixed_index;
};

static const struct arch_event_def arch_defs[] = {
    { "cycles",              PMU_ARCH_CYCLES,          0x3c, 0x00, 1 },
    { "cpu-cycles",          PMU_ARCH_CYCLES,          0x3c, 0x00, 1 },
    { "instructions",        PMU_ARCH_INSTRUCTIONS,    0xc0, 0x00, 0 },
    { "ref-cycles",          PMU_ARCH_REF_CYCLES,      0x3c, 0x01, 2 },
    { "cache-references",    PMU_ARCH_LLC_REFERENCES,  0x2e, 0x4f, NO_FIXED },
    { "cache-misses",        PMU_ARCH_LLC_MISSES,      0x2e, 0x41, NO_FIXED },
    { "branches",            PMU_ARCH_BRANCHES,        0xc4, 0x00, NO_FIXED },
    { "branch-instructions", PMU_ARCH_BRANCHES,        0xc4, 0x00, NO_FIXED },
    { "branch-misses",       PMU_ARCH_BRANCH_MISSES,   0xc5, 0x00, NO_FIXED },
    { "topdown-slots",       PMU_ARCH_TOPDOWN_SLOTS,   0xa4, 0x01, 3 },
};

static const char *const err_texts[] = {
    [PMU_EVERR_NONE]             = "no error",
    [PMU_EVERR_UNKNOWN_NAME]     = "unknown event name",
    [PMU_EVERR_BAD_MODIFIER]     = "bad modifier (use a set of u, k and h, e.g. :u, :uk, :ukh; software events take none)",
    [PMU_EVERR_UNAVAILABLE]      = "this PMU does not count that event",
    [PMU_EVERR_RAW_RANGE]        = "raw event out of range (r0001-rffff, event select not 0)",
    [PMU_EVERR_TOO_MANY]         = "more events than counters",
    [PMU_EVERR_SOFT_CYCLES_ONLY] = "the software PMU counts only cycle-based events on this machine",
    [PMU_EVERR_BAD_EXIT_REASON]  = "unknown VM-exit reason",
    [PMU_EVERR_HW_USER_HYPERVISOR] =
        "the hardware PMU counts the hypervisor at CPL 0, so :uh would count the guest kernel too (use :ukh or :h)",
};

const char *pmu_event_err_text(enum pmu_event_err code)
{
    return (unsigned int)code < ARRAY_LEN(err_texts) ? err_texts[code] : "?";
}

int pmu_event_error_format(const struct pmu_event_error *err, char *buf, unsigned int size)
{
    return fmt_snprintf(buf, size, "event %u \"%s\": %s", err->index, err->token,
                        pmu_event_err_text(err->code));
}

void pmu_event_caps_soft(struct pmu_event_caps *caps, bool tsc_counts_instructions)
{
    memset(caps, 0, sizeof(*caps));
    caps->backend = PMU_BACKEND_SOFT;
    caps->tsc_counts_instructions = tsc_counts_instructions;
    caps->desc.gp_counters = PMU_SOFT_COUNTERS;
    caps->desc.gp_width = 64;
    caps->desc.events_available = (1u << PMU_ARCH_CYCLES) | (1u << PMU_ARCH_REF_CYCLES);
    if (tsc_counts_instructions)
        caps->desc.events_available |= 1u << PMU_ARCH_INSTRUCTIONS;
}

void pmu_event_caps_hw(struct pmu_event_caps *caps, const struct pmu_desc *d)
{
    memset(caps, 0, sizeof(*caps));
    caps->backend = PMU_BACKEND_HW;
    caps->desc = *d;
}

bool pmu_event_counts_instructions(const struct pmu_event *ev)
{
    if (ev->source != PMU_EVENT_HW)
        return false;
    if (ev->arch == PMU_ARCH_INSTRUCTIONS)
        return true;
    return ev->arch == PMU_ARCH_RAW && ev->event_select == EVENT_INST_RETIRED && ev->umask == 0;
}

static void copy_token(char *dst, const char *src, unsigned int len)
{
    if (len >= PMU_EVENT_NAME_MAX)
        len = PMU_EVENT_NAME_MAX - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static bool *modifier_flag(char m, struct pmu_event *ev)
{
    switch (m) {
    case 'u': return &ev->user;
    case 'k': return &ev->kernel;
    case 'h': return &ev->hypervisor;
    }
    return NULL;
}

/* perf's modifiers: u guest user, k guest kernel, h hypervisor (Vertigo);
 * without any, an event counts the guest only (u and k). */
static enum pmu_event_err parse_modifiers(const char *m, unsigned int len, struct pmu_event *ev)
{
    if (len == 0)
        return PMU_EVERR_BAD_MODIFIER;
    ev->user = ev->kernel = ev->hypervisor = false;
    for (unsigned int i = 0; i < len; i++) {
        bool *flag = modifier_flag(m[i], ev);
        if (!flag || *flag)
            return PMU_EVERR_BAD_MODIFIER;
        *flag = true;
    }
    return PMU_EVERR_NONE;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + HEX_LETTER_BASE;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + HEX_LETTER_BASE;
    return -1;
}

/* "rUUEE": returns UNKNOWN_NAME if it is not of that shape at all. */
static enum pmu_event_err parse_raw(const char *s, unsigned int len, struct pmu_event *ev)
{
    if (len < 2 || s[0] != 'r')
        return PMU_EVERR_UNKNOWN_NAME;
    uint32_t value = 0;
    bool too_big = false;
    for (unsigned int i = 1; i < len; i++) {
        int digit = hex_value(s[i]);
        if (digit < 0)
            return PMU_EVERR_UNKNOWN_NAME;
        if (value > RAW_MAX)
            too_big = true;     /* stop shifting: the value is out of range */
        else
            value = (value << HEX_DIGIT_BITS) | (uint32_t)digit;
    }
    if (too_big || value > RAW_MAX || (value & RAW_EVENT_SELECT_MASK) == 0)
        return PMU_EVERR_RAW_RANGE;
    ev->arch = PMU_ARCH_RAW;
    ev->event_select = (uint8_t)value;
    ev->umask = (uint8_t)(value >> RAW_UMASK_SHIFT);
    ev->fixed_index = NO_FIXED;
    return PMU_EVERR_NONE;
}

static enum pmu_event_err parse_base(const char *s, unsigned int len, struct pmu_event *ev)
{
    for (unsigned int i = 0; i < ARRAY_LEN(arch_defs); i++) {
        const struct arch_event_def *d = &arch_defs[i];
        if (strlen(d->name) == len && memcmp(d->name, s, len) == 0) {
            ev->arch = d->arch;
            ev->event_select = d->event_select;
            ev->umask = d->umask;
            ev->fixed_index = d->fixed_index;
            return PMU_EVERR_NONE;
        }
    }
    return parse_raw(s, len, ev);
}

static enum pmu_event_err check_soft(const struct pmu_event_caps *caps, struct pmu_event *ev)
{
    ev->fixed_index = NO_FIXED;
    ev->gp_ok = true;
    if (ev->arch != PMU_ARCH_RAW && (caps->desc.events_available & (1u << ev->arch)))
        return PMU_EVERR_NONE;
    if (caps->tsc_counts_instructions)
        return PMU_EVERR_UNAVAILABLE;   /* exact platform: a real "not counted" */
    return PMU_EVERR_SOFT_CYCLES_ONLY;
}

/* Vertigo runs at CPL 0, so a hardware counter counting it has
 * PERFEVTSEL.OS set, which also counts the guest kernel whenever the
 * counter is enabled in the guest: :uh cannot be told apart from :ukh. */
static enum pmu_event_err check_hw(const struct pmu_event_caps *caps, struct pmu_event *ev)
{
    const struct pmu_desc *d = &caps->desc;
    if (ev->hypervisor && ev->user && !ev->kernel)
        return PMU_EVERR_HW_USER_HYPERVISOR;
    bool arch_ok = ev->arch == PMU_ARCH_RAW || (d->events_available & (1u << ev->arch));
    ev->gp_ok = d->gp_counters > 0 && arch_ok;
    if (ev->fixed_index >= PMU_MAX_FIXED || ev->fixed_index < 0 ||
        !(d->fixed_mask & (1u << ev->fixed_index)))
        ev->fixed_index = NO_FIXED;
    return ev->gp_ok || ev->fixed_index != NO_FIXED ? PMU_EVERR_NONE : PMU_EVERR_UNAVAILABLE;
}

static enum pmu_event_err parse_software(const char *text, unsigned int len,
                                         struct pmu_event *ev, bool *matched)
{
    enum swevent_parse_result r = swevent_parse(text, len, &ev->sw);
    *matched = r != SWEVENT_UNKNOWN;
    if (r == SWEVENT_BAD_REASON)
        return PMU_EVERR_BAD_EXIT_REASON;
    ev->source = PMU_EVENT_SW;
    return PMU_EVERR_NONE;
}

static unsigned int last_colon(const char *text, unsigned int len)
{
    for (unsigned int i = len; i > 0; i--)
        if (text[i - 1] == ':')
            return i - 1;
    return len;
}

enum pmu_event_err pmu_event_parse(const char *text, unsigned int len,
                                   const struct pmu_event_caps *caps, struct pmu_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    copy_token(ev->name, text, len);
    bool matched;
    enum pmu_event_err e = parse_software(text, len, ev, &matched);
    if (matched)
        return e;

    unsigned int colon = last_colon(text, len);
    ev->source = PMU_EVENT_HW;
    ev->user = ev->kernel = true;
    struct swevent unused;
    if (colon < len && swevent_parse(text, colon, &unused) == SWEVENT_OK)
        return PMU_EVERR_BAD_MODIFIER;
    e = parse_base(text, colon, ev);
    if (e == PMU_EVERR_NONE && colon < len)
        e = parse_modifiers(text + colon + 1, len - colon - 1, ev);
    if (e != PMU_EVERR_NONE)
        return e;
    return caps->backend == PMU_BACKEND_SOFT ? check_soft(caps, ev) : check_hw(caps, ev);
}

/* Fixed counters first (an event that can use one takes it), then the
 * lowest free general-purpose or software counter. */
static enum pmu_event_err assign_counters(const struct pmu_event_caps *caps,
                                          struct pmu_event_list *list, unsigned int *bad)
{
    uint32_t fixed_used = 0, gp_used = 0;
    unsigned int gp_count = caps->desc.gp_counters;
    if (gp_count > PMU_MAX_GP && caps->backend == PMU_BACKEND_HW)
        gp_count = PMU_MAX_GP;
    enum pmu_slot_kind gp_kind = caps->backend == PMU_BACKEND_SOFT ? PMU_SLOT_SOFT : PMU_SLOT_GP;

    for (unsigned int i = 0; i < list->count; i++) {
        struct pmu_event *ev = &list->events[i];
        if (ev->source != PMU_EVENT_HW || ev->fixed_index < 0 ||
            (fixed_used & (1u << ev->fixed_index)))
            continue;
        fixed_used |= 1u << ev->fixed_index;
        ev->slot = PMU_SLOT_FIXED;
        ev->slot_index = (uint8_t)ev->fixed_index;
    }
    for (unsigned int i = 0; i < list->count; i++) {
        struct pmu_event *ev = &list->events[i];
        if (ev->source != PMU_EVENT_HW || ev->slot != PMU_SLOT_NONE)
            continue;
        unsigned int c = 0;
        while (c < gp_count && (gp_used & (1u << c)))
            c++;
        if (!ev->gp_ok || c == gp_count) {
            *bad = i;
            return PMU_EVERR_TOO_MANY;
        }
        gp_used |= 1u << c;
        ev->slot = gp_kind;
        ev->slot_index = (uint8_t)c;
    }
    return PMU_EVERR_NONE;
}

static enum pmu_event_err fail(struct pmu_event_error *err, enum pmu_event_err code,
                               unsigned int index, const char *token, unsigned int len)
{
    if (err) {
        err->code = code;
        err->index = index;
        copy_token(err->token, token, len);
    }
    return code;
}

enum pmu_event_err pmu_event_list_parse(const char *text, const struct pmu_event_caps *caps,
                                        struct pmu_event_list *out,
                                        struct pmu_event_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        unsigned int len = comma ? (unsigned int)(comma - p) : (unsigned int)strlen(p);
        if (out->count == PMU_EVENT_LIST_MAX)
            return fail(err, PMU_EVERR_TOO_MANY, out->count, p, len);
        enum pmu_event_err e = len ? pmu_event_parse(p, len, caps, &out->events[out->count])
                                   : PMU_EVERR_UNKNOWN_NAME;
        if (e != PMU_EVERR_NONE)
            return fail(err, e, out->count, p, len);
        out->count++;
        if (!comma)
            break;
        p = comma + 1;
    }
    unsigned int bad = 0;
    if (caps->unplaced)
        return PMU_EVERR_NONE;
    enum pmu_event_err e = assign_counters(caps, out, &bad);
    if (e != PMU_EVERR_NONE)
        return fail(err, e, bad, out->events[bad].name, (unsigned int)strlen(out->events[bad].name));
    return PMU_EVERR_NONE;
}

uint64_t pmu_event_log_code(const struct pmu_event *ev)
{
    if (ev->source == PMU_EVENT_SW)
        return LOG_EVENT_CODE(LOG_EVENT_SRC_SW, ((uint64_t)ev->sw.kind << 16) | ev->sw.reason);
    return LOG_EVENT_CODE(LOG_EVENT_SRC_HW, ((uint64_t)ev->umask << 8) | ev->event_select);
}
