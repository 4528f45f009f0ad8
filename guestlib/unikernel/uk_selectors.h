/* Selectors of the unikernel runtime's GDT (uk_desc.c), shared by its C
 * and assembly files. */
#ifndef GUESTLIB_UNIKERNEL_UK_SELECTORS_H
#define GUESTLIB_UNIKERNEL_UK_SELECTORS_H

#define UK_KERNEL_CS  0x08
#define UK_KERNEL_DS  0x10
#define UK_USER_DS    0x1b   /* GDT slot 3, RPL 3 */
#define UK_USER_CS    0x23   /* GDT slot 4, RPL 3 */
#define UK_TSS_SEL    0x28   /* slots 5 and 6 */

#endif
