# boot/: multiboot2 entry, long mode, descriptor tables, traps, per-CPU,
# the APs. Builds on lib/ only; calls the core through boot/start.h and
# boot/traps.h (hooks the core and pmu/ implement).
HV_SRCS += boot/mb2_header.S boot/entry32.S boot/isr.S \
           boot/boot_main.c boot/desc.c boot/traps.c boot/smp.c boot/tsc.c \
           boot/cpu_report.c boot/run_end.c boot/apic.c boot/ap_boot.c boot/ap_trampoline.S \
           boot/platform.c boot/cmos_clock.c
HEADERS_HV += boot/apic.h boot/ap_boot.h boot/layout.h boot/traps.h boot/percpu.h \
              boot/run_end.h boot/platform.h boot/start.h boot/percpu_step.h
