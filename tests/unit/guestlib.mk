# The guest library's result words, host-compiled.
UNIT_TESTS += guest_errors
unit_guest_errors_SRCS := tests/unit/test_guest_errors.c guestlib/vertigo_guest.c
