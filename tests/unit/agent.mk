# The guest agent's perf-map checks and the kernel module's process-name
# sanitizer, host-compiled (tests/unit/test_agent_perfmap.c includes
# guestlib/vertigo_agent.c with its main renamed).
UNIT_TESTS += agent_perfmap
unit_agent_perfmap_SRCS := tests/unit/test_agent_perfmap.c guestlib/vertigo_guest.c \
                           guestlib/kernel_build_id.c

# The kernel's GNU build id from its ELF notes, as the agent ships it.
UNIT_TESTS += kernel_build_id
unit_kernel_build_id_SRCS := tests/unit/test_kernel_build_id.c guestlib/kernel_build_id.c
