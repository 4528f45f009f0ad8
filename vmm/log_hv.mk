# The profiling log wired into the hypervisor: rings, log= option, drain
# devices (debug port 0xE9, polled UART). Hypervisor-only (port I/O).
HV_SRCS += vmm/log_hv.c vmm/log_drain.c
HEADERS_HV += vmm/log_hv.h vmm/log_drain.h
