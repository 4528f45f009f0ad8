/* The runtime's start (CPL 0, called by crt0.S on the boot stack): checks
 * the start-info page, keeps a copy for the program, installs the runtime's
 * page tables and descriptor tables, and enters the program's side
 * (uk_user_start, uk_main.c) at CPL 3 on its own stack. A start-info page
 * the runtime cannot use ends the domain with a FAIL verdict. */
#include "guestlib/unikernel/uk_kernel.h"

#define USER_STACK_BYTES (256u * 1024u)

struct vertigo_uk_start uk_boot_info;
static uint8_t user_stack[USER_STACK_BYTES] __attribute__((aligned(16)));

void uk_start(const struct vertigo_uk_start *si) __attribute__((noreturn));
void uk_user_start(void) __attribute__((noreturn));

static void refuse(const char *why) __attribute__((noreturn));
static void refuse(const char *why)
{
    uk_console_puts("unikernel: cannot start: ");
    uk_console_puts(why);
    uk_console_puts("\n");
    uk_end(0, why);
}

static const char *check_start_info(const struct vertigo_uk_start *si)
{
    if (si->magic != VERTIGO_UK_MAGIC)
        return "start-info page without VERTIGO_UK_MAGIC";
    if (si->version != VERTIGO_UK_VERSION)
        return "start-info page of another version";
    if (si->free_start > si->free_end || si->free_end > si->mem_bytes)
        return "start-info free range outside the domain's memory";
    if (si->cmdline[VERTIGO_UK_CMDLINE_MAX - 1] != 0)
        return "start-info command line not terminated";
    return 0;
}

void uk_start(const struct vertigo_uk_start *si)
{
    const char *why = check_start_info(si);

    if (why)
        refuse(why);
    uk_boot_info = *si;
    why = uk_paging_init(si->mem_bytes);
    if (why)
        refuse(why);
    uk_desc_init();
    /* As after a CALL: RSP + 8 is 16-byte aligned at the function's entry. */
    uk_enter_user((uint64_t)uk_user_start, (uint64_t)(user_stack + USER_STACK_BYTES) - 8);
}
