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
