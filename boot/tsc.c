/* TSC calibration against PIT channel 2 (Intel 8254 data sheet; the PC
 * wiring: gate = port 0x61 bit 0, OUT2 readable at port 0x61 bit 5).
 * CPUID 0x15/0x16 are not trusted: Bochs reports GHz figures there while
 * its TSC runs at the emulated instruction rate (docs/platform-notes.md). */
#include "lib/cpu.h"
#include "boot/platform.h"
#include "lib/console.h"

#define PIT_HZ            1193182u
#define PIT_CH2_DATA      0x42
#define PIT_COMMAND       0x43
#define PIT_CMD_CH2_MODE0 0xb0      /* channel 2, lo/hi byte, mode 0, binary */
#define PORT_B            0x61
#define PORT_B_GATE2      0x01
#define PORT_B_SPEAKER    0x02
#define PORT_B_OUT2       0x20
#define PIT_POLL_LIMIT    100000000u

static uint64_t tsc_hz;

uint64_t platform_tsc_hz(void)
{
    return tsc_hz;
}

/* Runs PIT channel 2 once for `ticks`; returns the TSC cycles it took, or
 * 0 if OUT2 never rose. */
static uint64_t pit_measure(uint16_t ticks)
{
    uint8_t b = inb(PORT_B);
    outb(PORT_B, (uint8_t)((b & ~PORT_B_SPEAKER) & ~PORT_B_GATE2));
    outb(PIT_COMMAND, PIT_CMD_CH2_MODE0);
    outb(PIT_CH2_DATA, (uint8_t)ticks);
    outb(PIT_CH2_DATA, (uint8_t)(ticks >> 8));
    outb(PORT_B, (uint8_t)((b & ~PORT_B_SPEAKER) | PORT_B_GATE2));

    uint64_t start = rdtsc();
    for (uint32_t i = 0; i < PIT_POLL_LIMIT; i++) {
        if (inb(PORT_B) & PORT_B_OUT2) {
            uint64_t cycles = rdtsc() - start;
            outb(PORT_B, b);
            return cycles;
        }
    }
    outb(PORT_B, b);
    return 0;
}

uint64_t tsc_calibrate(unsigned int ms)
{
    uint32_t ticks = PIT_HZ / 1000u * ms;
    if (ticks > 0xffff)
        ticks = 0xffff;
    uint64_t cycles = pit_measure((uint16_t)ticks);
    if (!cycles) {
        printk("tsc: calibration failed: PIT channel 2 did not count\n");
        return 0;
    }
    tsc_hz = cycles * PIT_HZ / ticks;
    printk("tsc: %lu.%03lu MHz (calibrated against the PIT over %u PIT ticks)\n",
           tsc_hz / 1000000, (tsc_hz / 1000) % 1000, ticks);
    return tsc_hz;
}
