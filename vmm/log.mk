# Profiling log, hypervisor side: record encoder, per-CPU rings, CRC32C.
# Portable C: also compiled for the host by the log unit tests and tools.
LOG_HV_SRCS := vmm/log_crc.c vmm/log_varint.c vmm/log_encode.c vmm/log_ring.c vmm/log_emit.c
HV_SRCS += $(LOG_HV_SRCS)
HEADERS_HV += include/vertigo/log_format.h vmm/log_crc.h vmm/log_varint.h \
              vmm/log_encode.h vmm/log_ring.h vmm/log_emit.h
HEADERS_HOST += include/vertigo/log_format.h

# A domain's share of a CPU's ring for the records its guest asks for.
HV_SRCS += vmm/log_quota.c
HEADERS_HV += vmm/log_quota.h
UNIT_TESTS += log_quota
unit_log_quota_SRCS := tests/unit/test_log_quota.c vmm/log_quota.c $(LOG_HV_SRCS)
