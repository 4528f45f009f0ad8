/* Guest memory reads for exit handlers (see vmx/guest_mem.h). Domain 0 is
 * identity-mapped, so a GPA the EPT maps readable is the same host
 * physical address, reached through Vertigo's identity map (below 4 GiB). */
#include "vmx/guest_mem.h"

#include "boot/cpu.h"
#include "vmm/guest_pt.h"
#include "vmm/mem.h"
#include "vmm/page_alloc.h"
#include "vmm/vcpu.h"
#include "vmx/vmx_ops.h"

#define HOST_IDENTITY_LIMIT 0x100000000ull
#define CR4_LA57 (1ull << 12)

static const void *host_pointer(struct vcpu *v, uint64_t gpa)
{
    struct ept_translation t;
    if (!ept_translate(&v->domain->vmx.ept, gpa, &t) || !(t.perms & EPT_READ))
        return NULL;
    if (t.hpa >= HOST_IDENTITY_LIMIT)
        return NULL;
    return (const void *)t.hpa;
}

bool guest_phys_read(struct vcpu *v, uint64_t gpa, void *buf, size_t len)
{
    uint8_t *out = buf;
    while (len) {
        size_t chunk = PAGE_SIZE - (gpa & (PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        const void *src = host_pointer(v, gpa);
        if (!src)
            return false;
        memcpy(out, src, chunk);
        out += chunk;
        gpa += chunk;
        len -= chunk;
    }
    return true;
}

/* Vertigo's pointer to len bytes at gpa (within one 4 KiB page) through
 * the cursor's EPT leaf, walking the EPT when gpa lies outside it; NULL
 * if not readable guest memory. */
static const uint8_t *cursor_phys(struct guest_virt_cursor *c, uint64_t gpa, size_t len)
{
    if (c->leaf_size && gpa - c->leaf_gpa < c->leaf_size)
        return (const uint8_t *)(c->leaf_host + (gpa - c->leaf_gpa));
    struct ept_translation t;
    if (!ept_translate(&c->v->domain->vmx.ept, gpa, &t) || !(t.perms & EPT_READ))
        return NULL;
    uint64_t offset = gpa & (t.page_size - 1);
    if (t.hpa - offset + t.page_size <= HOST_IDENTITY_LIMIT) {
        c->leaf_gpa = gpa - offset;
        c->leaf_size = t.page_size;
        c->leaf_host = (uintptr_t)(t.hpa - offset);
    }
    if (t.hpa + len > HOST_IDENTITY_LIMIT)
        return NULL;
    return (const uint8_t *)(uintptr_t)t.hpa;
}

static bool cursor_read64(void *ctx, uint64_t gpa, uint64_t *value)
{
    if (gpa & (sizeof(*value) - 1))
        return guest_phys_read(((struct guest_virt_cursor *)ctx)->v, gpa, value,
                               sizeof(*value));
    const uint8_t *p = cursor_phys(ctx, gpa, sizeof(*value));
    if (!p)
        return false;
    __builtin_memcpy(value, p, sizeof(*value));     /* one aligned load */
    return true;
}

void guest_virt_cursor_init(struct guest_virt_cursor *c, struct vcpu *v)
{
    c->v = v;
    c->pg = (struct guest_paging){
        .cr3 = vmcs_read(VMCS_GUEST_CR3),
        .la57 = (vmcs_read(VMCS_GUEST_CR4) & CR4_LA57) != 0,
        .read64 = cursor_read64,
        .ctx = c,
    };
    c->paging = (vmcs_read(VMCS_GUEST_CR0) & CR0_PG) != 0;
    c->page_host = NULL;
    c->leaf_size = 0;
}

/* Host address of the page holding gva, from the cache or the tables. */
static const uint8_t *cursor_page(struct guest_virt_cursor *c, uint64_t gva)
{
    uint64_t page = gva & ~(uint64_t)(PAGE_SIZE - 1);
    if (c->page_host && c->page_gva == page)
        return c->page_host;
    uint64_t gpa = page;
    if (c->paging && !guest_pt_translate(&c->pg, page, &gpa))
        return NULL;
    const uint8_t *host = cursor_phys(c, gpa & ~(uint64_t)(PAGE_SIZE - 1), PAGE_SIZE);
    if (host) {
        c->page_gva = page;
        c->page_host = host;
    }
    return host;
}

/* Whole 8-byte words (a stack frame is two) by plain moves, the rest by
 * memcpy: a stack walk reads 16 bytes a frame. */
static void copy_chunk(uint8_t *out, const uint8_t *src, size_t len)
{
    if (len % sizeof(uint64_t)) {
        memcpy(out, src, len);
        return;
    }
    for (size_t i = 0; i < len; i += sizeof(uint64_t))
        __builtin_memcpy(out + i, src + i, sizeof(uint64_t));
}

bool guest_virt_cursor_read(void *cursor, uint64_t gva, void *buf, size_t len)
{
    struct guest_virt_cursor *c = cursor;
    uint8_t *out = buf;
    while (len) {
        size_t offset = gva & (PAGE_SIZE - 1);
        size_t chunk = PAGE_SIZE - offset;
        if (chunk > len)
            chunk = len;
        const uint8_t *host = cursor_page(c, gva);
        if (!host)
            return false;
        copy_chunk(out, host + offset, chunk);
        out += chunk;
        gva += chunk;
        len -= chunk;
    }
    return true;
}

bool guest_virt_read(void *vcpu, uint64_t gva, void *buf, size_t len)
{
    struct guest_virt_cursor c;
    guest_virt_cursor_init(&c, vcpu);
    return guest_virt_cursor_read(&c, gva, buf, len);
}
