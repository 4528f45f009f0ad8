# The guest agent's perf-map checks and the kernel module's process-name
# sanitizer, host-compiled (tests/unit/test_agent_perfmap.c includes
# guestlib/vertigo_agent.c with its main renamed).
UNIT_TESTS += agent_perfmap
unit_agent_perfmap_SRCS := tests/unit/test_agent_perfmap.c guestlib/vertigo_guest.c
