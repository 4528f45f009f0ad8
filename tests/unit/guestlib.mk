# The guest library's result words, host-compiled.
UNIT_TESTS += guest_errors
unit_guest_errors_SRCS := tests/unit/test_guest_errors.c guestlib/vertigo_guest.c

# Per-thread counters: the module's folding and the library's page reader.
UNIT_TESTS += thread_ctr
unit_thread_ctr_SRCS := tests/unit/test_thread_ctr.c
HEADERS_HOST += guestlib/vertigo_thread_ctr.h

# The guest counter library's argument and event-name checks.
UNIT_TESTS += guest_counters
unit_guest_counters_SRCS := tests/unit/test_guest_counters.c guestlib/vertigo_counters.c \
                            pmu/backend/pmu_events.c pmu/backend/swevents.c lib/format.c lib/exit_names.c
unit_guest_counters_LIBS := -lpthread
