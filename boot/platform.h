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

/* Prints the "cpu:" line. Returns true for a GenuineIntel CPU. */
bool cpu_report(void);

#endif
