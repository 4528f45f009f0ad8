/* Unit tests: dom.N=, dom.N.mem/cpu/vcpus/cpus/name and sched.slice= (vmm/domain/domain_config.c). */
#include "vmm/domain/domain_config.h"

#include "tests/unit/unit.h"

static struct domain_config cfg;
static char err[160];

static bool parse(const char *cmdline)
{
    err[0] = '\0';
    return domain_config_parse(cmdline, 2, &cfg, err, sizeof(err));
}

TEST(no_domains_gives_defaults)
{
    CHECK(parse("console=com1 pmu=off"));
    CHECK_EQ(cfg.count, 0);
    CHECK_EQ(cfg.slice_us, 10000);
    CHECK_STR(cfg.dom[0].name, "dom0");
    for (unsigned int n = 0; n < DOMAIN_MAX; n++)
        CHECK_EQ(cfg.dom[n].kind, DOMAIN_KIND_NONE);
}

TEST(unikernel_and_linux_domains)
{
    CHECK(parse("dom.1=unikernel:uk dom.3=linux:k1:i1 dom.3.mem=512M dom.3.cpu=1 "
                "dom.3.name=web sched.slice=500us"));
    CHECK_EQ(cfg.count, 2);
    CHECK_EQ(cfg.dom[1].kind, DOMAIN_KIND_UNIKERNEL);
    CHECK_STR(cfg.dom[1].module, "uk");
    CHECK_EQ(cfg.dom[1].mem_bytes, 32ull << 20);
    CHECK_EQ(cfg.dom[1].cpus[0], 0);
    CHECK_EQ(cfg.dom[1].vcpus, 1);
    CHECK_STR(cfg.dom[1].name, "dom1");
    CHECK_EQ(cfg.dom[2].kind, DOMAIN_KIND_NONE);
    CHECK_EQ(cfg.dom[3].kind, DOMAIN_KIND_LINUX);
    CHECK_STR(cfg.dom[3].module, "k1");
    CHECK_STR(cfg.dom[3].initrd, "i1");
    CHECK_EQ(cfg.dom[3].mem_bytes, 512ull << 20);
    CHECK_EQ(cfg.dom[3].cpus[0], 1);
    CHECK_EQ(cfg.dom[3].vcpus, 1);
    CHECK_STR(cfg.dom[3].name, "web");
    CHECK_EQ(cfg.slice_us, 500);
    CHECK(parse("dom.7=linux:k:i"));
    CHECK_EQ(cfg.dom[7].mem_bytes, 256ull << 20);
}

TEST(on_reboot_restart_or_end)
{
    CHECK(parse("dom.1=linux:k:i dom.1.on_reboot=restart dom.2=linux:k:i "
                "dom.3=linux:k:i dom.3.on_reboot=end"));
    CHECK(cfg.dom[1].restart_on_reboot);
    CHECK(!cfg.dom[2].restart_on_reboot);      /* the default: end */
    CHECK(!cfg.dom[3].restart_on_reboot);
}

TEST(multiboot_domains)
{
    CHECK(parse("dom.2=multiboot:kut dom.3=multiboot:k:env:m2 dom.3.mem=64M "
                "\"dom.3.cmdline=-foo bar\" dom.4=multiboot:a:1:2:3:4:5:6:7:8"));
    CHECK_EQ(cfg.count, 3);
    CHECK_EQ(cfg.dom[2].kind, DOMAIN_KIND_MULTIBOOT);
    CHECK_STR(cfg.dom[2].module, "kut");
    CHECK_EQ(cfg.dom[2].module_count, 0);
    CHECK_EQ(cfg.dom[2].mem_bytes, 128ull << 20);
    CHECK(!cfg.dom[2].has_cmdline);
    CHECK_STR(cfg.dom[3].module, "k");
    CHECK_EQ(cfg.dom[3].module_count, 2);
    CHECK_STR(cfg.dom[3].modules[0], "env");
    CHECK_STR(cfg.dom[3].modules[1], "m2");
    CHECK_EQ(cfg.dom[3].mem_bytes, 64ull << 20);
    CHECK(cfg.dom[3].has_cmdline);
    CHECK_STR(cfg.dom[3].cmdline, "-foo bar");
    CHECK_EQ(cfg.dom[4].module_count, 8);
    CHECK_STR(cfg.dom[4].modules[7], "8");
    CHECK(parse("dom.1=multiboot:k dom.1.cmdline="));
    CHECK(cfg.dom[1].has_cmdline);
    CHECK_STR(cfg.dom[1].cmdline, "");
    CHECK(!cfg.dom[1].no_x2apic);
    CHECK(parse("dom.1=multiboot:k dom.1.x2apic=off dom.2=multiboot:k dom.2.x2apic=on"));
    CHECK(cfg.dom[1].no_x2apic);
    CHECK(!cfg.dom[2].no_x2apic);
}

/* Linux domains may share a kernel and an initrd module, each with its
 * own command line (without one, the kernel module's line). */
TEST(linux_domains_share_modules)
{
    CHECK(parse("dom.1=linux:kernel:initrd \"dom.1.cmdline=quiet vertigo.scenario=hello\" "
                "dom.2=linux:kernel:initrd"));
    CHECK_EQ(cfg.dom[1].kind, DOMAIN_KIND_LINUX);
    CHECK_STR(cfg.dom[1].module, "kernel");
    CHECK_STR(cfg.dom[1].initrd, "initrd");
    CHECK(cfg.dom[1].has_cmdline);
    CHECK_STR(cfg.dom[1].cmdline, "quiet vertigo.scenario=hello");
    CHECK_STR(cfg.dom[2].module, "kernel");
    CHECK(!cfg.dom[2].has_cmdline);
}

/* Several VCPUs: dom.N.vcpus= alone puts VCPU i on CPU i; dom.N.cpus=
 * places each (its length is the count without dom.N.vcpus=). */
static bool parse_on(const char *cmdline, unsigned int cpus)
{
    err[0] = '\0';
    return domain_config_parse(cmdline, cpus, &cfg, err, sizeof(err));
}

TEST(vcpus_and_their_cpus)
{
    CHECK(parse("dom.1=linux:k:i dom.1.vcpus=2"));
    CHECK_EQ(cfg.dom[1].vcpus, 2);
    CHECK_EQ(cfg.dom[1].cpus[0], 0);
    CHECK_EQ(cfg.dom[1].cpus[1], 1);
    CHECK(parse("dom.1=linux:k:i dom.1.cpus=1,0"));
    CHECK_EQ(cfg.dom[1].vcpus, 2);
    CHECK_EQ(cfg.dom[1].cpus[0], 1);
    CHECK_EQ(cfg.dom[1].cpus[1], 0);
    CHECK(parse("dom.1=linux:k:i dom.1.vcpus=1 dom.1.cpus=1"));
    CHECK_EQ(cfg.dom[1].vcpus, 1);
    CHECK_EQ(cfg.dom[1].cpus[0], 1);
    CHECK(parse("dom.2=unikernel:u dom.2.cpus=1 dom.3=multiboot:m dom.3.vcpus=1"));
    CHECK_EQ(cfg.dom[2].vcpus, 1);
    CHECK_EQ(cfg.dom[2].cpus[0], 1);
    CHECK_EQ(cfg.dom[3].vcpus, 1);
    CHECK(parse_on("dom.4=linux:k:i dom.4.cpus=7,0,3,5,1,2,6,4", 8));
    CHECK_EQ(cfg.dom[4].vcpus, 8);
    CHECK_EQ(cfg.dom[4].cpus[0], 7);
    CHECK_EQ(cfg.dom[4].cpus[7], 4);
    CHECK(parse_on("dom.4=linux:k:i dom.4.vcpus=3 dom.4.cpus=0x2,0,1", 3));
    CHECK_EQ(cfg.dom[4].cpus[0], 2);
}

/* Each bad value fails with a message naming the option. */
TEST(bad_values_are_named)
{
    static const struct { const char *cmdline, *message; } bad[] = {
        { "dom.1=vm:x", "dom.1=vm:x: unknown domain kind" },
        { "dom.1=unikernel:", "dom.1=unikernel:: expected unikernel:MODULE" },
        { "dom.1=unikernel:a:b", "dom.1=unikernel:a:b: expected unikernel:MODULE" },
        { "dom.2=linux:k", "dom.2=linux:k: expected linux:KERNEL_MODULE:INITRD_MODULE" },
        { "dom.2=linux::i", "dom.2=linux::i: expected linux:" },
        { "dom.2=linux:k:", "dom.2=linux:k:: expected linux:" },
        { "dom.1=unikernel:abcdefghijklmnopqrstuvwxyz0123456789",
          "dom.1=unikernel:abcdefghijklmnopqrstuvwxyz0123456789: expected" },
        { "dom.1.mem=64M", "dom.1.mem=64M: domain 1 is not declared (no dom.1=)" },
        { "dom.1=multiboot:", "dom.1=multiboot:: expected multiboot:KERNEL_MODULE[:MODULE...]" },
        { "dom.1=multiboot:k::m", "dom.1=multiboot:k::m: expected multiboot:" },
        { "dom.1=multiboot:k:m:", "dom.1=multiboot:k:m:: expected multiboot:" },
        { "dom.1=multiboot:a:1:2:3:4:5:6:7:8:9", "dom.1=multiboot:a:1:2:3:4:5:6:7:8:9: expected" },
        { "dom.1=unikernel:u dom.1.cmdline=x", "dom.1.cmdline=x: a unikernel takes no command line" },
        { "dom.1.cmdline=x", "dom.1.cmdline=x: domain 1 is not declared" },
        { "dom.1=linux:k:i dom.1.x2apic=off", "dom.1.x2apic=off: only a multiboot domain can" },
        { "dom.1=multiboot:k dom.1.x2apic=no", "dom.1.x2apic=no: on or off" },
        { "dom.1=linux:k:i dom.1.on_reboot=again", "dom.1.on_reboot=again: restart or end" },
        { "dom.1=unikernel:u dom.1.on_reboot=restart",
          "dom.1.on_reboot=restart: only a Linux domain restarts" },
        { "dom.1=multiboot:k dom.1.on_reboot=end", "dom.1.on_reboot=end: only a Linux domain" },
        { "dom.1.on_reboot=end", "dom.1.on_reboot=end: domain 1 is not declared" },
        { "dom.1=unikernel:u dom.1.mem=3M", "dom.1.mem=3M: out of range" },
        { "dom.1=unikernel:u dom.1.mem=2M", "dom.1.mem=2M: out of range" },
        { "dom.1=unikernel:u dom.1.mem=5M", "dom.1.mem=5M: not a multiple of 2M" },
        { "dom.1=unikernel:u dom.1.mem=65G", "dom.1.mem=65G: out of range" },
        { "dom.1=unikernel:u dom.1.mem=lots", "dom.1.mem=lots: not a size" },
        { "dom.1=unikernel:u dom.1.cpu=2", "dom.1.cpu=2: no such CPU (this machine has 2)" },
        { "dom.1=unikernel:u dom.1.cpu=x", "dom.1.cpu=x: not a CPU number" },
        { "dom.1=linux:k:i dom.1.vcpus=0", "dom.1.vcpus=0: expected a VCPU count of 1..8" },
        { "dom.1=linux:k:i dom.1.vcpus=9", "dom.1.vcpus=9: expected a VCPU count of 1..8" },
        { "dom.1=linux:k:i dom.1.vcpus=two", "dom.1.vcpus=two: expected a VCPU count" },
        { "dom.1=linux:k:i dom.1.vcpus=3", "dom.1.vcpus=3: this machine has 2 CPUs" },
        { "dom.1=unikernel:u dom.1.vcpus=2", "dom.1.vcpus=2: only a Linux domain has several" },
        { "dom.1=multiboot:m dom.1.vcpus=2", "dom.1.vcpus=2: only a Linux domain has several" },
        { "dom.1=unikernel:u dom.1.cpus=0,1", "dom.1.cpus=: only a Linux domain has several" },
        { "dom.1=linux:k:i dom.1.cpus=0,0", "dom.1.cpus=0,0: CPU 0 named twice" },
        { "dom.1=linux:k:i dom.1.cpus=0,2", "dom.1.cpus=0,2: no such CPU 2 (this machine has 2)" },
        { "dom.1=linux:k:i dom.1.cpus=0,", "dom.1.cpus=0,: expected CPU numbers separated" },
        { "dom.1=linux:k:i dom.1.cpus=", "dom.1.cpus=: expected CPU numbers separated" },
        { "dom.1=linux:k:i dom.1.cpus=0;1", "dom.1.cpus=0;1: expected CPU numbers separated" },
        { "dom.1=linux:k:i dom.1.vcpus=2 dom.1.cpus=1", "dom.1.cpus=: 1 CPUs listed for "
          "dom.1.vcpus=2 (one CPU per VCPU)" },
        { "dom.1=linux:k:i dom.1.vcpus=2 dom.1.cpu=1", "dom.1.cpu=: a domain with dom.1.cpus=" },
        { "dom.1=linux:k:i dom.1.cpu=1 dom.1.cpus=1", "dom.1.cpu=: a domain with dom.1.cpus=" },
        { "dom.1.vcpus=2", "dom.1.vcpus=2: domain 1 is not declared" },
        { "dom.1.cpus=0", "dom.1.cpus=0: domain 1 is not declared" },
        { "dom.1=unikernel:u dom.1.name=a.b", "dom.1.name=a.b: a name is" },
        { "dom.1=unikernel:u dom.1.name=", "dom.1.name=: a name is" },
        { "dom.1=unikernel:u dom.1.name=abcdefghijklmnop", "dom.1.name=abcdefghijklmnop: a name" },
        { "dom.1=unikernel:u dom.1.name=dom0", "dom.1.name=dom0: domain 0 has that name" },
        { "dom.1=unikernel:u dom.2=unikernel:v dom.2.name=dom1",
          "dom.2.name=dom1: domain 1 has that name" },
        { "sched.slice=10", "sched.slice=10: expected a time" },
        { "sched.slice=50us", "sched.slice=50us: expected a time" },
        { "sched.slice=2s", "sched.slice=2s: expected a time" },
        { "sched.slice=ms", "sched.slice=ms: expected a time" },
        { "sched.slice=99999999999999999999us", "sched.slice=99999999999999999999us: expected" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        bool ok = parse(bad[i].cmdline);
        if (!CHECK(!ok) || !CHECK(strncmp(err, bad[i].message, strlen(bad[i].message)) == 0))
            printf("  %s -> \"%s\"\n", bad[i].cmdline, err);
    }
}

TEST(too_long_value_is_refused)
{
    char line[512] = "dom.1=unikernel:";
    memset(line + strlen(line), 'x', 320);
    CHECK(!parse(line));
    CHECK(strncmp(err, "dom.1=: value longer than", 25) == 0);
}

TEST(slice_units_and_ticks)
{
    uint32_t us = 0;
    CHECK(sched_slice_parse("10ms", &us) && us == 10000);
    CHECK(sched_slice_parse("1s", &us) && us == 1000000);
    CHECK(sched_slice_parse("100us", &us) && us == 100);
    CHECK(!sched_slice_parse("10 ms", &us));
    CHECK(!sched_slice_parse("-1ms", &us));
    CHECK(!sched_slice_parse("", &us));
    CHECK_EQ(sched_slice_ticks(10000, 500000000ull), 5000000);
    CHECK_EQ(sched_slice_ticks(100, 1000), 1);   /* never 0 */
    CHECK_EQ(sched_slice_ticks(1000000, 1ull << 43), 1ull << 43);
}
