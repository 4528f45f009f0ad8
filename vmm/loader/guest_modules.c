/* Guest module lookup by role word (see vmm/loader/guest_modules.h). */
#include "vmm/loader/guest_modules.h"

#include "lib/format.h"
#include "lib/mem.h"

static bool role_matches(const char *cmdline, const char *role, const char **rest)
{
    size_t n = strlen(role);
    if (strncmp(cmdline, role, n) != 0)
        return false;
    if (cmdline[n] != '\0' && cmdline[n] != ' ')
        return false;
    const char *p = cmdline + n;
    while (*p == ' ')
        p++;
    *rest = p;
    return true;
}

const struct boot_module *guest_module_find(const struct boot_info *bi, const char *role,
                                            const char **args)
{
    for (uint32_t i = 0; i < bi->module_count; i++) {
        const char *rest;
        const char *cl = bi->modules[i].cmdline ? bi->modules[i].cmdline : "";
        if (role_matches(cl, role, &rest)) {
            if (args)
                *args = rest;
            return &bi->modules[i];
        }
    }
    return NULL;
}

static size_t append(char *msg, size_t size, size_t used, const char *text)
{
    if (used >= size)
        return used;
    int n = fmt_snprintf(msg + used, size - used, "%s", text);
    return used + (n > 0 ? (size_t)n : 0);
}

bool guest_modules_check(const struct boot_info *bi, const char *const *roles,
                         char *msg, size_t msg_size)
{
    for (const char *const *r = roles; *r; r++) {
        if (guest_module_find(bi, *r, NULL))
            continue;
        size_t used = 0;
        char head[128];
        fmt_snprintf(head, sizeof(head),
                     "no '%s' module: the boot menu must pass one whose command "
                     "line starts with '%s'; modules passed:", *r, *r);
        used = append(msg, msg_size, used, head);
        if (!bi->module_count)
            used = append(msg, msg_size, used, " none");
        for (uint32_t i = 0; i < bi->module_count; i++) {
            used = append(msg, msg_size, used, " '");
            used = append(msg, msg_size, used, bi->modules[i].cmdline);
            used = append(msg, msg_size, used, "'");
        }
        return false;
    }
    return true;
}
