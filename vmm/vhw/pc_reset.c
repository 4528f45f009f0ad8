/* The PC's other reset requests (see vmm/vhw/pc_reset.h). */
#include "vmm/vhw/pc_reset.h"

#include <stddef.h>

const char *pc_reset_request(uint16_t port, unsigned int size, bool in, uint8_t value)
{
    if (in || size != 1)
        return NULL;
    if (port == PC_RESET_KBC_PORT && value == PC_RESET_KBC_PULSE)
        return "keyboard-controller reset";
    if (port == PC_RESET_CONTROL_PORT && (value & PC_RESET_CONTROL_RST))
        return "reset control register (port 0xcf9)";
    return NULL;
}
