/* Unit tests for locating guest modules by role. */
#include "tests/unit/unit.h"
#include "vmm/loader/guest_modules.h"

static struct boot_info two_modules(void)
{
    struct boot_info bi = { .cmdline = "", .loader_name = "" };
    bi.modules[0] = (struct boot_module){ 0x1000000, 0x1e00000,
                                          "kernel console=ttyS0 nokaslr" };
    bi.modules[1] = (struct boot_module){ 0x2000000, 0x2400000, "initrd" };
    bi.module_count = 2;
    return bi;
}

TEST(find_by_role_and_args)
{
    struct boot_info bi = two_modules();
    const char *args = NULL;
    const struct boot_module *k = guest_module_find(&bi, "kernel", &args);
    CHECK(k == &bi.modules[0]);
    CHECK_STR(args, "console=ttyS0 nokaslr");
    const struct boot_module *i = guest_module_find(&bi, "initrd", &args);
    CHECK(i == &bi.modules[1]);
    CHECK_STR(args, "");
}

TEST(role_must_be_whole_word)
{
    struct boot_info bi = two_modules();
    CHECK(guest_module_find(&bi, "kern", NULL) == NULL);
    CHECK(guest_module_find(&bi, "init", NULL) == NULL);
}

TEST(missing_module_message_names_role_and_modules)
{
    struct boot_info bi = two_modules();
    static const char *const roles[] = { "kernel", "initrd", "agent", NULL };
    char msg[256];
    CHECK(!guest_modules_check(&bi, roles, msg, sizeof(msg)));
    CHECK(strstr(msg, "no 'agent' module") != NULL);
    CHECK(strstr(msg, "'initrd'") != NULL);

    bi.module_count = 0;
    CHECK(!guest_modules_check(&bi, roles, msg, sizeof(msg)));
    CHECK(strstr(msg, "no 'kernel' module") != NULL);
    CHECK(strstr(msg, "modules passed: none") != NULL);

    static const char *const ok_roles[] = { "kernel", "initrd", NULL };
    bi = two_modules();
    CHECK(guest_modules_check(&bi, ok_roles, msg, sizeof(msg)));
}
