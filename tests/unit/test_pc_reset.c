/* Unit tests for the PC's reset requests besides the ACPI reset register
 * (vmm/vhw/pc_reset.h). */
#include "vmm/vhw/pc_reset.h"
#include "tests/unit/unit.h"

/* Linux's reboot=kbd writes 0xFE to port 0x64; reboot=pci writes 0x02 then
 * 0x06 to port 0xCF9 (the second carries the reset-CPU bit). */
TEST(the_keyboard_pulse_and_the_reset_control_register_ask_for_a_reset)
{
    CHECK_STR(pc_reset_request(0x64, 1, false, 0xfe), "keyboard-controller reset");
    CHECK_STR(pc_reset_request(0xcf9, 1, false, 0x06), "reset control register (port 0xcf9)");
    CHECK_STR(pc_reset_request(0xcf9, 1, false, 0x04), "reset control register (port 0xcf9)");
}

/* Reads, other sizes, ports and values ask for nothing: an absent device. */
TEST(anything_else_asks_for_nothing)
{
    CHECK(pc_reset_request(0x64, 1, true, 0xfe) == NULL);      /* kb_wait's status read */
    CHECK(pc_reset_request(0x64, 2, false, 0xfe) == NULL);
    CHECK(pc_reset_request(0x60, 1, false, 0xfe) == NULL);
    for (unsigned int v = 0; v < 256; v++)
        if (v != 0xfe)
            CHECK(pc_reset_request(0x64, 1, false, (uint8_t)v) == NULL);
    CHECK(pc_reset_request(0xcf9, 1, false, 0x02) == NULL);    /* hard-reset bit alone */
    CHECK(pc_reset_request(0xcf9, 1, true, 0x06) == NULL);
    CHECK(pc_reset_request(0xcf9, 4, false, 0x06) == NULL);
    CHECK(pc_reset_request(0xcf8, 1, false, 0x06) == NULL);
}
