/* Constants shared by boot assembly and C: segment selectors, stack
 * sizes, and the codes the run-ending protocol writes. */
#ifndef BOOT_LAYOUT_H
#define BOOT_LAYOUT_H

#define BOOT_CS64        0x08
#define BOOT_DS64        0x10
#define BOOT_TSS         0x18   /* 16-byte system descriptor */

#define BOOT_STACK_SIZE  16384
#define IST_STACK_SIZE   8192

/* IST slots (SDM Vol. 3A, 7.14.5 "Interrupt Stack Table") */
#define IST_NMI          1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3

/* QEMU isa-debug-exit (iobase 0xf4): QEMU exits with (code << 1) | 1. */
#define RUN_EXIT_PORT_QEMU   0xf4
#define RUN_EXIT_QEMU_PASS   0x10   /* process status 33 */
#define RUN_EXIT_QEMU_FAIL   0x11   /* process status 35 */
#define RUN_EXIT_QEMU_NO_VMX 0x12   /* process status 37 */

#endif
