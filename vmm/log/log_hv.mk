# The profiling log wired into the hypervisor: rings, log= option, drain
# devices (debug port 0xE9, polled UART). Hypervisor-only (port I/O).
HV_SRCS += vmm/log/log_hv.c vmm/log/log_drain.c
HEADERS_HV += vmm/log/log_hv.h vmm/log/log_drain.h
