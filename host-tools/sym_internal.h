/* The symbolizer's private state, shared by its files: symbolize.c (the
 * tables of strings, images, functions and frames, kernel and hypervisor
 * lookups, life cycle), sym_sets.c (symbols records: reassembling sets,
 * parsing their lines, what was lost), sym_user.c (user addresses:
 * processes, identities, JIT maps), sym_elf.c (ELF files through libdwfl,
 * the guest root, warnings), sym_table.c (an ELF's symbols by address). Every lookup by key goes through a keymap
 * or a sorted index, never a scan of everything the log holds. */
#ifndef HOST_TOOLS_SYM_INTERNAL_H
#define HOST_TOOLS_SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host-tools/keymap.h"
#include "host-tools/range_index.h"
#include "host-tools/symbolize.h"

#define SYM_NAME_MAX 512u
#define SYM_KERNEL_IMAGE "[kernel.kallsyms]"   /* the guest kernel's image */
#define SYM_PATH_MAX (2 * SYM_NAME_MAX)   /* a source path joined to its directory */

/* Growable arrays: *cap grows by doubling to hold need elements. Exits
 * with "out of memory" when it cannot. */
void *sym_grow(void *p, size_t *cap, size_t need, size_t elem);
/* count zeroed elements (at least one), or exits with "out of memory". */
void *sym_calloc(size_t count, size_t elem);

/* Open addressing with a caller's equality: slots hold a 64-bit hash and
 * value + 1 (0 = empty). */
struct ptab {
    uint64_t *hash;
    uint32_t *val;
    size_t cap, used;
};

struct ksym {
    uint64_t addr;
    uint64_t limit;              /* addresses from here on are not in it (a
                                    module's last symbol: its text ends) */
    const char *name;
    uint32_t image;
};

struct ktable {
    struct ksym *syms;           /* sorted by address */
    size_t count, cap;
};

struct map_entry {
    uint64_t start, end, offset;
    const char *path;            /* interned; NULL for anonymous */
    bool exec;
};

/* One /proc/PID/maps set as shipped, in force from its TSC until the
 * process's next set: an exec replaces the program at the same pid, so
 * each sample is named by the set of its own time. */
struct maps_set {
    uint32_t seq;                /* arrival number among all maps sets, from 1 */
    uint64_t tsc;                /* of its first chunk */
    uint32_t rank;               /* its place among all sets by (TSC, seq), from 1
                                    (struct sym_indexes); sets arrive out of TSC
                                    order when each CPU's log drains on its own */
    struct map_entry *maps;
    size_t count, cap;
    bool scanned;                /* shipped by the agent's scan, not by the
                                    module's watch (SYM_EPOCH_WATCH) */
    bool names_frames;           /* it may name frames (sym_user.c's
                                    judge_sets): it maps code and, if scanned,
                                    no exec changed the address space while
                                    the agent read it */
};

struct process {
    uint32_t domain, pid;
    struct maps_set *sets;       /* in arrival order */
    size_t set_count, set_cap;
    uint32_t last_rank;          /* the highest rank of its sets that map
                                    executable code (struct sym_indexes) */
    bool jit;                    /* it runs generated code: a JIT map of it, or
                                    anonymous executable memory in a set */
};

struct jit_entry {
    uint64_t start, end;
    const char *name;
    uint32_t set;                /* index into jits */
};

/* A JIT map set: entries [first, first + count) of jit_ents. */
struct jit_set {
    uint32_t domain, pid;
    uint64_t tsc;
    size_t first, count;
};

/* The newest of a sequence at a time: entries with increasing TSC. One
 * pushed (seq_push) evicts those whose TSC is not below its own: the
 * newest arrival wins. One inserted (seq_insert) takes its place by TSC
 * and evicts nothing: the latest TSC wins, whatever the arrival order. */
struct seq_stack {
    struct seq_at { uint64_t tsc; uint32_t seq; } *at;
    size_t count, cap;
};

struct identity {
    uint32_t domain, pid;
    uint64_t cr3;                /* masked with SYM_CR3_SPACE_MASK */
    const char *comm;            /* interned, cleaned of control bytes */
    bool born;                   /* shipped by the module's watch at its fork or
                                    exec (SYM_EPOCH_WATCH): its program did
                                    not run at this CR3 before */
    uint64_t tsc;                /* when the guest shipped it: each CPU's log
                                    is drained on its own, so an older
                                    identity can arrive after a newer one */
};

struct cr3_binding {
    uint32_t domain, pid;
};

enum set_state {
    SET_IDLE,                    /* no chunk pending */
    SET_OPEN,                    /* chunks 0 .. next_chunk - 1 arrived */
    SET_BROKEN,                  /* a chunk was missing: the rest is ignored */
};

/* Reassembly of one (domain, kind, pid, epoch) data set. */
struct set_asm {
    struct log_symbols key;      /* data unused */
    enum set_state state;
    uint32_t next_chunk;
    uint64_t tsc;                /* of chunk 0 */
    char *text;
    size_t len, cap;
};

/* Answers that stay the same for every address between two consecutive
 * boundaries (sym_intervals.c): a lookup whose result depends only on
 * which symbol or DWARF ranges hold an address is made once per interval
 * between those ranges' ends instead of once per address. Slots hold the
 * caller's answer + 1, 0 until it is known. */
struct sym_intervals {
    uint64_t *bounds;            /* sorted, distinct */
    size_t count;
    uint32_t *slots;             /* count + 1: below bounds[0], ..., from bounds[count - 1] on */
    bool built;
};

/* Appends v to a growing array of boundaries. */
void sym_bounds_push(uint64_t **bounds, size_t *n, size_t *cap, uint64_t v);
/* Takes bounds (n of them, malloc'ed: kept and freed with iv). */
void sym_intervals_build(struct sym_intervals *iv, uint64_t *bounds, size_t n);
/* The slot of the interval holding addr. */
uint32_t *sym_intervals_slot(struct sym_intervals *iv, uint64_t addr);
void sym_intervals_free(struct sym_intervals *iv);

/* An ELF module's symbols by address (sym_table.c), read once from
 * libdwfl: its entries in the order libdwfl searches them (globals, then
 * locals), the sized ones sorted by start, the allocated sections. */
struct sym_table_entry {
    uint64_t value, size;
    const char *name;            /* libdwfl's (the file's string table) */
    uint32_t section;            /* the allocated section holding value (0: none) */
    uint8_t bind;                /* global 3, weak 2, local 1, other 0 */
    bool absolute;               /* an absolute or other special section's */
};
struct sym_table_sized {
    uint64_t value;
    uint64_t max_end;            /* the highest end of this and every lower one */
    uint32_t entry;              /* index into all */
};
struct sym_table_section {
    uint64_t start, end;
    uint32_t ndx;
};
struct sym_table {
    struct sym_table_entry *all;
    size_t count, global_count;
    bool local_pass;             /* the table has locals (libdwfl's second pass) */
    struct sym_table_sized *sized;
    size_t sized_count;
    uint64_t *sizeless_globals;  /* values, sorted */
    size_t sizeless_global_count;
    struct sym_table_section *secs;      /* by start */
    size_t sec_count;
    bool built;
    bool own;                    /* false: libdwfl answers (not x86, or relocatable) */
};

/* Reads module's (a Dwfl_Module *) symbols into t. */
void sym_table_build(struct sym_table *t, void *module);
/* The name dwfl_module_addrinfo gives addr in module (NULL: none), the
 * symbol's start and size; builds t on first use. */
const char *sym_table_lookup(struct sym_table *t, void *module, uint64_t addr, uint64_t *start,
                             uint64_t *size);
void sym_table_free(struct sym_table *t);

/* A symbol lookup's answer (sym_elf.c): the name libdwfl gives the
 * interval's addresses and the address their offsets count from. */
struct sym_symbol_answer {
    const char *name;            /* NULL: no symbol */
    uint64_t start;
};

/* A function inlined around an address and the line of the function it
 * was inlined into (DW_AT_call_line). */
struct sym_chain_link {
    uint32_t function;
    uint32_t call_line;
};

/* The inline chains of a compile unit (sym_dwarf.c), by interval of its
 * DIEs' address ranges, in the unit's own addresses (module address less
 * bias): a slot's answer is links [first, first + count). */
struct sym_unit_chains {
    struct sym_intervals intervals;
    struct sym_chain_answer { uint32_t first, count; } *answers;
    size_t answer_count, answer_cap;
    struct sym_chain_link *links;
    size_t link_count, link_cap;
    struct sym_unit_tops *tops;  /* the unit's direct children, their ranges read once */
};

struct elf_image {
    const char *path;            /* interned (the guest's path for guest files) */
    uint64_t base;
    void *dwfl;                  /* Dwfl *, NULL if the file did not open */
    void *mod;                   /* Dwfl_Module * */
    uint32_t image;
    void *cus;                   /* sym_dwarf.c's index of compile units */
    size_t cu_count;
    bool cus_built;
    struct sym_table table;              /* the module's symbols by address */
    struct sym_intervals symbols;        /* symbol lookups by interval */
    struct sym_symbol_answer *symbol_answers;
    size_t symbol_answer_count, symbol_answer_cap;
    struct keymap unit_chains;           /* a compile unit's DIE offset -> its index in units */
    struct sym_unit_chains *units;
    size_t unit_count, unit_cap;
};

/* Which process, maps set and mapping an indexed range is. */
struct map_ref {
    uint32_t proc, set, map;
};

/* Indexes over what the log shipped, built on the first lookup after it
 * changed (sets arrive while the log streams in; lookups come after). */
struct sym_indexes {
    bool stale;
    struct range_index *maps_by_pid;     /* exec maps; group (domain, pid), prio: set rank */
    struct range_index *maps_by_pid_rev; /* the same, prio: UINT32_MAX - set rank */
    struct range_index *maps_by_domain;  /* exec maps; group domain, prio: set rank */
    uint64_t *set_tscs_sorted;           /* every maps set's TSC, ascending */
    struct map_ref *map_refs;
    struct range_index *jit_by_pid;      /* JIT entries; prio: their index */
    struct range_index *jit_by_domain;
    uint32_t *idents_sorted;             /* identity indexes by (domain, CR3, TSC, index) */
    uint64_t *domain_first_tsc;          /* per idents_sorted entry: the earliest
                                          * identity TSC of its domain */
    uint64_t *space_floor;               /* per identity (index into idents): the TSC of
                                          * its pid's newest identity before it at
                                          * another CR3, 0 if none: the maps sets
                                          * shipped before then describe an earlier
                                          * address space of the pid (sym_user.c) */
    uint64_t *space_ceiling;             /* per identity: the TSC of its pid's next
                                          * identity at another CR3, UINT64_MAX if
                                          * none: later sets describe a later space */
};

struct sym_unwinder;                     /* host-tools/sym_unwind.c */

/* A guest kernel image given with --kernel-image, read on first use
 * (host-tools/sym_code.c). */
struct sym_kernel_image {
    const char *key;             /* the option's DOM, "0" for the plain form */
    const char *path;
    bool tried;                  /* read (or failed to) already */
    uint8_t *data;               /* the vmlinux ELF, unpacked */
    size_t len;
    void *elf;                   /* Elf * over data, NULL if unusable */
    uint64_t slide;              /* running address - link address */
    bool slide_known;
    bool elf_file;               /* the file itself is the ELF (not a bzImage) */
    int dwarf;                   /* 1 + its entry in elves for source lines, 0: none */
    bool dwarf_tried;
    struct sym_patch *patches;   /* boot-time patch sites, link addresses, by start */
    size_t patch_count, patch_cap;
};

/* A file given for one domain, opened (host-tools/sym_domains.c). */
struct sym_domain_src {
    const char *key;             /* the option's DOM */
    uint32_t ktable;             /* --kallsyms: index into ktables */
    int root_fd;                 /* --guest-root: the directory, or -1 */
    int elf;                     /* --domain-elf: index into elves, or -1 */
};

struct symbolizer {
    struct sym_options opts;
    struct sym_domain_src dom_kallsyms[SYM_DOMAIN_FILES_MAX];
    struct sym_domain_src dom_roots[SYM_DOMAIN_FILES_MAX];
    struct sym_domain_src dom_elves[SYM_DOMAIN_FILES_MAX];
    struct sym_kernel_image kimages[SYM_DOMAIN_FILES_MAX + 1];   /* [0]: the plain form */
    const struct domain_names *names;    /* the log's domain names, or NULL */
    struct sym_unwinder *unwinders;      /* DWARF unwinding: one per process */
    size_t unwinder_count, unwinder_cap;
    int root_fd;                         /* --guest-root (domain 0), or -1 */
    const char **strings;
    size_t string_count, string_cap;
    struct ptab string_tab;
    struct sym_image *images;
    size_t image_count, image_cap;
    struct keymap image_map;             /* interned name -> image */
    struct sym_function *functions;
    size_t function_count, function_cap;
    struct ptab function_tab;
    struct sym_frame *frames;
    struct sym_frame_key { uint64_t addr, where, space, identity_seq; } *frame_keys;
    size_t frame_count, frame_cap, frame_key_cap;
    struct ptab frame_tab;
    struct ktable *ktables;              /* [0]: --kallsyms, if given */
    size_t ktable_count, ktable_cap;
    struct keymap ktable_map;            /* domain -> shipped kallsyms */
    struct process *procs;
    size_t proc_count, proc_cap;
    struct keymap proc_map;              /* (domain, pid) -> process */
    uint32_t maps_set_count;             /* maps sets committed so far */
    uint64_t *maps_set_tscs;             /* by seq - 1 */
    size_t maps_set_tsc_cap;
    struct seq_stack maps_stack;         /* the maps set shipped last at a time, by TSC */
    struct jit_set *jits;                /* in arrival order */
    size_t jit_count, jit_cap;
    struct jit_entry *jit_ents;
    size_t jit_ent_count, jit_ent_cap;
    struct seq_stack *jit_stacks;        /* per domain */
    size_t jit_stack_count, jit_stack_cap;
    struct keymap jit_stack_map;         /* domain -> its stack */
    struct identity *idents;             /* in arrival order */
    size_t ident_count, ident_cap;
    struct seq_stack ident_stack;        /* by TSC: see struct identity's tsc */
    struct keymap ident_of_pid;          /* (domain, pid) -> its latest identity */
    const char *kernel_build_id;         /* the latest a guest shipped (hex), or NULL */
    uint64_t ident_tsc;                  /* of the identity set being committed */
    uint64_t oldest_commit;              /* sym_take_oldest_commit's, UINT64_MAX: none */
    struct cr3_binding *bindings;
    size_t binding_count, binding_cap;
    struct keymap binding_map;           /* (domain, CR3) -> binding */
    struct set_asm *sets;
    size_t set_count, set_cap;
    struct keymap set_map;               /* (domain, pid, epoch, kind) -> reassembly */
    uint64_t open_sets;
    struct elf_image *elves;
    size_t elf_count, elf_cap;
    struct keymap elf_map;               /* (path, base) -> elf */
    const char **warnings;               /* interned "PATH: reason" */
    size_t warning_count, warning_cap;
    struct keymap warned;                /* path -> 1 */
    struct sym_inline *inlines;          /* frames' inlined functions */
    size_t inline_count, inline_cap;
    int vertigo_elf;                     /* index into elves, or -1 */
    struct sym_problems problems;
    struct sym_indexes ix;
};

/* CR3 bits that do not name an address space: the PCID (11:0) and, under
 * page-table isolation, bit 12, which selects the user half of the
 * kernel's 8 KiB page-table pair. */
#define SYM_CR3_SPACE_MASK (~0x1fffull)

/* symbolize.c */
/* Replaces control characters and invalid UTF-8 in s (guest text bound
 * for a terminal) by '?' (text_clean, host-tools/text_quote.h). */
void sym_clean(char *s);
const char *sym_intern(struct symbolizer *s, const char *str);
uint32_t sym_image_get(struct symbolizer *s, const char *name, uint64_t start, uint64_t limit,
                       uint64_t offset);
uint32_t sym_function_get(struct symbolizer *s, uint32_t image, const char *name,
                          const char *file, uint32_t line, bool known);
uint32_t sym_unknown_function(struct symbolizer *s, uint32_t image, bool has_image,
                              uint64_t addr, uint64_t offset);

/* sym_sets.c */
void sym_sets_free(struct symbolizer *s);
/* Loads kallsyms text (modified in place) into k, replacing its symbols. */
void sym_load_kallsyms(struct symbolizer *s, struct ktable *k, char *text, size_t len);

/* sym_user.c */
void sym_resolve_user(struct symbolizer *s, const struct sym_where *w, struct sym_frame *f);
/* The process whose executable mapping holds addr, for a sample at w (as
 * sym_resolve_user picks it), or NULL; its maps set in *set. */
const struct process *sym_user_process(struct symbolizer *s, const struct sym_where *w,
                                       uint64_t addr, const struct maps_set **set);

/* sym_unwind.c */
void sym_unwinders_free(struct symbolizer *s);
void sym_user_free(struct symbolizer *s);
void seq_push(struct seq_stack *st, uint64_t tsc, uint32_t seq);
void seq_insert(struct seq_stack *st, uint64_t tsc, uint32_t seq);
uint32_t seq_at(const struct seq_stack *st, uint64_t tsc);

/* How many of the count elements (elem_size bytes each, sorted by an
 * unsigned key of key_size bytes, 4 or 8, at key_offset) have a key at or
 * below key: the index just after the last of them (binary search). */
size_t sym_count_upto(const void *elems, size_t count, size_t elem_size, size_t key_offset,
                      size_t key_size, uint64_t key);

/* symbolize.c: the whole of path, a regular file, with a NUL after it;
 * NULL with err "OPTION: reason" (option: how the user gave it). */
char *sym_read_text_file(const char *option, const char *path, size_t *len, char *err,
                         size_t err_len);
/* The directory path opened for guest_root_open; -1 with err set. */
int sym_open_root(const char *option, const char *path, char *err, size_t err_len);

/* sym_domains.c: the files given per domain. */
bool sym_domains_open(struct symbolizer *s, char *err, size_t err_len);
void sym_domains_close(struct symbolizer *s);
/* The kallsyms given for domain (its own, else --kallsyms FILE for
 * domain 0), or NULL: then the ones the domain shipped. */
const struct ktable *sym_domain_ktable(const struct symbolizer *s, uint32_t domain);
/* The guest root of domain (its own, else --guest-root DIR for domain 0),
 * or -1. */
int sym_root_fd(const struct symbolizer *s, uint32_t domain);
/* The ELF given as domain's one image (--domain-elf), index into elves,
 * or -1. */
int sym_domain_elf(const struct symbolizer *s, uint32_t domain);

/* sym_domains.c: whether DOM (a number or a name) designates domain. */
bool sym_key_designates(const struct symbolizer *s, const char *key, uint32_t domain);
/* The kallsyms of domain (given, else shipped), or NULL (symbolize.c). */
const struct ktable *sym_ktable_of(const struct symbolizer *s, uint32_t domain);

/* sym_code.c */
void sym_code_free(struct symbolizer *s);

/* sym_elf.c */
/* Opens Vertigo's ELF (a host file the user named); -1 if unreadable. */
int sym_elf_open_vertigo(struct symbolizer *s, const char *path, uint32_t image);
/* Opens a host ELF file for its DWARF alone (a guest kernel's vmlinux, for
 * source lines): an entry no image names; -1 if it is no well-formed ELF
 * file or has no DWARF. */
int sym_elf_open_dwarf(struct symbolizer *s, const char *path);
/* Opens the guest's file path under the guest root root_fd, once per
 * (root, path, base); -1 (after a warning, once per path, unless it is simply absent)
 * if it does not open as an ELF file. */
int sym_elf_open_guest(struct symbolizer *s, int root_fd, const char *path, uint64_t base,
                       uint32_t image);
/* Names addr of ELF idx in frame f (image_off: the address's file offset). */
void sym_elf_lookup(struct symbolizer *s, int idx, uint64_t addr, uint64_t image_off,
                    struct sym_frame *f);
bool sym_elf_build_id(const struct symbolizer *s, int idx, uint8_t out[LOG_BUILD_ID_SIZE]);
/* Whether fd holds a well-formed ELF file (libelf and libdw can read it
 * without trusting its offsets); if not, why. */
bool sym_elf_guest_file_ok(int fd, char *why, size_t len);
/* A new Dwfl (Dwfl *) for guest files: no other file is ever looked for
 * (no host debuginfo, no build-id search); NULL if libdwfl fails. */
void *sym_elf_guest_dwfl(void);
void sym_elf_free(struct symbolizer *s);

/* sym_dwarf.c */
/* Frees what sym_dwarf.c keeps for e. */
void sym_dwarf_free(struct elf_image *e);
/* The source file (joined to its unit's compilation directory) and line
 * of addr in e; false when its DWARF does not say. */
bool sym_dwarf_line(struct elf_image *e, uint64_t addr, char file[SYM_PATH_MAX], uint32_t *line);
/* The functions inlined at addr in e, innermost first, each with its line
 * (the innermost's is leaf_line), at most max into out; *call_line is the
 * line in the function they were all inlined into (0 when none were). */
size_t sym_dwarf_inlines(struct symbolizer *s, struct elf_image *e, uint64_t addr, uint32_t leaf_line,
                         struct sym_inline *out, size_t max, uint32_t *call_line);

#endif
