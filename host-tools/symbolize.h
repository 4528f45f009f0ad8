/* Host-side symbolization of profiling samples: turns (domain, mode,
 * address space, address) into an image, a function and a source line.
 *
 * Sources, by sample mode:
 *  - hypervisor: Vertigo's own ELF (libdwfl, file:line from its DWARF);
 *  - guest kernel: kallsyms text (from the log's symbols records of the
 *    sample's domain or a file given for that domain), binary search over
 *    the sorted addresses;
 *  - guest user: the process maps shipped in the log give the path of the
 *    image under the guest root directory given for the sample's domain
 *    (libdwfl, file:line), and
 *    JIT maps (perf-PID.map lines) by epoch: a JIT map set is in force from
 *    the TSC of its first chunk until the next set of the same process.
 * An address nothing covers becomes "[unknown] image+0xOFF" (its mapping
 * known) or "[unknown] 0xADDR".
 *
 * The symbol text comes from the guest: names are shown with control
 * bytes replaced by '?', paths are opened inside the guest root only
 * (host-tools/guest_root.h), guest ELF files never lead to host files
 * (no separate debug files), and every lookup costs O(log n) or less in
 * what the log shipped, so time and memory grow with the log's size.
 *
 * Results are cached: each distinct (domain, mode, space, JIT position,
 * address) is resolved once and named by a frame id; frames share
 * interned functions and images. */
#ifndef HOST_TOOLS_SYMBOLIZE_H
#define HOST_TOOLS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertigo/log_format.h"

#define SYM_DOMAIN_FILES_MAX 8u

/* A file given for one domain (`--kallsyms DOM=FILE`, `--guest-root
 * DOM=DIR`): DOM is a domain number or a name the log gives a domain
 * (host-tools/domain_names.h). */
struct sym_domain_file {
    const char *domain;
    const char *path;
};

struct sym_options {
    const char *guest_root;      /* domain 0's guest files, or NULL */
    const char *kallsyms_path;   /* domain 0's kallsyms text file (overrides the log's), or NULL */
    const char *vertigo_elf;     /* Vertigo's ELF for hypervisor samples, or NULL */
    /* The same for other domains, e.g. passive ones (no agent shipped
     * their symbols): a domain's own file overrides the plain form's. */
    struct sym_domain_file kallsyms[SYM_DOMAIN_FILES_MAX];
    unsigned int kallsyms_count;
    struct sym_domain_file roots[SYM_DOMAIN_FILES_MAX];
    unsigned int root_count;
    /* A domain that runs one static image (a unikernel): every address of
     * its guest samples, any mode, is looked up in that ELF file. */
    struct sym_domain_file elves[SYM_DOMAIN_FILES_MAX];
    unsigned int elf_count;
    bool no_demangle;            /* keep C++/Rust names as the binary spells them */
    /* A guest kernel image (an ELF vmlinux, or a bzImage whose compressed
     * vmlinux is unpacked with the system's decompressor): the bytes of
     * the kernel's text, for `check-frames` and `annotate` (sym_code_of).
     * The plain form is domain 0's. */
    const char *kernel_image;
    struct sym_domain_file kimages[SYM_DOMAIN_FILES_MAX];
    unsigned int kimage_count;
};

/* An image: an ELF, the kernel, a JIT map, or an anonymous region. */
struct sym_image {
    const char *name;            /* "/bin/workload", "[kernel.kallsyms]", "perf-42.map" */
    uint64_t start, limit;       /* lowest/highest address seen in it */
    uint64_t file_offset;        /* offset of start in the file (mappings) */
    uint32_t elf;                /* 1 + the ELF file it was read from, 0: none */
};

/* A function (or the unknown placeholder) inside an image. */
struct sym_function {
    const char *name;            /* "g", "[unknown] /bin/x+0x12", "[unknown] 0xffff..." */
    const char *file;            /* source file of its entry, or NULL */
    uint32_t line;               /* source line of its entry, 0 if unknown */
    uint32_t image;              /* index into the image table */
    bool known;                  /* false for [unknown] placeholders */
};

#define SYM_INLINE_MAX 16u       /* inlined functions kept at one address */

/* A function inlined at an address, and the address's line in it. */
struct sym_inline {
    uint32_t function;
    uint32_t line;
};

/* One resolved address. When code was inlined there, function is still
 * the symbol holding it and the inlined functions are a chain, innermost
 * first (sym_frame_inlines): the address is at line `line` of the
 * innermost, which was inlined at a line of the next, ..., and the
 * outermost at call_line of function. */
struct sym_frame {
    uint64_t addr;
    uint64_t offset;             /* addr minus its function's start (perf's
                                    "sym+0xOFF"); 0 for an unknown function */
    uint32_t function;           /* index into the function table */
    uint32_t image;
    uint32_t line;               /* source line of addr itself, 0 if unknown */
    uint8_t mode;                /* enum log_mode it was resolved in */
    bool unmapped;               /* a user address no process mapping (nor JIT map) covers */
    bool maps_partial;           /* ... in an address space whose maps in the log
                                    cannot tell it is unmapped: code may have
                                    been mapped after its last set (sym_user.c) */
    uint32_t inline_first;       /* its inlined functions: sym_frame_inlines */
    uint32_t inline_count;
    uint32_t call_line;          /* line of function the outermost was inlined at */
    uint32_t elf;                /* 1 + the ELF file it was named from (sym_code_of), 0: none */
};

/* Where an address was sampled. */
struct sym_where {
    uint32_t domain;
    uint8_t mode;                /* enum log_mode */
    bool has_cr3;
    uint64_t cr3;
    uint32_t jit_seq;            /* from sym_jit_seq_at() at the sample's TSC */
    uint32_t identity_seq;       /* from sym_identity_seq_at() at the sample's TSC */
    uint32_t maps_seq;           /* from sym_maps_seq_at() at the sample's TSC */
    /* A kernel sample taken where its CR3 may not be the program of the
     * stack's saved user registers: in a process's exit (do_exit in the
     * chain: it runs on whichever page tables the CPU held before, so the
     * CR3 names another process), in an execve (bprm_execve: from its
     * switch to the new program's page tables on, the CR3 is the new
     * program's), or in the scheduler's switch between two tasks
     * (switch_mm_irqs_off loads the next task's CR3, and __switch_to_asm
     * moves to its stack only after). The user frames of its entry are
     * a program the CR3 does not name, named in no binary (SYM_GONE_IMAGE). */
    bool program_gone;
};

#define SYM_GONE_IMAGE "[gone]"

/* The image of a user frame of a process whose address space no maps set
 * describes (its program's set was lost, or never shipped): named in no
 * binary, neither known to be mapped nor known not to be. */
#define SYM_NO_MAPS_IMAGE "[no maps]"

/* The epoch of the process maps and identity sets the guest module's
 * watch ships at each exec and fork (the agent's scans use 0). */
#define SYM_EPOCH_WATCH 1u

/* The guest process a sample interrupted. */
struct sym_process {
    uint32_t pid;                /* 0 when unknown (and for the hypervisor) */
    const char *comm;            /* its name, "[unknown]", or "[vertigo]" */
};

#define SYM_COMM_UNKNOWN "[unknown]"
/* The lowest kernel-half address (48-bit canonical addresses). */
#define SYM_KERNEL_HALF_START 0xffff800000000000ull
#define SYM_COMM_VERTIGO "[vertigo]"

struct symbolizer;

/* Creates a symbolizer. Fails (NULL, a message in err) when guest_root is
 * given but is not a directory, or a kallsyms/Vertigo ELF file given
 * cannot be read. */
struct symbolizer *sym_create(const struct sym_options *opts, char *err, size_t err_len);

/* Frees s and everything it returned. */
void sym_destroy(struct symbolizer *s);

struct domain_names;

/* The names of the log's domains, which the per-domain files' DOM may
 * use (kept, not copied: it must outlive s; NULL: numbers only). */
void sym_set_domain_names(struct symbolizer *s, const struct domain_names *names);

/* After the log: false with a message in err ("--kallsyms web=FILE: no
 * domain 'web' in the log (its domains: dom0 (0), dom1 (1))") when a
 * per-domain file names a domain the log does not mention. */
bool sym_check_domains(const struct symbolizer *s, char *err, size_t err_len);

/* The GNU build id (ld --build-id=sha1) of the --vertigo-elf file into
 * out; false when no such file was given or it has no 20-byte build id. */
bool sym_vertigo_build_id(const struct symbolizer *s, uint8_t out[LOG_BUILD_ID_SIZE]);

/* Takes one symbols record (a chunk of kallsyms, maps, JIT map or
 * identity text) of the log, at TSC tsc; rec's fields are within the
 * decoder's ranges (a known kind). Chunks are reassembled per (domain,
 * kind, pid, epoch); a set takes effect when its last chunk arrives.
 * Returns false (and counts it in sym_problems) when the chunk is out of
 * sequence, restarts an unfinished set, says Vertigo abandoned the set, or
 * a line of the set is malformed. */
bool sym_add_record(struct symbolizer *s, const struct log_symbols *rec, uint64_t tsc);

/* The oldest place in time (the TSC of its first chunk) that a set
 * committed since the last call took among the sets samples are named by
 * (identities, maps, JIT maps), UINT64_MAX if none did; resets it. A
 * sample read before that set but later in TSC time was named without it. */
uint64_t sym_take_oldest_commit(struct symbolizer *s);

/* What the symbol records lost. A set (the chunks of one (domain, kind,
 * pid, epoch)) is broken when a chunk is missing or out of sequence (its
 * chunks up to the next chunk 0 are ignored), restarted when a chunk 0
 * comes before its last chunk (the first attempt is dropped), abandoned
 * when Vertigo gave it up unfinished to make room for other sets (a
 * record says so), unfinished when the log ends before its last chunk
 * (the guest stopped). */
struct sym_problems {
    uint64_t bad_lines;          /* malformed lines in sets that took effect */
    uint64_t broken_sets;
    uint64_t restarted_sets;
    uint64_t abandoned_sets;
    uint64_t unfinished_sets;    /* at the time of the call */
};

void sym_get_problems(const struct symbolizer *s, struct sym_problems *out);

/* Files under --guest-root that were named as a sample's binary but could
 * not serve (not a regular file, a link loop, a malformed ELF file, ...),
 * each once: "PATH: reason". A file simply absent is not one of them (its
 * samples show as [unknown] PATH+0xOFF). Valid until sym_destroy. */
size_t sym_warning_count(const struct symbolizer *s);
const char *sym_warning(const struct symbolizer *s, size_t i);

/* The JIT position of a sample of domain at tsc: one past the arrival
 * number of the domain's newest JIT map set whose first chunk came at or
 * before tsc (0: none). */
uint32_t sym_jit_seq_at(const struct symbolizer *s, uint32_t domain, uint64_t tsc);

/* The callers of a guest user-mode sample at w unwound from the user
 * registers and stack bytes copied with it (host-tools/sym_unwind.c: the
 * DWARF call-frame information of the process's ELF files under
 * --guest-root, elfutils' unwinder): return addresses, innermost first,
 * at most max into out; 0 when the process, its files or their CFI are
 * unknown. */
unsigned int sym_unwind_user(struct symbolizer *s, const struct sym_where *w,
                             const struct log_user_stack *us, uint64_t *out, unsigned int max);

/* Resolves addr sampled at where; returns a frame id (stable, cached). */
uint32_t sym_resolve(struct symbolizer *s, const struct sym_where *where, uint64_t addr);

/* One past the arrival number of the process-identity line ("PID CR3
 * COMM") shipped last at or before `tsc` among those arrived so far (0:
 * none), by TSC: an older identity arriving late (from another CPU's log)
 * does not hide a newer one. A sample's CR3 names the process of the
 * identity shipped last before it, or, when the process was identified
 * only after the sample (the agent ships a new process's identity a
 * little after it starts), the next one. */
uint32_t sym_identity_seq_at(const struct symbolizer *s, uint64_t tsc);

/* One past the arrival number of the process maps set shipped last at or
 * before `tsc` among those arrived so far (0: none), by TSC as for
 * identities: a user address is named by its process's maps set of that
 * time (an exec at the same pid ships a new one), or, for a sample taken
 * before its process's first set, the first after it. */
uint32_t sym_maps_seq_at(const struct symbolizer *s, uint64_t tsc);

/* The process of a sample taken at where (guest user or kernel mode with
 * its CR3): the identity ("PID CR3 COMM") naming the CR3 at the sample's
 * time (where->identity_seq), else the process an earlier user address of
 * that CR3 was found in (named by its latest identity, if any). Valid
 * until sym_destroy. */
struct sym_process sym_process_of(struct symbolizer *s, const struct sym_where *where);

/* Whether sym_process_of names where's process by an identity shipped
 * after the sample (a process found by the agent's scan after it had
 * run): a guess, which an address of the sample that the process's maps
 * do not cover refutes (profile.c then names no process). */
bool sym_process_guessed(struct symbolizer *s, const struct sym_where *where);

/* The GNU build id of the ELF file image was read from, or of the guest
 * kernel for [kernel.kallsyms] (the agent ships it), in hex, into out
 * (41 bytes); false when the image is no ELF file or has none. */
bool sym_image_build_id(const struct symbolizer *s, uint32_t image, char out[41]);

/* The functions inlined at f's address, innermost first (f->inline_count). */
const struct sym_inline *sym_frame_inlines(const struct symbolizer *s, const struct sym_frame *f);

/* The executable section of the binary a frame was named in that holds
 * addr: its bytes (valid until sym_destroy), where they start in the
 * sample's address space, and the binary's name. */
struct sym_code {
    const uint8_t *bytes;
    uint64_t start, size;
    const char *binary;          /* "/bin/busybox", "vmlinux" (the kernel image), ... */
};

/* The code around addr (a frame's address: its return address for a
 * caller) in the binary frame f of a sample of domain was named in: the
 * ELF file of a user or hypervisor frame, the domain's --kernel-image for
 * a frame of [kernel.kallsyms] (moved by the distance between the
 * kallsyms' _stext and the image's, for a randomized kernel). False when
 * that binary is not at hand (no file, a JIT map, a module, no kernel
 * image) or no executable section of it holds addr (then *why says which,
 * "outside-text" or "no-binary"). */
bool sym_code_of(struct symbolizer *s, uint32_t domain, const struct sym_frame *f, uint64_t addr,
                 struct sym_code *out, const char **why);

/* The entry point of the ELF file frame f was named from (its header's
 * e_entry, moved by the load bias of a position-independent one): where
 * a program starts after execve; *binary is the file's name as
 * sym_code_of gives it. False when f was named from no ELF file. */
bool sym_code_entry_point(struct symbolizer *s, const struct sym_frame *f, uint64_t *entry,
                          const char **binary);

/* A place of the guest kernel's text that the kernel rewrites at boot, so
 * its running bytes are not the image's: an alternative (its replacement
 * bytes are in the image), a retpoline call site (a call in every form
 * the kernel gives it), a paravirt call site (a direct call or inline
 * native code). From the kernel image's .altinstructions,
 * .retpoline_sites and .parainstructions (Linux 6.1's layouts). */
enum sym_patch_kind {
    SYM_PATCH_ALTERNATIVE,
    SYM_PATCH_RETPOLINE_CALL,
    SYM_PATCH_PARAVIRT,
};

struct sym_patch {
    enum sym_patch_kind kind;
    uint64_t start;              /* running address */
    uint32_t len;
    const uint8_t *repl;         /* an alternative's replacement, else NULL */
    uint32_t repl_len;
    bool image_call;             /* the image's bytes at start are a call */
};

/* The boot-time patch site of domain's kernel image (--kernel-image) with
 * start < addr <= start + len (addr: a return address, or an address
 * inside the site), into out; false when none, or no image. */
bool sym_code_patch_at(struct symbolizer *s, uint32_t domain, uint64_t addr, struct sym_patch *out);

/* The address range [*start, *end) of the function frame f of a sample of
 * domain is in: its ELF symbol's (value and size) for a frame named from
 * an ELF file, its kallsyms symbol up to the next one for a kernel frame.
 * False for an unknown function or one without a size. */
bool sym_function_bounds(struct symbolizer *s, uint32_t domain, const struct sym_frame *f,
                         uint64_t *start, uint64_t *end);

/* The source file and line of addr in the ELF file frame f of a sample of
 * domain was named from (its DWARF), or for a guest kernel frame in
 * domain's --kernel-image when that is an ELF vmlinux with DWARF (a
 * bzImage has none), into file and *line; false when it does not say. */
bool sym_source_line(struct symbolizer *s, uint32_t domain, const struct sym_frame *f, uint64_t addr,
                     char file[1024], uint32_t *line);

/* Whether a guest kernel function of domain's kallsyms starts at addr. */
bool sym_kernel_function_at(const struct symbolizer *s, uint32_t domain, uint64_t addr);

/* Tables (valid until sym_destroy). */
const struct sym_frame *sym_frame(const struct symbolizer *s, uint32_t id);
const struct sym_function *sym_function(const struct symbolizer *s, uint32_t id);
const struct sym_image *sym_image(const struct symbolizer *s, uint32_t id);
uint32_t sym_function_count(const struct symbolizer *s);
uint32_t sym_image_count(const struct symbolizer *s);


#endif
