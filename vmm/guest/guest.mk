# vmm/guest/: a guest's memory as Vertigo reads it: its page tables, the
# checked stack reader and its translation cache, and the call-stack
# walkers (frame pointers, the kernel's ORC tables). Portable.
GUEST_HEADERS := vmm/guest/guest_pt.h vmm/guest/guest_stack.h vmm/guest/guest_orc.h \
                 vmm/guest/guest_reader.h vmm/guest/guest_tlb.h
HV_SRCS += vmm/guest/guest_pt.c vmm/guest/guest_stack.c vmm/guest/guest_orc.c \
           vmm/guest/guest_orc_table.c vmm/guest/guest_reader.c vmm/guest/guest_tlb.c
HEADERS_HV   += $(GUEST_HEADERS)
HEADERS_HOST += $(GUEST_HEADERS)

UNIT_TESTS += guest_pt guest_stack guest_orc
unit_guest_pt_SRCS := tests/unit/test_guest_pt.c vmm/guest/guest_pt.c
unit_guest_stack_SRCS := tests/unit/test_guest_stack.c vmm/guest/guest_stack.c vmm/guest/guest_orc.c \
                         vmm/guest/guest_reader.c
unit_guest_orc_SRCS := tests/unit/test_guest_orc.c vmm/guest/guest_orc.c vmm/guest/guest_orc_table.c \
                       vmm/guest/guest_stack.c vmm/hypercall.c pmu/sample/sampler_symbols.c vmm/guest/guest_reader.c
