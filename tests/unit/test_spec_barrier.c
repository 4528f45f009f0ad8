/* Speculation barriers between domains (vmm/domain/spec_barrier.c), against a
 * model of the CPU's MSRs that logs every access: which barriers a CPU's
 * enumeration asks for (none on a CPU that enumerates none, as Bochs'
 * does not), that they run only when the next VCPU is another domain's,
 * that SPEC_CTRL is each VCPU's own, and that a domain's writes take only
 * the bits its CPU has. None of this has run on hardware. */
#include "tests/unit/unit.h"

#include "lib/msr.h"
#include "vmm/domain/spec_barrier.h"

#define ALL_EDX (SPEC_CPUID7_MD_CLEAR | SPEC_CPUID7_IBRS_IBPB | SPEC_CPUID7_STIBP | \
                 SPEC_CPUID7_L1D_FLUSH | SPEC_CPUID7_ARCH_CAPS | SPEC_CPUID7_SSBD)

static struct {
    uint64_t spec_ctrl;
    unsigned int ibpb, l1d, verw, spec_writes;
    char order[16];
    unsigned int n;
} cpu;

static uint64_t model_rdmsr(uint32_t msr)
{
    CHECK_EQ(msr, MSR_IA32_SPEC_CTRL);
    return cpu.spec_ctrl;
}

static void note(char c)
{
    if (cpu.n + 1 < sizeof(cpu.order))
        cpu.order[cpu.n++] = c;
}

static void model_wrmsr(uint32_t msr, uint64_t value)
{
    if (msr == MSR_IA32_SPEC_CTRL) {
        cpu.spec_ctrl = value;
        cpu.spec_writes++;
        note('s');
    } else if (msr == MSR_IA32_PRED_CMD && value == SPEC_CMD_BIT) {
        cpu.ibpb++;
        note('i');
    } else if (msr == MSR_IA32_FLUSH_CMD && value == SPEC_CMD_BIT) {
        cpu.l1d++;
        note('l');
    } else {
        unit_fail(__FILE__, __LINE__, "an MSR write the plan never makes: %#x", msr);
    }
}

static void model_verw(void)
{
    cpu.verw++;
    note('v');
}

static const struct spec_ops ops = { model_rdmsr, model_wrmsr, model_verw };

TEST(a_cpu_that_enumerates_nothing_gets_no_barrier)
{
    struct spec_plan p = spec_plan(0, ~0ull);
    uint64_t saved = 7;
    memset(&cpu, 0, sizeof(cpu));
    CHECK(!p.ibpb && !p.l1d_flush && !p.verw && !p.spec_ctrl);
    spec_switch(&p, &ops, &saved, 5, true);
    CHECK_EQ(cpu.n, 0);
    CHECK_EQ(saved, 7);
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_SPEC_CTRL, 0));
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_PRED_CMD, 1));
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_FLUSH_CMD, 1));
}

TEST(an_affected_cpu_gets_ibpb_and_l1d_flush_between_domains_only)
{
    struct spec_plan p = spec_plan(ALL_EDX, 0);
    uint64_t a = 0, b = SPEC_CTRL_SSBD;
    memset(&cpu, 0, sizeof(cpu));
    CHECK(p.ibpb && p.l1d_flush && !p.verw && p.spec_ctrl);   /* the flush clears buffers too */
    spec_switch(&p, &ops, &a, b, true);                 /* domain A -> domain B */
    CHECK_EQ(cpu.spec_ctrl, SPEC_CTRL_SSBD);
    CHECK(!strcmp(cpu.order, "sil"));
    cpu.spec_ctrl = SPEC_CTRL_SSBD | SPEC_CTRL_IBRS;    /* B sets IBRS while it runs */
    memset(cpu.order, 0, sizeof(cpu.order));
    cpu.n = 0;
    spec_switch(&p, &ops, &b, a, false);                /* B -> another VCPU of B */
    CHECK_EQ(b, SPEC_CTRL_SSBD | SPEC_CTRL_IBRS);       /* saved */
    CHECK_EQ(cpu.spec_ctrl, 0);                         /* the next one's own */
    CHECK(!strcmp(cpu.order, "s"));                     /* no barrier inside a domain */
    CHECK_EQ(cpu.ibpb, 1);
    CHECK_EQ(cpu.l1d, 1);
}

TEST(a_cpu_not_affected_skips_what_it_says)
{
    struct spec_plan p = spec_plan(ALL_EDX, SPEC_ARCH_RDCL_NO);
    CHECK(p.ibpb && !p.l1d_flush && p.verw);            /* no L1TF: VERW clears buffers */
    p = spec_plan(ALL_EDX, SPEC_ARCH_SKIP_L1DFL_VMENTRY | SPEC_ARCH_MDS_NO);
    CHECK(p.ibpb && !p.l1d_flush && !p.verw);
    p = spec_plan(ALL_EDX & ~SPEC_CPUID7_ARCH_CAPS, SPEC_ARCH_RDCL_NO | SPEC_ARCH_MDS_NO);
    CHECK(p.l1d_flush);                                 /* no ARCH_CAPABILITIES: affected */
    uint64_t saved = 0;
    p = spec_plan(ALL_EDX, SPEC_ARCH_RDCL_NO);
    memset(&cpu, 0, sizeof(cpu));
    spec_switch(&p, &ops, &saved, 0, true);
    CHECK(!strcmp(cpu.order, "iv"));                    /* equal SPEC_CTRL: not written */
}

TEST(a_domains_spec_msr_writes_take_only_the_enumerated_bits)
{
    struct spec_plan p = spec_plan(SPEC_CPUID7_IBRS_IBPB | SPEC_CPUID7_SSBD, 0);
    CHECK(spec_msr_write_valid(&p, MSR_IA32_SPEC_CTRL, SPEC_CTRL_IBRS | SPEC_CTRL_SSBD));
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_SPEC_CTRL, SPEC_CTRL_STIBP));  /* not enumerated */
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_SPEC_CTRL, 1ull << 3));
    CHECK(spec_msr_write_valid(&p, MSR_IA32_PRED_CMD, 1));
    CHECK(spec_msr_write_valid(&p, MSR_IA32_PRED_CMD, 0));
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_PRED_CMD, 2));
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_FLUSH_CMD, 1));   /* no L1D_FLUSH */
    CHECK(!spec_msr_write_valid(&p, MSR_IA32_EFER, 0));
}
