/* `vertigo stats`' guest-PMU section (see stats_guest_pmu.h). */
#include "host-tools/stats_guest_pmu.h"

#include <inttypes.h>
#include <stdbool.h>

#include "host-tools/guest_pmu_text.h"

static struct guest_pmu_stats_vcpu *find_vcpu(struct guest_pmu_stats *s, uint32_t domain,
                                              uint32_t vcpu)
{
    for (uint32_t i = 0; i < s->vcpu_count; i++)
        if (s->vcpus[i].domain == domain && s->vcpus[i].vcpu == vcpu)
            return &s->vcpus[i];
    if (s->vcpu_count == GUEST_PMU_STATS_VCPUS)
        return NULL;
    struct guest_pmu_stats_vcpu *v = &s->vcpus[s->vcpu_count++];
    *v = (struct guest_pmu_stats_vcpu){ .domain = domain, .vcpu = vcpu };
    return v;
}

/* A programming is listed once, however often a log repeats it. */
static void add_prog(struct guest_pmu_stats_vcpu *v, const struct log_guest_pmu_prog *gp)
{
    for (uint32_t i = 0; i < v->prog_count; i++)
        if (v->progs[i].counter == gp->counter && v->progs[i].control == gp->control)
            return;
    if (v->prog_count < GUEST_PMU_STATS_PROGS)
        v->progs[v->prog_count++] = *gp;
    else
        v->progs_not_listed++;
}

void guest_pmu_stats_add(struct guest_pmu_stats *s, const struct logdec_record *r)
{
    struct guest_pmu_stats_vcpu *v;
    if (r->type == LOG_REC_GUEST_PMU_PROG) {
        v = find_vcpu(s, r->u.guest_pmu_prog.domain, r->u.guest_pmu_prog.vcpu);
        if (v)
            add_prog(v, &r->u.guest_pmu_prog);
    } else if (r->type == LOG_REC_GUEST_PMI) {
        v = find_vcpu(s, r->u.guest_pmi.domain, r->u.guest_pmi.vcpu);
        if (v)
            v->pmis[r->u.guest_pmi.delivery]++;     /* the decoder checked the range */
    } else {
        return;
    }
    if (!v)
        s->records_not_shown++;
}

static void print_progs(FILE *out, const struct guest_pmu_stats_vcpu *v)
{
    fprintf(out, "  dom %u vcpu %u programmed %u:", v->domain, v->vcpu, v->prog_count);
    for (uint32_t i = 0; i < v->prog_count; i++) {
        char counter[GUEST_PMU_TEXT_MAX], event[GUEST_PMU_TEXT_MAX];
        guest_pmu_counter_text(v->progs[i].counter, counter);
        guest_pmu_event_text(v->progs[i].counter, v->progs[i].control, event);
        fprintf(out, "%s %s %s", i ? "," : "", counter, event);
    }
    if (v->progs_not_listed)
        fprintf(out, " (and %" PRIu64 " more)", v->progs_not_listed);
    fputc('\n', out);
}

void guest_pmu_stats_print(FILE *out, const struct guest_pmu_stats *s)
{
    if (!s->vcpu_count && !s->records_not_shown)
        return;
    fprintf(out, "guest pmu (per vcpu):\n");
    for (uint32_t i = 0; i < s->vcpu_count; i++) {
        const struct guest_pmu_stats_vcpu *v = &s->vcpus[i];
        const uint64_t *n = v->pmis;
        print_progs(out, v);
        fprintf(out, "  dom %u vcpu %u pmis %" PRIu64 ": nmi=%" PRIu64 " vector=%" PRIu64
                " masked=%" PRIu64 "\n", v->domain, v->vcpu,
                n[LOG_GUEST_PMI_NMI] + n[LOG_GUEST_PMI_VECTOR] + n[LOG_GUEST_PMI_MASKED],
                n[LOG_GUEST_PMI_NMI], n[LOG_GUEST_PMI_VECTOR], n[LOG_GUEST_PMI_MASKED]);
    }
    if (s->records_not_shown)
        fprintf(out, "  (%" PRIu64 " guest PMU records of VCPUs beyond the first %u not shown)\n",
                s->records_not_shown, GUEST_PMU_STATS_VCPUS);
}
