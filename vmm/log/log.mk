# vmm/log/: the profiling log, hypervisor side: record encoder, per-CPU
# rings (the CRC32C is lib/log_crc.c).
# Portable C: also compiled for the host by the log unit tests and tools.
LOG_HV_SRCS := vmm/log/log_varint.c vmm/log/log_encode.c vmm/log/log_ring.c vmm/log/log_emit.c
HV_SRCS += $(LOG_HV_SRCS)
HEADERS_HV += include/vertigo/log_format.h vmm/log/log_varint.h \
              vmm/log/log_encode.h vmm/log/log_ring.h vmm/log/log_emit.h
HEADERS_HOST += include/vertigo/log_format.h

# A domain's share of a CPU's ring for the records its guest asks for.
HV_SRCS += vmm/log/log_quota.c
HEADERS_HV += vmm/log/log_quota.h
UNIT_TESTS += log_quota
unit_log_quota_SRCS := tests/unit/test_log_quota.c vmm/log/log_quota.c $(LOG_HV_SRCS) lib/log_crc.c
