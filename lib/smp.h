/* CPU numbering shared by every subsystem: a hook of the library floor,
 * implemented in boot/ (the per-CPU area in boot/smp.c, the AP count in
 * boot/ap_boot.c). */
#ifndef LIB_SMP_H
#define LIB_SMP_H

#define MAX_CPUS 16

/* This CPU's index (0 = boot CPU), 0..MAX_CPUS-1. */
unsigned int smp_cpu_index(void);

/* CPUs running Vertigo (1 until the APs are started). */
unsigned int smp_cpus_online(void);

#endif
