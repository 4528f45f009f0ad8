/* Facts about the machine Vertigo runs on, gathered at start-up and
 * printed as the platform report (one line each): emulator detection
 * (boot/platform.c), TSC calibration (boot/tsc.c), the CPU line
 * (boot/cpu_report.c). vmm_start calls them in that report's order. */
#ifndef BOOT_PLATFORM_H
#define BOOT_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

/* Records the ACPI RSDP the loader passed (NULL if none). */
void platform_set_rsdp(const void *rsdp);

/* True on Bochs and QEMU (ACPI OEM ID "BOCHS "): the run-ending protocol
 * may then use the emulators' exit ports. */
bool platform_is_emulator(void);

/* TSC frequency measured against the PIT (boot/tsc.c); 0 until calibrated. */
uint64_t platform_tsc_hz(void);

/* Calibrates the TSC against PIT channel 2 over `ms` milliseconds and
 * prints the "tsc:" line. Returns the frequency, or 0 if the PIT did not
 * respond (the line says so). */
uint64_t tsc_calibrate(unsigned int ms);

/* Reads the machine's CMOS clock once and prints the "clock:" line
 * (boot/cmos_clock.c); call it before any domain owns its ports. */
void cmos_clock_read(void);

/* The wall clock cmos_clock_read took: Unix seconds at machine TSC
 * *at_tsc. False (and 0 seconds) when the clock could not be read. */
bool platform_wall_clock(uint64_t *unix_seconds, uint64_t *at_tsc);

/* Prints the "cpu:" line. Returns true for a GenuineIntel CPU. */
bool cpu_report(void);

#endif
