# The virtio-console log drain (log=virtio, QEMU): PCI configuration
# access, the legacy virtio-PCI console driver and its portable split
# virtqueue (also compiled for the host by test_virtq).
HV_SRCS += vmm/log/pci.c vmm/log/virtq.c vmm/log/virtio_console.c
HEADERS_HV += vmm/log/pci.h vmm/log/virtq.h vmm/log/virtio_console.h
HEADERS_HOST += vmm/log/pci.h vmm/log/virtq.h

UNIT_TESTS += virtq
unit_virtq_SRCS := tests/unit/test_virtq.c vmm/log/virtq.c
