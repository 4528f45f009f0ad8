/* A Linux domain's CMOS clock: the MC146818's index and data ports (0x70,
 * 0x71), read-only. Its date and time are the machine's CMOS clock as
 * Vertigo read it at start-up (boot/cmos_clock.c) plus the machine's TSC
 * since, in whole seconds; the domain's own TSC offset and writes do not
 * move it. Registers, as a PC's BIOS leaves them: BCD, 24-hour (B = 0x02,
 * no interrupts), A = 0x26 (the 32.768 kHz divider, no update in
 * progress: UIP never set, so a reader never waits), C = 0 (no interrupt
 * flags), D = 0x80 (the clock's data valid), the century at 0x32; the
 * alarms read 0. The NVRAM bytes (0x0e-0x7f but the century) keep what
 * the guest writes, from 0: Linux writes the shutdown status byte (0x0f)
 * around starting its other CPUs.
 *
 * Linux reads it once for its wall clock at boot; with no clock there,
 * the kernel polled the absent device's all-ones status for its full
 * second before giving up. The domain's FADT still says "no CMOS RTC", so
 * Linux binds no RTC driver (no /dev/rtc, alarms or NVRAM).
 *
 * A 1-byte OUT to 0x70 selects a register (bit 7, the PC's NMI mask, is
 * ignored); a 1-byte IN from 0x71 reads it, a 1-byte OUT to 0x71 writes
 * it if it is NVRAM. Refused, and reported by the caller: an OUT to 0x71
 * for a clock register, 0x00-0x0d or 0x32 (dropped: the clock is
 * read-only), an IN from
 * 0x70 (reads 0xff, as QEMU's) and any access wider than a byte (an IN
 * reads all ones, an OUT is dropped). Portable: the domain's I/O exit
 * handler calls it. */
#ifndef VMM_VRTC_H
#define VMM_VRTC_H

#include <stdbool.h>
#include <stdint.h>

#define VRTC_INDEX_PORT 0x70u
#define VRTC_DATA_PORT  0x71u
#define VRTC_REGISTERS  128u

struct vrtc {
    bool present;
    uint8_t index;              /* the register an IN from 0x71 reads */
    uint8_t nvram[VRTC_REGISTERS];  /* what the guest wrote to the NVRAM bytes */
    uint64_t unix_seconds;      /* the wall clock at base_tsc */
    uint64_t base_tsc, tsc_hz;
};

enum vrtc_status {
    VRTC_DONE,                  /* a register selected or read */
    VRTC_WRITE,                 /* an OUT to the data port for a clock register: dropped */
    VRTC_INDEX_READ,            /* an IN from the index port: 0xff */
    VRTC_BAD_SIZE,              /* wider than a byte: all ones, or dropped */
};

/* A clock showing unix_seconds at machine TSC base_tsc. False (and no
 * clock) when tsc_hz is 0. */
bool vrtc_init(struct vrtc *c, uint64_t unix_seconds, uint64_t base_tsc, uint64_t tsc_hz);

/* True for ports 0x70 and 0x71 of a clock that is present. */
bool vrtc_owns_port(const struct vrtc *c, uint16_t port);

/* Register reg (below VRTC_REGISTERS) as a guest reads it at machine TSC now_tsc. */
uint8_t vrtc_register(const struct vrtc *c, uint8_t reg, uint64_t now_tsc);

/* An access of `size` bytes at a port the clock owns: for an OUT, *value
 * holds what the guest wrote; afterwards, for an IN, it is what the
 * guest reads (all `size` bytes of it). */
enum vrtc_status vrtc_io(struct vrtc *c, uint16_t port, unsigned int size, bool in,
                         uint64_t now_tsc, uint32_t *value);

/* A sentence naming a refused access's status. */
const char *vrtc_refusal(enum vrtc_status st);

#endif
