/* The boot information a multiboot kernel finds at EBX (see
 * vmm/loader/multiboot.h). Multiboot 0.6.96 section 3.3: the fixed structure
 * with the memory sizes, command line, modules, memory map and boot
 * loader name. Multiboot2 2.0 section 3.6: a size, then 8-byte aligned
 * tags (command line, boot loader name, one per module, basic memory,
 * memory map, ACPI RSDP) and an end tag. Every pointer in it is a
 * guest-physical address inside the same area. */
#include "vmm/loader/multiboot.h"

#include "lib/mem.h"

#define LOADER_NAME         "Vertigo"

#define MB1_INFO_MEMORY     (1u << 0)
#define MB1_INFO_CMDLINE    (1u << 2)
#define MB1_INFO_MODS       (1u << 3)
#define MB1_INFO_MMAP       (1u << 6)
#define MB1_INFO_LOADER     (1u << 9)
#define MB1_INFO_BYTES      0x80u           /* the structure is 116 bytes */
#define MB1_MMAP_ENTRY      24u             /* size field + 20 bytes */
#define MB1_MODULE_BYTES    16u

#define MB2_MMAP_ENTRY      24u
#define LOW_RAM_END         0xa0000ull      /* mem_lower counts RAM below 640 KiB */

/* A bounded writer over the information area. */
struct out {
    uint8_t *buf;
    size_t size, used;
    uint64_t gpa;
    bool full;
};

/* Room for n bytes at the current end (zeroed); NULL once full. */
static uint8_t *take(struct out *o, size_t n)
{
    if (o->full || n > o->size - o->used) {
        o->full = true;
        return NULL;
    }
    uint8_t *p = o->buf + o->used;
    memset(p, 0, n);
    o->used += n;
    return p;
}

static void align(struct out *o, size_t a)
{
    size_t pad = (a - o->used % a) % a;
    take(o, pad);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A NUL-terminated copy of s; its guest-physical address (0 once full). */
static uint32_t string(struct out *o, const char *s)
{
    size_t n = strlen(s) + 1;
    uint64_t gpa = o->gpa + o->used;
    uint8_t *p = take(o, n);
    if (!p)
        return 0;
    memcpy(p, s, n);
    return (uint32_t)gpa;
}

/* RAM below 640 KiB and from 1 MiB on, in KiB (the basic memory fields). */
static void basic_memory(const struct mb_load_config *cfg, uint32_t *lower, uint32_t *upper)
{
    uint64_t low = 0, high = 0;
    const struct e820_table *map = cfg->map;
    for (uint32_t i = 0; i < map->count; i++) {
        const struct mem_range *r = &map->entries[i];
        if (r->type != MEM_USABLE)
            continue;
        if (r->base == 0)
            low = r->length < LOW_RAM_END ? r->length : LOW_RAM_END;
        if (r->base == MB_LOAD_MIN)
            high = r->length;
    }
    *lower = (uint32_t)(low >> 10);
    *upper = (uint32_t)(high >> 10);
}

static const char *text_or_empty(const char *s)
{
    return s ? s : "";
}

/* ---- multiboot (v1) ---- */

static void write_v1(const struct mb_load_config *cfg, const uint64_t *module_addr,
                     struct out *o)
{
    uint8_t *mbi = take(o, MB1_INFO_BYTES);
    uint64_t mmap_gpa = o->gpa + o->used;
    const struct e820_table *map = cfg->map;
    for (uint32_t i = 0; i < map->count; i++) {
        uint8_t *e = take(o, MB1_MMAP_ENTRY);
        if (!e)
            return;
        put32(e, MB1_MMAP_ENTRY - 4);
        put64(e + 4, map->entries[i].base);
        put64(e + 12, map->entries[i].length);
        put32(e + 20, map->entries[i].type);
    }
    uint64_t mods_gpa = o->gpa + o->used;
    uint8_t *mods = take(o, (size_t)cfg->module_count * MB1_MODULE_BYTES);
    for (unsigned int i = 0; mods && i < cfg->module_count; i++) {
        uint8_t *m = mods + i * MB1_MODULE_BYTES;
        put32(m, (uint32_t)module_addr[i]);
        put32(m + 4, (uint32_t)(module_addr[i] + cfg->modules[i].size));
        put32(m + 8, string(o, text_or_empty(cfg->modules[i].string)));
    }
    if (!mbi || !mods)
        return;
    uint32_t lower, upper;
    basic_memory(cfg, &lower, &upper);
    put32(mbi, MB1_INFO_MEMORY | MB1_INFO_CMDLINE | MB1_INFO_MODS | MB1_INFO_MMAP |
               MB1_INFO_LOADER);
    put32(mbi + 4, lower);
    put32(mbi + 8, upper);
    put32(mbi + 16, string(o, text_or_empty(cfg->cmdline)));
    put32(mbi + 20, cfg->module_count);
    put32(mbi + 24, (uint32_t)mods_gpa);
    put32(mbi + 44, map->count * MB1_MMAP_ENTRY);
    put32(mbi + 48, (uint32_t)mmap_gpa);
    put32(mbi + 64, string(o, LOADER_NAME));
}

/* ---- multiboot2 ---- */

/* A tag of `bytes` (header included), started 8-byte aligned. */
static uint8_t *tag(struct out *o, uint32_t type, size_t bytes)
{
    align(o, 8);
    uint8_t *t = take(o, bytes);
    if (t) {
        put32(t, type);
        put32(t + 4, (uint32_t)bytes);
    }
    return t;
}

static void string_tag(struct out *o, uint32_t type, const char *s)
{
    size_t n = strlen(s) + 1;
    uint8_t *t = tag(o, type, 8 + n);
    if (t)
        memcpy(t + 8, s, n);
}

static void write_v2(const struct mb_load_config *cfg, const uint64_t *module_addr,
                     struct out *o)
{
    uint8_t *head = take(o, 8);
    string_tag(o, MB2_TAG_CMDLINE, text_or_empty(cfg->cmdline));
    string_tag(o, MB2_TAG_LOADER_NAME, LOADER_NAME);
    for (unsigned int i = 0; i < cfg->module_count; i++) {
        const char *s = text_or_empty(cfg->modules[i].string);
        size_t n = strlen(s) + 1;
        uint8_t *t = tag(o, MB2_TAG_MODULE, 16 + n);
        if (!t)
            return;
        put32(t + 8, (uint32_t)module_addr[i]);
        put32(t + 12, (uint32_t)(module_addr[i] + cfg->modules[i].size));
        memcpy(t + 16, s, n);
    }
    uint8_t *mem = tag(o, MB2_TAG_BASIC_MEM, 16);
    if (mem) {
        uint32_t lower, upper;
        basic_memory(cfg, &lower, &upper);
        put32(mem + 8, lower);
        put32(mem + 12, upper);
    }
    const struct e820_table *map = cfg->map;
    uint8_t *mmap = tag(o, MB2_TAG_MMAP, 16 + (size_t)map->count * MB2_MMAP_ENTRY);
    if (mmap)
        put32(mmap + 8, MB2_MMAP_ENTRY);        /* entry_size; entry_version 0 */
    for (uint32_t i = 0; mmap && i < map->count; i++) {
        uint8_t *e = mmap + 16 + i * MB2_MMAP_ENTRY;
        put64(e, map->entries[i].base);
        put64(e + 8, map->entries[i].length);
        put32(e + 16, map->entries[i].type);
    }
    if (cfg->rsdp) {
        uint8_t *t = tag(o, MB2_TAG_ACPI_NEW, 8 + cfg->rsdp_size);
        if (t)
            memcpy(t + 8, cfg->rsdp, cfg->rsdp_size);
    }
    tag(o, MB2_TAG_END, 8);
    if (head)
        put32(head, (uint32_t)o->used);         /* total_size; reserved 0 */
}

enum mb_status mb_info_write(unsigned int version, const struct mb_load_config *cfg,
                             const uint64_t *module_addr, uint64_t gpa, uint8_t *buf,
                             size_t size, size_t *used)
{
    struct out o = { buf, size, 0, gpa, false };
    if (version == 2)
        write_v2(cfg, module_addr, &o);
    else
        write_v1(cfg, module_addr, &o);
    *used = o.used;
    return o.full ? MB_ERR_INFO_TOO_BIG : MB_OK;
}
