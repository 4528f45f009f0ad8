# vmm/console/: Vertigo's console beyond lib/'s core: the console= option and the screens (VGA text, the
# UEFI framebuffer) with their built-in font; portable parts host-tested.
SCREEN_HEADERS := vmm/console/console_option.h vmm/console/text_screen.h vmm/console/font.h
HV_SRCS      += vmm/console/console_option.c vmm/console/screen_console.c vmm/console/text_screen.c vmm/console/font.c
HEADERS_HV   += $(SCREEN_HEADERS) vmm/console/screen_console.h
HEADERS_HOST += $(SCREEN_HEADERS)

UNIT_TESTS += console_option text_screen
unit_console_option_SRCS := tests/unit/test_console_option.c vmm/console/console_option.c lib/cmdline.c \
                            lib/format.c
unit_text_screen_SRCS := tests/unit/test_text_screen.c vmm/console/text_screen.c vmm/console/font.c

# A domain's console lines after its rate limit (token_bucket): queued per
# domain (line_queue) and drained to Vertigo's console without waiting
# (console_drain).
DRAIN_HEADERS := vmm/console/token_bucket.h vmm/console/line_queue.h vmm/console/console_drain.h
HV_SRCS      += vmm/console/token_bucket.c vmm/console/line_queue.c vmm/console/console_drain.c
HEADERS_HV   += $(DRAIN_HEADERS)
HEADERS_HOST += $(DRAIN_HEADERS)
UNIT_TESTS += console_drain
unit_console_drain_SRCS := tests/unit/test_console_drain.c vmm/console/console_drain.c \
                           vmm/console/line_queue.c
