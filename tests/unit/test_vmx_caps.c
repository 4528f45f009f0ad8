/* Unit tests of vmx/vmx_caps.c (capability MSRs -> VMX controls, EPT/VPID
 * and MISC decoding, CR fixed bits, the report line) lib/exit_names.c and vmx/vmx_errors.c.
 *
 * Capability values:
 *  - Bochs 2.7 "corei7_skylake_x": measured by a boot sector that RDMSRs
 *    0x480..0x491 under Debian's bochs 2.7 and prints them on port 0xE9
 *    (VMCS revision 0x2b; every MSR present).
 *  - Intel Core i7-5600U (Broadwell): a real machine's values as recorded
 *    in VirtualBox's public CPU database (preemption timer rate 5, MTF).
 *  - An early VT-x CPU: constructed from the SDM rules — no TRUE MSRs
 *    (BASIC bit 55 = 0), no secondary controls, no preemption timer. */
#include "tests/unit/unit.h"

#include "lib/msr.h"
#include "lib/exit_names.h"
#include "vmx/vmx_errors.h"
#include "vmx/vmx_caps.h"

struct msr_value {
    uint32_t msr;
    uint64_t value;
};

#define MSR_TABLE_END { 0, 0 }

static const struct msr_value bochs_skylake_x[] = {
    { MSR_IA32_VMX_BASIC,               0x00d810000000002bull },
    { MSR_IA32_VMX_PINBASED_CTLS,       0x0000007f00000016ull },
    { MSR_IA32_VMX_PROCBASED_CTLS,      0xf7f9fffe0401e172ull },
    { MSR_IA32_VMX_EXIT_CTLS,           0x007fffff00036dffull },
    { MSR_IA32_VMX_ENTRY_CTLS,          0x0000ffff000011ffull },
    { MSR_IA32_VMX_MISC,                0x00000000600401e0ull },
    { MSR_IA32_VMX_CR0_FIXED0,          0x0000000080000021ull },
    { MSR_IA32_VMX_CR0_FIXED1,          0x00000000ffffffffull },
    { MSR_IA32_VMX_CR4_FIXED0,          0x0000000000002000ull },
    { MSR_IA32_VMX_CR4_FIXED1,          0x00000000003727ffull },
    { MSR_IA32_VMX_VMCS_ENUM,           0x0000000000000034ull },
    { MSR_IA32_VMX_PROCBASED_CTLS2,     0x02177fff00000000ull },
    { MSR_IA32_VMX_EPT_VPID_CAP,        0x00000f0106334141ull },
    { MSR_IA32_VMX_TRUE_PINBASED_CTLS,  0x0000007f00000016ull },
    { MSR_IA32_VMX_TRUE_PROCBASED_CTLS, 0xf7f9fffe04006172ull },
    { MSR_IA32_VMX_TRUE_EXIT_CTLS,      0x007fffff00036dfbull },
    { MSR_IA32_VMX_TRUE_ENTRY_CTLS,     0x0000ffff000011fbull },
    { MSR_IA32_VMX_VMFUNC,              0x0000000000000001ull },
    MSR_TABLE_END,
};

static const struct msr_value broadwell_5600u[] = {
    { MSR_IA32_VMX_BASIC,               0x00da040000000012ull },
    { MSR_IA32_VMX_PINBASED_CTLS,       0x0000007f00000016ull },
    { MSR_IA32_VMX_PROCBASED_CTLS,      0xfff9fffe0401e172ull },
    { MSR_IA32_VMX_EXIT_CTLS,           0x007fffff00036dffull },
    { MSR_IA32_VMX_ENTRY_CTLS,          0x0000ffff000011ffull },
    { MSR_IA32_VMX_MISC,                0x00000000300481e5ull },
    { MSR_IA32_VMX_CR0_FIXED0,          0x0000000080000021ull },
    { MSR_IA32_VMX_CR0_FIXED1,          0x00000000ffffffffull },
    { MSR_IA32_VMX_CR4_FIXED0,          0x0000000000002000ull },
    { MSR_IA32_VMX_CR4_FIXED1,          0x00000000003767ffull },
    { MSR_IA32_VMX_VMCS_ENUM,           0x000000000000002aull },
    { MSR_IA32_VMX_PROCBASED_CTLS2,     0x00057cff00000000ull },
    { MSR_IA32_VMX_EPT_VPID_CAP,        0x00000f0106334141ull },
    { MSR_IA32_VMX_TRUE_PINBASED_CTLS,  0x0000007f00000016ull },
    { MSR_IA32_VMX_TRUE_PROCBASED_CTLS, 0xfff9fffe04006172ull },
    { MSR_IA32_VMX_TRUE_EXIT_CTLS,      0x007fffff00036dfbull },
    { MSR_IA32_VMX_TRUE_ENTRY_CTLS,     0x0000ffff000011fbull },
    { MSR_IA32_VMX_VMFUNC,              0x0000000000000001ull },
    MSR_TABLE_END,
};

/* Only the MSRs such a CPU has: reading 0x48b..0x491 would #GP. */
static const struct msr_value early_vtx[] = {
    { MSR_IA32_VMX_BASIC,               0x001804000000000dull },
    { MSR_IA32_VMX_PINBASED_CTLS,       0x0000001f00000016ull },
    { MSR_IA32_VMX_PROCBASED_CTLS,      0x77f9fffe0401e172ull },
    { MSR_IA32_VMX_EXIT_CTLS,           0x00036fff00036dffull },
    { MSR_IA32_VMX_ENTRY_CTLS,          0x000013ff000011ffull },
    { MSR_IA32_VMX_MISC,                0x00000000000401c0ull },
    { MSR_IA32_VMX_CR0_FIXED0,          0x0000000080000021ull },
    { MSR_IA32_VMX_CR0_FIXED1,          0x00000000ffffffffull },
    { MSR_IA32_VMX_CR4_FIXED0,          0x0000000000002000ull },
    { MSR_IA32_VMX_CR4_FIXED1,          0x00000000000027ffull },
    { MSR_IA32_VMX_VMCS_ENUM,           0x000000000000002aull },
    MSR_TABLE_END,
};

/* Fake RDMSR over a table; counts reads of MSRs the CPU does not have. */
struct fake_cpu {
    const struct msr_value *table;
    int missing_reads;
    int reads;
};

static uint64_t fake_rdmsr(void *ctx, uint32_t msr)
{
    struct fake_cpu *cpu = ctx;

    cpu->reads++;
    for (const struct msr_value *m = cpu->table; m->msr; m++)
        if (m->msr == msr)
            return m->value;
    cpu->missing_reads++;
    return 0;
}

static struct vmx_cap_msrs load(const struct msr_value *table)
{
    struct fake_cpu cpu = { .table = table };
    struct vmx_cap_msrs caps;

    vmx_caps_read(&caps, fake_rdmsr, &cpu);
    CHECK_EQ(cpu.missing_reads, 0);
    return caps;
}

/* What Vertigo's VCPU set-up asks for (a realistic request). */
static void vertigo_request(struct vmx_ctl_request req[VMX_CTL_COUNT])
{
    memset(req, 0, sizeof(*req) * VMX_CTL_COUNT);
    req[VMX_CTL_PIN].required = PIN_NMI_EXITING | PIN_VIRTUAL_NMIS;
    req[VMX_CTL_PIN].wanted = PIN_PREEMPTION_TIMER;
    req[VMX_CTL_PROC].required = PROC_MSR_BITMAPS | PROC_IO_BITMAPS;
    req[VMX_CTL_PROC].wanted = PROC_HLT_EXITING | PROC_MONITOR_TRAP_FLAG;
    req[VMX_CTL_PROC].must_clear = PROC_CR3_LOAD_EXITING | PROC_CR3_STORE_EXITING;
    req[VMX_CTL_PROC2].required = PROC2_ENABLE_EPT | PROC2_UNRESTRICTED_GUEST;
    req[VMX_CTL_PROC2].wanted = PROC2_ENABLE_VPID | PROC2_ENABLE_RDTSCP |
                                PROC2_ENABLE_INVPCID | PROC2_ENABLE_XSAVES;
    req[VMX_CTL_EXIT].required = EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_IA32_EFER |
                                 EXIT_LOAD_IA32_EFER;
    req[VMX_CTL_EXIT].wanted = EXIT_LOAD_PERF_GLOBAL_CTRL | EXIT_SAVE_PREEMPTION_TIMER;
    req[VMX_CTL_ENTRY].required = ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_IA32_EFER;
    req[VMX_CTL_ENTRY].wanted = ENTRY_LOAD_PERF_GLOBAL_CTRL | ENTRY_LOAD_DEBUG_CONTROLS;
}

TEST(read_bochs_reads_every_msr)
{
    struct fake_cpu cpu = { .table = bochs_skylake_x };
    struct vmx_cap_msrs caps;

    vmx_caps_read(&caps, fake_rdmsr, &cpu);
    CHECK_EQ(cpu.missing_reads, 0);
    CHECK_EQ(cpu.reads, 17);
    CHECK_EQ(caps.basic, 0x00d810000000002bull);
    CHECK_EQ(caps.true_procbased, 0xf7f9fffe04006172ull);
    CHECK_EQ(caps.procbased2, 0x02177fff00000000ull);
    CHECK_EQ(caps.ept_vpid_cap, 0x00000f0106334141ull);
    CHECK_EQ(caps.vmfunc, 1);
    CHECK_EQ(caps.cr4_fixed1, 0x3727ff);
    CHECK_EQ(vmx_caps_revision(&caps), 0x2b);
    CHECK_EQ(vmx_caps_vmcs_size(&caps), 4096);
    CHECK(vmx_caps_has_true_ctls(&caps));
}

TEST(read_early_cpu_skips_absent_msrs)
{
    struct fake_cpu cpu = { .table = early_vtx };
    struct vmx_cap_msrs caps;

    vmx_caps_read(&caps, fake_rdmsr, &cpu);
    CHECK_EQ(cpu.missing_reads, 0);   /* no TRUE_*, CTLS2, EPT_VPID_CAP, VMFUNC */
    CHECK_EQ(cpu.reads, 10);
    CHECK(!vmx_caps_has_true_ctls(&caps));
    CHECK_EQ(caps.true_pinbased, 0);
    CHECK_EQ(caps.procbased2, 0);
    CHECK_EQ(caps.ept_vpid_cap, 0);
    CHECK_EQ(vmx_caps_revision(&caps), 0xd);
    CHECK_EQ(vmx_caps_vmcs_size(&caps), 0x400);
}

TEST(check_basic_accepts_real_and_rejects_bad)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_error err;

    CHECK_EQ(vmx_caps_check_basic(&caps, &err), VMX_CAPS_OK);
    caps.basic &= ~(VMX_BASIC_MEMTYPE_MASK << VMX_BASIC_MEMTYPE_SHIFT);   /* UC */
    CHECK_EQ(vmx_caps_check_basic(&caps, &err), VMX_CAPS_BAD_BASIC);
    CHECK_STR(err.text, "VMX: VMCS memory type 0 is not write-back");
    caps = load(bochs_skylake_x);
    caps.basic |= VMX_BASIC_PHYS_ADDR_32BIT;
    CHECK_EQ(vmx_caps_check_basic(&caps, &err), VMX_CAPS_BAD_BASIC);
    caps = load(bochs_skylake_x);
    caps.basic = (caps.basic & ~(VMX_BASIC_REGION_SIZE_MASK << VMX_BASIC_REGION_SIZE_SHIFT)) |
                 (0x1800ull << VMX_BASIC_REGION_SIZE_SHIFT);
    CHECK_EQ(vmx_caps_check_basic(&caps, &err), VMX_CAPS_BAD_BASIC);
    CHECK_STR(err.text, "VMX: VMCS region size 6144 is not in 1..4096");
}

/* Expected values below were worked out by hand from the MSR values and
 * SDM Vol. 3D A.3-A.5, independently of the implementation. */
TEST(controls_for_vertigo_on_bochs)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request req[VMX_CTL_COUNT];
    struct vmx_controls c;
    struct vmx_error err;

    vertigo_request(req);
    CHECK_EQ(vmx_caps_controls(&caps, req, &c, &err), VMX_CAPS_OK);
    CHECK_EQ(c.pin, 0x7e);           /* 0x16 reserved-1 + NMI exit, vNMI, timer */
    CHECK_EQ(c.proc2, 0x1010aa);     /* EPT, RDTSCP, VPID, UG, INVPCID, XSAVES */
    CHECK_EQ(c.proc, 0x960061f2);    /* no MTF on Bochs, no CR3 exits, 2ndary on */
    CHECK_EQ(c.exit, 0x737ffb);
    CHECK_EQ(c.entry, 0xb3ff);
}

TEST(controls_for_vertigo_on_broadwell)
{
    struct vmx_cap_msrs caps = load(broadwell_5600u);
    struct vmx_ctl_request req[VMX_CTL_COUNT];
    struct vmx_controls c;
    struct vmx_error err;

    vertigo_request(req);
    CHECK_EQ(vmx_caps_controls(&caps, req, &c, &err), VMX_CAPS_OK);
    CHECK_EQ(c.pin, 0x7e);
    CHECK_EQ(c.proc2, 0x10aa);       /* no XSAVES control on this CPU */
    CHECK_EQ(c.proc, 0x9e0061f2);    /* MTF granted */
    CHECK_EQ(c.exit, 0x737ffb);
    CHECK_EQ(c.entry, 0xb3ff);
}

TEST(required_feature_missing_is_named)
{
    struct vmx_cap_msrs caps = load(broadwell_5600u);
    struct vmx_ctl_request req = { .required = PROC2_ENABLE_EPT | PROC2_ENABLE_XSAVES };
    struct vmx_error err;
    uint32_t value = 0x1234;

    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC2, &req, &value, &err), VMX_CAPS_UNSUPPORTED);
    CHECK_STR(err.text, "VMX: required feature 'enable XSAVES/XRSTORS' "
                        "(secondary processor-based control bit 20) is not supported");
    CHECK_EQ(value, 0x1234);         /* untouched on error */

    caps = load(bochs_skylake_x);
    caps.procbased2 &= ~((uint64_t)PROC2_ENABLE_EPT << VMX_CTLS_ALLOWED1_SHIFT);
    req.required = PROC2_ENABLE_EPT;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC2, &req, &value, &err), VMX_CAPS_UNSUPPORTED);
    CHECK_STR(err.text, "VMX: required feature 'enable EPT' "
                        "(secondary processor-based control bit 1) is not supported");

    req = (struct vmx_ctl_request){ .required = PROC_MONITOR_TRAP_FLAG };
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &req, &value, &err), VMX_CAPS_UNSUPPORTED);
    CHECK_STR(err.text, "VMX: required feature 'monitor trap flag' "
                        "(primary processor-based control bit 27) is not supported");
}

TEST(required_secondary_on_cpu_without_secondary_controls)
{
    struct vmx_cap_msrs caps = load(early_vtx);
    struct vmx_ctl_request req[VMX_CTL_COUNT];
    struct vmx_controls c;
    struct vmx_error err;

    vertigo_request(req);
    req[VMX_CTL_PROC].must_clear = 0;   /* no TRUE MSRs: CR3 exits forced */
    CHECK_EQ(vmx_caps_controls(&caps, req, &c, &err), VMX_CAPS_UNSUPPORTED);
    CHECK_STR(err.text, "VMX: required feature 'virtual NMIs' "
                        "(pin-based control bit 5) is not supported");
    req[VMX_CTL_PIN].required = PIN_NMI_EXITING;
    CHECK_EQ(vmx_caps_controls(&caps, req, &c, &err), VMX_CAPS_UNSUPPORTED);
    CHECK_STR(err.text, "VMX: required feature 'enable EPT' "
                        "(secondary processor-based control bit 1) is not supported");
}

TEST(true_msrs_absent_force_default1_controls)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request proc = { .required = PROC_HLT_EXITING };
    struct vmx_ctl_request entry = { .required = ENTRY_IA32E_MODE_GUEST };
    struct vmx_error err;
    uint32_t value;

    /* TRUE MSRs present: CR3 exiting and "load debug controls" may be 0. */
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &proc, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x040061f2);
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_ENTRY, &entry, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x13fb);
    CHECK_EQ(value & ENTRY_LOAD_DEBUG_CONTROLS, 0);

    /* Same CPU claiming no TRUE MSRs: the default1 controls stay 1. */
    caps.basic &= ~VMX_BASIC_TRUE_CTLS;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &proc, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x0401e1f2);
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_ENTRY, &entry, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x13ff);
}

TEST(must_be_one_but_wanted_zero_is_an_error)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request proc = { .must_clear = PROC_CR3_LOAD_EXITING };
    struct vmx_error err;
    uint32_t value;

    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &proc, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value & PROC_CR3_LOAD_EXITING, 0);
    caps.basic &= ~VMX_BASIC_TRUE_CTLS;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &proc, &value, &err), VMX_CAPS_FORCED_ON);
    CHECK_STR(err.text, "VMX: feature 'CR3-load exiting' (primary processor-based "
                        "control bit 15) cannot be turned off on this CPU");
    /* A reserved must-be-1 bit cannot be cleared either. */
    proc.must_clear = VMX_BIT(1);
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PROC, &proc, &value, &err), VMX_CAPS_FORCED_ON);
    CHECK_STR(err.text, "VMX: feature 'reserved' (primary processor-based "
                        "control bit 1) cannot be turned off on this CPU");
}

TEST(required_and_must_clear_conflict)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request pin = { .required = PIN_NMI_EXITING, .must_clear = PIN_NMI_EXITING };
    struct vmx_error err;
    uint32_t value;

    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PIN, &pin, &value, &err), VMX_CAPS_BAD_REQUEST);
    CHECK_STR(err.text, "VMX: feature 'NMI exiting' (pin-based control bit 3) "
                        "is both required and must-be-clear");
}

TEST(unknown_reserved_bits_get_default_settings)
{
    /* A CPU whose TRUE pin-based MSR lets the default1 reserved bits 1, 2
     * and 4 be 0: Vertigo does not know them, so they keep default 1. */
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request none = {0};
    struct vmx_error err;
    uint32_t value;

    caps.true_pinbased = 0x0000007f00000000ull;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PIN, &none, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x16);
    /* A default0 reserved bit that may be 1 stays 0. */
    caps.true_pinbased |= (uint64_t)VMX_BIT(8) << VMX_CTLS_ALLOWED1_SHIFT;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PIN, &none, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x16);
    /* Wanted but unsupported: silently 0. */
    none.wanted = PIN_POSTED_INTERRUPTS;
    CHECK_EQ(vmx_caps_control(&caps, VMX_CTL_PIN, &none, &value, &err), VMX_CAPS_OK);
    CHECK_EQ(value, 0x16);
}

TEST(no_secondary_request_leaves_secondary_off)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ctl_request req[VMX_CTL_COUNT] = {{0}};
    struct vmx_controls c;
    struct vmx_error err;

    CHECK_EQ(vmx_caps_controls(&caps, req, &c, &err), VMX_CAPS_OK);
    CHECK_EQ(c.proc & PROC_SECONDARY_CONTROLS, 0);
    CHECK_EQ(c.proc2, 0);
    CHECK_EQ(c.proc, 0x04006172);
    CHECK_EQ(c.exit, 0x36dfb);
    CHECK_EQ(c.entry, 0x11fb);
}

TEST(ept_vpid_capabilities_decode)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    struct vmx_ept_caps ept;

    vmx_caps_ept(&caps, &ept);
    CHECK(ept.ept && ept.walk_4level && ept.memtype_wb && ept.memtype_uc);
    CHECK(ept.page_2m && ept.page_1g && ept.ad_flags && ept.exec_only);
    CHECK(!ept.advanced_exit_info);
    CHECK(ept.invept && ept.invept_single && ept.invept_all);
    CHECK(ept.vpid && ept.invvpid && ept.invvpid_addr && ept.invvpid_single);
    CHECK(ept.invvpid_all && ept.invvpid_single_globals);

    caps.ept_vpid_cap &= ~(EPT_CAP_PAGE_1G | EPT_CAP_AD_FLAGS | EPT_CAP_INVEPT_SINGLE);
    vmx_caps_ept(&caps, &ept);
    CHECK(ept.page_2m && !ept.page_1g && !ept.ad_flags && !ept.invept_single && ept.invept_all);

    /* EPT control not settable: no EPT capability counts, VPID still does. */
    caps.procbased2 &= ~((uint64_t)PROC2_ENABLE_EPT << VMX_CTLS_ALLOWED1_SHIFT);
    vmx_caps_ept(&caps, &ept);
    CHECK(!ept.ept && !ept.walk_4level && !ept.page_2m && !ept.invept);
    CHECK(ept.vpid && ept.invvpid_single);

    caps = load(early_vtx);
    vmx_caps_ept(&caps, &ept);
    CHECK(!ept.ept && !ept.vpid && !ept.invvpid);
}

TEST(misc_timer_rate_activity_states_msr_lists)
{
    struct vmx_cap_msrs bochs = load(bochs_skylake_x);
    struct vmx_cap_msrs bdw = load(broadwell_5600u);
    struct vmx_cap_msrs caps = bochs;

    CHECK_EQ(vmx_caps_preemption_tsc_shift(&bochs), 0);
    CHECK_EQ(vmx_caps_preemption_tsc_shift(&bdw), 5);
    CHECK(vmx_caps_activity_state(&bochs, VMX_ACTIVITY_HLT));
    CHECK(vmx_caps_activity_state(&bochs, VMX_ACTIVITY_SHUTDOWN));
    CHECK(vmx_caps_activity_state(&bochs, VMX_ACTIVITY_WAIT_SIPI));
    caps.misc = VMX_MISC_ACTIVITY_HLT | (3ull << VMX_MISC_MSR_LIST_SHIFT);
    CHECK(vmx_caps_activity_state(&caps, VMX_ACTIVITY_ACTIVE));
    CHECK(vmx_caps_activity_state(&caps, VMX_ACTIVITY_HLT));
    CHECK(!vmx_caps_activity_state(&caps, VMX_ACTIVITY_WAIT_SIPI));
    CHECK(!vmx_caps_activity_state(&caps, VMX_ACTIVITY_SHUTDOWN));
    CHECK_EQ(vmx_caps_max_msr_list(&bochs), 512);
    CHECK_EQ(vmx_caps_max_msr_list(&caps), 2048);
}

TEST(cr_fixed_bits)
{
    struct vmx_cap_msrs caps = load(bochs_skylake_x);
    const uint64_t cr0_et = 1ull << 4, cr0_cd = 1ull << 30;
    const uint64_t cr4_pae = 1ull << 5, cr4_pke = 1ull << 22, cr4_osxsave = 1ull << 18;
    const uint64_t cr4_smxe = 1ull << 14;

    CHECK_EQ(vmx_caps_fix_cr0(&caps, cr0_et, false), 0x80000031);
    CHECK_EQ(vmx_caps_fix_cr0(&caps, cr0_et, true), 0x30);        /* PE/PG free */
    CHECK_EQ(vmx_caps_fix_cr0(&caps, 0x80000001 | cr0_cd, true), 0xc0000021);
    CHECK_EQ(vmx_caps_fix_cr0(&caps, 1ull << 32, false), 0x80000021);
    CHECK_EQ(vmx_caps_fix_cr4(&caps, cr4_pae | cr4_pke), 0x2020);  /* no PKE on Bochs */
    CHECK_EQ(vmx_caps_fix_cr4(&caps, cr4_osxsave), 0x42000);
    caps = load(broadwell_5600u);
    CHECK_EQ(vmx_caps_fix_cr4(&caps, cr4_pae | cr4_pke), 0x2020);   /* no PKE on Broadwell */
    CHECK_EQ(vmx_caps_fix_cr4(&caps, cr4_smxe), 0x6000);            /* SMX there... */
    caps = load(bochs_skylake_x);
    CHECK_EQ(vmx_caps_fix_cr4(&caps, cr4_smxe), 0x2000);            /* ...not on Bochs */
}

TEST(describe_lines)
{
    struct vmx_cap_msrs bochs = load(bochs_skylake_x);
    struct vmx_cap_msrs bdw = load(broadwell_5600u);
    struct vmx_cap_msrs early = load(early_vtx);
    char line[256], tiny[16];
    int n;

    n = vmx_caps_describe(&bochs, line, sizeof(line));
    CHECK_STR(line, "vmx: rev 0x2b, EPT 4-level 2M 1G A/D, VPID, unrestricted guest, "
                    "preemption timer (TSC>>0), MTF no, load PERF_GLOBAL_CTRL entry+exit, "
                    "NMI exiting, virtual NMIs");
    CHECK_EQ(n, strlen(line));
    vmx_caps_describe(&bdw, line, sizeof(line));
    CHECK_STR(line, "vmx: rev 0x12, EPT 4-level 2M 1G A/D, VPID, unrestricted guest, "
                    "preemption timer (TSC>>5), MTF, load PERF_GLOBAL_CTRL entry+exit, "
                    "NMI exiting, virtual NMIs");
    vmx_caps_describe(&early, line, sizeof(line));
    CHECK_STR(line, "vmx: rev 0xd, EPT no, VPID no, unrestricted guest no, "
                    "preemption timer no, MTF no, load PERF_GLOBAL_CTRL no, "
                    "NMI exiting, virtual NMIs no");
    bdw.entry &= ~((uint64_t)ENTRY_LOAD_PERF_GLOBAL_CTRL << VMX_CTLS_ALLOWED1_SHIFT);
    bdw.true_entry = bdw.entry;
    bdw.ept_vpid_cap &= ~EPT_CAP_PAGE_1G;
    vmx_caps_describe(&bdw, line, sizeof(line));
    CHECK(strstr(line, "EPT 4-level 2M A/D, VPID") != NULL);
    CHECK(strstr(line, "load PERF_GLOBAL_CTRL exit,") != NULL);

    n = vmx_caps_describe(&bochs, tiny, sizeof(tiny));
    CHECK_STR(tiny, "vmx: rev 0x2b, ");
    CHECK(n > (int)sizeof(tiny));
}

TEST(control_bit_names)
{
    CHECK_STR(vmx_ctl_bit_name(VMX_CTL_PROC2, 1), "enable EPT");
    CHECK_STR(vmx_ctl_bit_name(VMX_CTL_EXIT, 12), "load IA32_PERF_GLOBAL_CTRL");
    CHECK(vmx_ctl_bit_name(VMX_CTL_PIN, 1) == NULL);
    CHECK(vmx_ctl_bit_name(VMX_CTL_PIN, 32) == NULL);
    CHECK_STR(vmx_ctl_kind_name(VMX_CTL_ENTRY), "VM-entry control");
}

TEST(exit_reason_names)
{
    const uint32_t reserved[] = { 35, 38, 42, 71 };

    CHECK_STR(vmx_exit_reason_name(EXIT_REASON_CPUID), "CPUID");
    CHECK_STR(vmx_exit_reason_name(48), "EPT violation");
    CHECK_STR(vmx_exit_reason_name(EXIT_REASON_ENTRY_FAILURE | 33),
              "VM-entry failure: invalid guest state");
    CHECK_STR(vmx_exit_reason_name(77), "TDCALL");
    CHECK_STR(vmx_exit_reason_name(EXIT_REASON_COUNT), "unknown");
    CHECK_STR(vmx_exit_reason_name(0xffff), "unknown");
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        CHECK_STR(vmx_exit_reason_name(reserved[i]), "unknown");
    for (uint32_t r = 0; r < EXIT_REASON_COUNT; r++) {
        bool is_reserved = r == 35 || r == 38 || r == 42 || r == 71;
        if (!is_reserved && strcmp(vmx_exit_reason_name(r), "unknown") == 0)
            unit_fail(__FILE__, __LINE__, "exit reason %u has no name", r);
    }
}

TEST(instruction_error_texts)
{
    CHECK_STR(vmx_instruction_error_text(0), "no error");
    CHECK_STR(vmx_instruction_error_text(VMXERR_ENTRY_INVALID_CONTROLS),
              "VM entry with invalid control field(s)");
    CHECK_STR(vmx_instruction_error_text(12),
              "VMREAD/VMWRITE from/to unsupported VMCS component");
    CHECK_STR(vmx_instruction_error_text(28), "invalid operand to INVEPT/INVVPID");
    CHECK_STR(vmx_instruction_error_text(14), "unknown VM-instruction error");
    CHECK_STR(vmx_instruction_error_text(29), "unknown VM-instruction error");
}
