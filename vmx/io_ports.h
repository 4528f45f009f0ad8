/* The real I/O ports behind vmx/io_policy.c, and the ports Vertigo learns
 * at start-up that the policy must own (the log's UART, a second console
 * UART, the hidden log device, the emulators' panic ports). Hypervisor
 * only. */
#ifndef VMX_IO_PORTS_H
#define VMX_IO_PORTS_H

/* Tells the I/O policy about the log's drain device and the emulator's
 * ports. Call after io_policy_init() and log_hv_init(), before
 * io_policy_fill_bitmaps(). */
void io_ports_discover(void);

#endif
