/* The frame checker's rules: is each frame of a sample what the binary it
 * is named in says it can be? A profile's frames are only as right as the
 * process maps, kallsyms and ELF files that named them; this checks them
 * against the bytes of those binaries, not against the profiler.
 *
 *   - the sample's own address (the leaf), the guest's RIP at the exit
 *     under a hypervisor sample's frames, and the first user frame after
 *     an interrupt or exception from user mode, are interrupted RIPs: an
 *     instruction must start there (objdump, host-tools/insn_starts.h);
 *   - the first user frame after a system call's entry frame
 *     (entry_SYSCALL_*) must follow a syscall instruction; in an execve
 *     it may instead be the entry point of the ELF file it is named in
 *     (the new program's, where the kernel sent the saved RIP), and
 *     on the way back to user mode (signals, rseq) an instruction start;
 *     under a leaf in do_syscall_64's own code, which runs both before
 *     the system call and after the way back rewrote the saved RIP, one
 *     that follows no syscall but starts an instruction is unchecked;
 *   - every other frame is a return address: a call instruction must end
 *     there (host-tools/insn_call.h), except that the frame after an
 *     interrupt entry (a kernel `asm_*` or `entry_*` function, Vertigo's
 *     own exception and NMI entries) may also be the interrupted RIP.
 *
 * The guest kernel rewrites parts of its text at boot (alternatives,
 * retpolines, paravirt calls: sym_code_patch_at): a return address that
 * ends such a site is valid when the site's running form ends in a call
 * there (the alternative's replacement does, a retpoline call always
 * does, a paravirt call made direct ends 5 bytes in); an interrupted RIP
 * inside one is unchecked (the running bytes are not the image's).
 *
 * A frame whose binary is not at hand (no file under --guest-root, a JIT
 * map, a kernel module, no --kernel-image) is unchecked, not valid. */
#ifndef HOST_TOOLS_FRAME_CHECK_H
#define HOST_TOOLS_FRAME_CHECK_H

#include <stdint.h>

#include "host-tools/profile.h"

enum frame_verdict {
    FRAME_VALID,
    FRAME_INVALID,
    FRAME_UNCHECKED,
};

/* Why a frame is invalid or unchecked (frame_cause_name). */
enum frame_cause {
    FRAME_OK,
    FRAME_NOT_AFTER_CALL,        /* no call instruction ends at the return address */
    FRAME_NOT_AFTER_SYSCALL,     /* the user RIP after a system call follows no syscall */
    FRAME_NOT_INSN_START,        /* no instruction starts at an interrupted RIP */
    FRAME_OUTSIDE_TEXT,          /* no executable section of the binary holds it */
    FRAME_NO_MAPPING,            /* a user address no process mapping covers */
    FRAME_NO_BINARY,             /* unchecked: the binary's bytes are not at hand */
    FRAME_JIT,                   /* unchecked: code a JIT map names, or code in a
                                    mapping of anonymous executable memory */
    FRAME_NO_DECODER,            /* unchecked: objdump could not be run */
    FRAME_PATCHED,               /* unchecked: inside kernel text rewritten at boot */
    FRAME_NO_PROCESS,            /* unchecked: a user address of an address space no
                                    process identity names (a process's exit runs on
                                    the kernel's page tables) */
    FRAME_NO_MAPS,               /* unchecked: a user address of a process whose
                                    address space no maps set describes (the set its
                                    exec shipped was lost) */
    FRAME_MAPS_PARTIAL,          /* unchecked: a user address no mapping covers, in
                                    an address space whose maps in the log cannot
                                    tell it is unmapped (JIT code, or a dynamic
                                    program's libraries mapped after the maps its
                                    exec shipped) */
    FRAME_MODULE,                /* unchecked: a kernel address outside the kernel
                                    image, in the module area, that no shipped
                                    symbol names */
    FRAME_RETURN_PATH,           /* unchecked: a user RIP under do_syscall_64's own
                                    code that follows no syscall but starts an
                                    instruction: past its call of the way back to
                                    user mode the kernel may have rewritten it (a
                                    signal handler's entry, a restart, rseq) */
    FRAME_CAUSE_COUNT,
};

struct frame_result {
    enum frame_verdict verdict;
    enum frame_cause cause;
    const char *binary;          /* the image it is named in */
    uint64_t addr;               /* the address checked (a caller's return address) */
};

struct frame_checker;

struct frame_checker *frame_checker_new(struct symbolizer *s);
void frame_checker_free(struct frame_checker *c);

/* Checks every frame of s, leaf first, into out[0 .. s->depth). */
void frame_check_sample(struct frame_checker *c, const struct profile_sample *s,
                        struct frame_result *out);

/* "not-after-call", "no-binary", ... */
const char *frame_cause_name(enum frame_cause cause);

#endif
