/* The frame checker's rules (see frame_check.h). */
#include "host-tools/frame_check.h"

#include <stdlib.h>
#include <string.h>

#include "host-tools/insn_call.h"
#include "host-tools/insn_starts.h"

#define CALL_MAX_LEN 16u             /* bytes looked at before a return address */
#define JIT_IMAGE_PREFIX "perf-"
#define ANON_IMAGE "[anon]"

/* What a frame at its position must be. */
enum frame_rule {
    RULE_INTERRUPTED,            /* an instruction starts there */
    RULE_AFTER_CALL,             /* a call ends there */
    RULE_AFTER_SYSCALL_OR_EXEC,  /* a syscall ends there, or the entry point of its binary (execve) */
    RULE_CALL_OR_INTERRUPTED,    /* after an interrupt entry frame */
    RULE_CALL_OR_ENTRY,          /* after a retpoline thunk: its branch target */
};

struct frame_checker {
    struct symbolizer *sym;
    struct insn_starts *starts;
};

static const char *const cause_names[FRAME_CAUSE_COUNT] = {
    [FRAME_OK] = "ok",
    [FRAME_NOT_AFTER_CALL] = "not-after-call",
    [FRAME_NOT_AFTER_SYSCALL] = "not-after-syscall",
    [FRAME_RETURN_PATH] = "return-path",
    [FRAME_NOT_INSN_START] = "not-instruction-start",
    [FRAME_OUTSIDE_TEXT] = "outside-text",
    [FRAME_NO_MAPPING] = "no-mapping",
    [FRAME_NO_BINARY] = "no-binary",
    [FRAME_JIT] = "jit",
    [FRAME_NO_DECODER] = "no-objdump",
    [FRAME_PATCHED] = "patched-at-boot",
    [FRAME_NO_PROCESS] = "no-process",
    [FRAME_NO_MAPS] = "no-maps",
    [FRAME_MAPS_PARTIAL] = "maps-partial",
    [FRAME_MODULE] = "module-area",
};

/* The x86-64 kernel's module area (Documentation/x86/x86_64/mm.rst: from
 * the end of the 512 MiB or, with KASLR, 1 GiB kernel image mapping up to
 * the fixmap), where loaded modules' code lies, above the kernel image. */
#define KERNEL_MODULES_START 0xffffffffa0000000ull
#define KERNEL_MODULES_END 0xffffffffff000000ull

const char *frame_cause_name(enum frame_cause cause)
{
    return cause < FRAME_CAUSE_COUNT ? cause_names[cause] : "?";
}

struct frame_checker *frame_checker_new(struct symbolizer *s)
{
    struct frame_checker *c = calloc(1, sizeof(*c));
    if (c) {
        c->sym = s;
        c->starts = insn_starts_new();
    }
    if (c && !c->starts) {
        free(c);
        c = NULL;
    }
    return c;
}

void frame_checker_free(struct frame_checker *c)
{
    if (!c)
        return;
    insn_starts_free(c->starts);
    free(c);
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The function frame f is named in. */
static const char *function_name(const struct frame_checker *c, const struct sym_frame *f)
{
    return sym_function(c->sym, f->function)->name;
}

/* Whether f is an entry of interrupts or exceptions, after which the next
 * frame is the interrupted context's RIP: the guest kernel's idtentry and
 * entry code (asm_exc_page_fault, asm_sysvec_*, entry_*, error_entry, and
 * code kallsyms names only by the entry sections' end markers) and its
 * way back (common_interrupt_return and its labels, early_xen_iret_patch
 * included: Linux 6.1's entry_64.S puts it between
 * restore_regs_and_return_to_kernel and the IRET; error_return,
 * paranoid_exit: the saved registers are popped and IRET returns to the
 * interrupted context, which the kernel's ORC rules there, its pt_regs or
 * IRET frame, name as the next frame), the NMI entry's inner labels
 * (asm_exc_nmi's nested_nmi, first_nmi, repeat_nmi, end_repeat_nmi,
 * nmi_no_fsgsbase, nmi_swapgs, nmi_restore: the symbol table names its
 * code after them; a make run capture named a function's first byte, the
 * interrupted RIP, under end_repeat_nmi), Vertigo's own trap stubs
 * (boot/isr.S). */
static bool interrupt_entry(const struct frame_checker *c, const struct sym_frame *f)
{
    static const char *const kernel[] = { "asm_", "entry_", "error_entry", "paranoid_entry",
                                          "__irqentry_text_", "__entry_text_",
                                          "common_interrupt_return",
                                          "swapgs_restore_regs_and_return_to_usermode",
                                          "restore_regs_and_return_to_kernel", "early_xen_iret_patch",
                                          "native_irq_return_iret",
                                          "error_return", "paranoid_exit",
                                          "nested_nmi", "first_nmi", "repeat_nmi", "end_repeat_nmi",
                                          "nmi_no_fsgsbase", "nmi_swapgs", "nmi_restore" };
    const char *name = function_name(c, f);
    for (size_t i = 0; f->mode == LOG_MODE_GUEST_KERNEL && i < sizeof(kernel) / sizeof(kernel[0]); i++)
        if (starts_with(name, kernel[i]))
            return true;
    if (f->mode == LOG_MODE_GUEST_KERNEL)
        return false;
    return f->mode == LOG_MODE_HYPERVISOR && (starts_with(name, "isr_") || !strcmp(name, "trap_common"));
}

/* Whether a kernel frame of s is one of the functions names[0 .. n). */
static bool in_kernel_function(const struct frame_checker *c, const struct profile_sample *s,
                               const char *const *names, size_t n)
{
    for (uint32_t i = 0; i < s->depth; i++) {
        const struct sym_frame *f = sym_frame(c->sym, s->frames[i]);
        for (size_t k = 0; f->mode == LOG_MODE_GUEST_KERNEL && k < n; k++)
            if (!strcmp(function_name(c, f), names[k]))
                return true;
    }
    return false;
}

/* The function of the sample's first guest frame (its leaf, or the
 * guest's RIP at an exit) when that frame is the guest kernel's, else NULL. */
static const char *first_guest_kernel_function(const struct frame_checker *c,
                                               const struct profile_sample *s)
{
    if (s->context >= s->depth)
        return NULL;
    const struct sym_frame *f = sym_frame(c->sym, s->frames[s->context]);
    return f->mode == LOG_MODE_GUEST_KERNEL ? function_name(c, f) : NULL;
}

/* Whether the sample's first guest frame (its leaf, or the guest's RIP at
 * an exit) is the system call entry code itself (entry_SYSCALL_*): its
 * way back to user mode runs there after do_syscall_64 returned, when
 * the rewriters below may already have set the saved RIP (seen in Bochs:
 * a busy shell's SIGCHLD handler entry under entry_SYSCALL_64_after_hwframe
 * alone). Before its call the saved RIP is the one after the syscall,
 * which starts an instruction too. */
static bool in_syscall_entry_code(const struct frame_checker *c, const struct profile_sample *s)
{
    const char *name = first_guest_kernel_function(c, s);
    return name && starts_with(name, "entry_SYSCALL");
}

/* Whether the sample's first guest frame is do_syscall_64's own code. It
 * runs before the system call, when the saved RIP follows the syscall,
 * and after its call of syscall_exit_to_user_mode returned, when the way
 * back may have set it to a signal handler's entry (seen in Bochs: a
 * shell's SIGCHLD handler under do_syscall_64+0x6e and the entry frame
 * alone). Without the kernel's bytes the two cannot be told apart here. */
static bool in_do_syscall_64(const struct frame_checker *c, const struct profile_sample *s)
{
    const char *name = first_guest_kernel_function(c, s);
    return name && !strcmp(name, "do_syscall_64");
}

/* The rule of the user RIP under a system call's entry frame. It follows
 * the syscall instruction, unless it was rewritten:
 *   - on the way back to user mode (syscall_exit_to_user_mode and what it
 *     calls) it may have been set to a signal handler's entry or back onto
 *     the syscall to restart it, or to an rseq abort handler: it must then
 *     start an instruction;
 *   - in an execve, once the new program is loaded (load_elf_binary's
 *     start_thread sets the saved RIP before bprm_execve returns; until
 *     then the sample's user frames are [gone], profile.c), it is the
 *     entry point of the new program's ELF file (its interpreter's for a
 *     dynamically linked one), the binary it is named in; a failed execve
 *     returns after the syscall. That holds until the return to user
 *     mode, also after __x64_sys_execve has returned (a sample in
 *     do_syscall_64 then has no execve frame), so the entry point is
 *     accepted under every syscall entry: a saved RIP equal to its
 *     binary's entry point either follows a syscall instruction (accepted
 *     anyway) or was set by start_thread. Nothing else is accepted. */
static enum frame_rule user_rip_rule(const struct frame_checker *c, const struct profile_sample *s)
{
    static const char *const rewriters[] = { "syscall_exit_to_user_mode", "exit_to_user_mode_prepare",
                                             "arch_do_signal_or_restart", "handle_signal",
                                             "__rseq_handle_notify_resume" };
    if (in_kernel_function(c, s, rewriters, sizeof(rewriters) / sizeof(rewriters[0])) ||
        in_syscall_entry_code(c, s))
        return RULE_INTERRUPTED;
    return RULE_AFTER_SYSCALL_OR_EXEC;
}

/* A thunk an indirect branch goes through (a retpoline, or the return
 * thunk of the ITS mitigation): sampled after it put the branch target
 * where its return address was (`mov %reg, (%rsp)`), the next frame is
 * that target, a function's entry. The ITS mitigation's indirect thunks
 * (__x86_indirect_its_thunk_REG, `jmp *%REG` in the vmlinux file) were
 * seen in Bochs captures with the same next frame, the entry of a
 * function (after its caller's `call`, patched at boot), so they take the
 * same rule. */
static bool retpoline_thunk(const struct frame_checker *c, const struct sym_frame *f)
{
    const char *name = function_name(c, f);
    return f->mode == LOG_MODE_GUEST_KERNEL && (starts_with(name, "__x86_indirect_thunk_") ||
                                                starts_with(name, "__x86_indirect_call_thunk_") ||
                                                starts_with(name, "__x86_indirect_its_thunk_") ||
                                                !strcmp(name, "its_return_thunk"));
}

/* Whether kernel frame prev switches to the next task's stack
 * (__switch_to_asm, then __switch_to): the frame after it is that task's
 * return address, after its call of __switch_to_asm or, for a new task,
 * the entry of ret_from_fork that copy_thread planted (named at the
 * address itself, profile.c). */
static bool task_switch(const struct frame_checker *c, const struct sym_frame *prev)
{
    const char *name = function_name(c, prev);
    return prev->mode == LOG_MODE_GUEST_KERNEL &&
           (!strcmp(name, "__switch_to_asm") || !strcmp(name, "__switch_to"));
}

/* The rule of frame f after frame prev (NULL for the leaf). */
static enum frame_rule rule_of(const struct frame_checker *c, const struct sym_frame *f,
                               const struct sym_frame *prev, enum frame_rule user_rip)
{
    if (!prev)
        return RULE_INTERRUPTED;
    if (f->mode == LOG_MODE_GUEST_USER && prev->mode == LOG_MODE_GUEST_KERNEL)
        return starts_with(function_name(c, prev), "entry_SYSCALL") ? user_rip : RULE_INTERRUPTED;
    if (retpoline_thunk(c, prev) || task_switch(c, prev))
        return RULE_CALL_OR_ENTRY;
    return interrupt_entry(c, prev) ? RULE_CALL_OR_INTERRUPTED : RULE_AFTER_CALL;
}

static bool ends_call(const struct sym_code *code, uint64_t addr)
{
    return addr > code->start && insn_call_ends_at(code->bytes, addr - code->start);
}

static bool ends_syscall(const struct sym_code *code, uint64_t addr)
{
    return addr > code->start && insn_syscall_ends_at(code->bytes, addr - code->start);
}

/* Whether an instruction starts at addr: decoded from its function's
 * entry, or from the start of the section when the function is unknown
 * (a stripped binary). FRAME_OK, FRAME_NOT_INSN_START or FRAME_NO_DECODER. */
static enum frame_cause insn_start(struct frame_checker *c, const struct sym_frame *f,
                                   const struct sym_code *code, uint64_t addr)
{
    uint64_t entry = code->start;
    if (sym_function(c->sym, f->function)->known && f->addr - f->offset >= code->start &&
        f->addr - f->offset <= addr)
        entry = f->addr - f->offset;
    int r = insn_starts_at(c->starts, code->bytes, code->start, code->size, entry, addr);
    return r < 0 ? FRAME_NO_DECODER : r ? FRAME_OK : FRAME_NOT_INSN_START;
}

/* Why f cannot be checked, when its image has no bytes at hand. */
static struct frame_result unchecked(const struct frame_checker *c, const struct sym_frame *f,
                                     uint64_t addr, const char *why, bool process_known)
{
    const char *image = sym_image(c->sym, f->image)->name;
    struct frame_result r = { FRAME_UNCHECKED, FRAME_NO_BINARY, image, addr };
    if (starts_with(image, JIT_IMAGE_PREFIX))
        r.cause = FRAME_JIT;
    else if (!strcmp(image, SYM_GONE_IMAGE))
        r.cause = FRAME_NO_PROCESS;
    else if (!strcmp(image, SYM_NO_MAPS_IMAGE))
        r.cause = FRAME_NO_MAPS;
    else if (f->mode == LOG_MODE_GUEST_USER && !strcmp(image, ANON_IMAGE) && !f->unmapped)
        r.cause = FRAME_JIT;     /* in anonymous executable memory: generated code */
    else if (f->mode == LOG_MODE_GUEST_USER && !strcmp(image, ANON_IMAGE) &&
             !sym_function(c->sym, f->function)->known) {
        r.verdict = process_known && !f->maps_partial ? FRAME_INVALID : FRAME_UNCHECKED;
        r.cause = !process_known ? FRAME_NO_PROCESS :
                  f->maps_partial ? FRAME_MAPS_PARTIAL : FRAME_NO_MAPPING;
    } else if (!strcmp(why, "outside-text") && f->mode == LOG_MODE_GUEST_KERNEL &&
               !sym_function(c->sym, f->function)->known && addr >= KERNEL_MODULES_START &&
               addr < KERNEL_MODULES_END) {
        r.cause = FRAME_MODULE;
    } else if (!strcmp(why, "outside-text")) {
        r.verdict = FRAME_INVALID;
        r.cause = FRAME_OUTSIDE_TEXT;
    }
    return r;
}

/* Whether a call of the running kernel ends at addr in boot-patched text. */
static bool patched_call_ends(const struct sym_patch *p, uint64_t addr)
{
    uint64_t at = addr - p->start;
    switch (p->kind) {
    case SYM_PATCH_ALTERNATIVE:
        return p->repl && at <= p->repl_len && insn_call_ends_at(p->repl, at);
    case SYM_PATCH_RETPOLINE_CALL:
        return true;
    case SYM_PATCH_PARAVIRT:
        return p->image_call && at == 5;
    }
    return false;
}

/* A kernel frame the image's bytes contradict, looked at again where the
 * kernel rewrote its text at boot. */
static enum frame_cause kernel_patched(struct frame_checker *c, uint32_t domain, uint64_t addr,
                                       enum frame_cause cause)
{
    struct sym_patch p;
    if (!sym_code_patch_at(c->sym, domain, addr, &p))
        return cause;
    if (cause == FRAME_NOT_AFTER_CALL)
        return patched_call_ends(&p, addr) ? FRAME_OK : cause;
    if (cause == FRAME_NOT_INSN_START && addr < p.start + p.len)
        return FRAME_PATCHED;
    return cause;
}

static struct frame_result check_frame(struct frame_checker *c, const struct profile_sample *s,
                                       uint32_t i, enum frame_rule rule)
{
    uint32_t domain = s->domain;
    const struct sym_frame *f = sym_frame(c->sym, s->frames[i]);
    uint64_t addr = profile_frame_address(s, i, f);   /* callers were named at addr - 1 */
    uint64_t lookup = rule == RULE_INTERRUPTED ? addr : addr - 1;
    struct sym_code code;
    const char *why;
    uint64_t entry;
    const char *binary;
    if (rule == RULE_AFTER_SYSCALL_OR_EXEC && sym_code_entry_point(c->sym, f, &entry, &binary) &&
        entry == addr)
        return (struct frame_result){ FRAME_VALID, FRAME_OK, binary, addr };
    if (!sym_code_of(c->sym, domain, f, lookup, &code, &why))
        return unchecked(c, f, addr, why, s->process.pid != 0);
    struct frame_result r = { FRAME_VALID, FRAME_OK, code.binary, addr };
    enum frame_cause cause = FRAME_OK;
    switch (rule) {
    case RULE_AFTER_CALL:
        cause = ends_call(&code, addr) ? FRAME_OK : FRAME_NOT_AFTER_CALL;
        break;
    case RULE_AFTER_SYSCALL_OR_EXEC:     /* not its entry point: checked above */
        cause = ends_syscall(&code, addr) ? FRAME_OK : FRAME_NOT_AFTER_SYSCALL;
        if (cause != FRAME_OK && in_do_syscall_64(c, s) && insn_start(c, f, &code, addr) == FRAME_OK)
            cause = FRAME_RETURN_PATH;
        break;
    case RULE_CALL_OR_INTERRUPTED:
        cause = ends_call(&code, addr) ? FRAME_OK : insn_start(c, f, &code, addr);
        break;
    case RULE_CALL_OR_ENTRY:
        cause = ends_call(&code, addr) || sym_kernel_function_at(c->sym, domain, addr) ?
                FRAME_OK : FRAME_NOT_AFTER_CALL;
        break;
    case RULE_INTERRUPTED:
        cause = insn_start(c, f, &code, addr);
        break;
    }
    if (cause != FRAME_OK && f->mode == LOG_MODE_GUEST_KERNEL)
        cause = kernel_patched(c, domain, addr, cause);
    r.cause = cause;
    r.verdict = cause == FRAME_OK ? FRAME_VALID :
                cause == FRAME_NO_DECODER || cause == FRAME_PATCHED || cause == FRAME_RETURN_PATH ?
                FRAME_UNCHECKED : FRAME_INVALID;
    return r;
}

void frame_check_sample(struct frame_checker *c, const struct profile_sample *s,
                        struct frame_result *out)
{
    const struct sym_frame *prev = NULL;
    enum frame_rule user_rip = user_rip_rule(c, s);
    for (uint32_t i = 0; i < s->depth; i++) {
        const struct sym_frame *f = sym_frame(c->sym, s->frames[i]);
        bool leaf = i == 0 || (s->context && i == s->context);   /* the guest's RIP at an exit */
        out[i] = check_frame(c, s, i, leaf ? RULE_INTERRUPTED : rule_of(c, f, prev, user_rip));
        prev = f;
    }
}
