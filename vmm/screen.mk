# Vertigo's console: the console= option and the screens (VGA text, the
# UEFI framebuffer) with their built-in font; portable parts host-tested.
SCREEN_HEADERS := vmm/console_option.h vmm/text_screen.h vmm/font.h
HV_SRCS      += vmm/console_option.c vmm/screen_console.c vmm/text_screen.c vmm/font.c
HEADERS_HV   += $(SCREEN_HEADERS) vmm/screen_console.h
HEADERS_HOST += $(SCREEN_HEADERS)

UNIT_TESTS += console_option text_screen
unit_console_option_SRCS := tests/unit/test_console_option.c vmm/console_option.c vmm/cmdline.c \
                            vmm/format.c
unit_text_screen_SRCS := tests/unit/test_text_screen.c vmm/text_screen.c vmm/font.c
