# screen-text: reads Vertigo's screen console back from QEMU's screen
# captures (tests/e2e/boot.sh).
TOOLS += screen-text
tool_screen-text_SRCS := tests/screen/screen_text.c vmm/console/text_screen.c vmm/console/font.c
