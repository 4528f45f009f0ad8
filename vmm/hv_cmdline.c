/* The hypervisor's command line (vmm/hv_cmdline.h). */
#include "vmm/hv_cmdline.h"

#include <stddef.h>

static const char *recorded = "";

void hv_cmdline_set(const char *cmdline)
{
    recorded = cmdline ? cmdline : "";
}

const char *hv_cmdline(void)
{
    return recorded;
}
