/* The "vmx:" capability line of the platform report. */
#include "vmx/vmx_report.h"

#include "lib/cpu.h"
#include "lib/console.h"
#include "vmx/vmx_caps.h"

static uint64_t read_msr_cb(void *ctx, uint32_t msr)
{
    (void)ctx;
    return rdmsr(msr);
}

void vmx_report(void)
{
    struct vmx_cap_msrs caps;
    char line[256];
    vmx_caps_read(&caps, read_msr_cb, NULL);
    vmx_caps_describe(&caps, line, sizeof(line));
    printk("%s\n", line);
}
