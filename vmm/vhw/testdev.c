/* QEMU's pc-testdev data port (see vmm/vhw/testdev.h). */
#include "vmm/vhw/testdev.h"

bool testdev_owns_port(uint16_t port)
{
    return port >= TESTDEV_PORT && port < TESTDEV_PORT + TESTDEV_PORT_BYTES;
}

bool testdev_io(struct testdev *t, uint16_t port, unsigned int size, bool in, uint32_t *value)
{
    if (!testdev_owns_port(port) || (size != 1 && size != 2 && size != 4))
        return false;
    unsigned int offset = port - TESTDEV_PORT;
    if (offset + size > TESTDEV_PORT_BYTES)
        return false;
    unsigned int shift = offset * 8;
    uint32_t mask = (size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1) << shift;
    if (in)
        *value = (t->data & mask) >> shift;
    else
        t->data = (t->data & ~mask) | ((*value << shift) & mask);
    return true;
}
