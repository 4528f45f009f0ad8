/* One element of a string I/O instruction (see vmm/vhw/string_io.h). */
#include "vmm/vhw/string_io.h"

static uint64_t addr_mask(unsigned int bits)
{
    return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

/* `reg` after adding `delta` at the address size: 16 bits keep the rest
 * of the register, 32 bits zero-extend. */
static uint64_t add_at_size(uint64_t reg, uint64_t delta, unsigned int bits)
{
    uint64_t mask = addr_mask(bits);
    uint64_t sum = (reg + delta) & mask;
    return bits == 16 ? (reg & ~mask) | sum : sum;
}

bool string_io_empty(const struct string_io *s, const struct string_io_regs *r)
{
    return s->rep && (r->rcx & addr_mask(s->addr_bits)) == 0;
}

bool string_io_advance(const struct string_io *s, struct string_io_regs *r)
{
    uint64_t delta = s->down ? (uint64_t)0 - s->size : s->size;
    if (s->in)
        r->rdi = add_at_size(r->rdi, delta, s->addr_bits);
    else
        r->rsi = add_at_size(r->rsi, delta, s->addr_bits);
    if (!s->rep)
        return true;
    r->rcx = add_at_size(r->rcx, ~0ull, s->addr_bits);
    return (r->rcx & addr_mask(s->addr_bits)) == 0;
}
