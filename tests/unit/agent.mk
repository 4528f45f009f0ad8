# The guest agent's perf-map checks and the kernel module's process-name
# sanitizer, host-compiled (tests/unit/test_agent_perfmap.c includes
# guestlib/vertigo_agent.c with its main renamed).
UNIT_TESTS += agent_perfmap
unit_agent_perfmap_SRCS := tests/unit/test_agent_perfmap.c guestlib/vertigo_guest.c \
                           guestlib/kernel_build_id.c

# The kernel's GNU build id from its ELF notes, as the agent ships it.
UNIT_TESTS += kernel_build_id
unit_kernel_build_id_SRCS := tests/unit/test_kernel_build_id.c guestlib/kernel_build_id.c

# The agent's one read of /proc/kallsyms: the ORC declaration's symbols
# noted from the lines it ships (tests/unit/test_agent_kallsyms.c includes
# guestlib/vertigo_agent.c with its main renamed).
UNIT_TESTS += agent_kallsyms
unit_agent_kallsyms_SRCS := tests/unit/test_agent_kallsyms.c guestlib/vertigo_guest.c \
                            guestlib/kernel_build_id.c
