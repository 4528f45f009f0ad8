# The virtio-console log drain (log=virtio, QEMU): PCI configuration
# access, the legacy virtio-PCI console driver and its portable split
# virtqueue (also compiled for the host by test_virtq).
HV_SRCS += vmm/pci.c vmm/virtq.c vmm/virtio_console.c
HEADERS_HV += vmm/pci.h vmm/virtq.h vmm/virtio_console.h
HEADERS_HOST += vmm/pci.h vmm/virtq.h

UNIT_TESTS += virtq
unit_virtq_SRCS := tests/unit/test_virtq.c vmm/virtq.c
