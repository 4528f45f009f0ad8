/* Guest memory behind a real EPT for host programs (see tests/unit/host_ept.h). */
#include "tests/unit/host_ept.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "vmx/ept.h"

/* What vmx/vmx_ops.h calls when a VMX instruction fails: never on the host. */
void vmx_instruction_failed(const char *insn, uint64_t operand, int status, void *caller);
void vmx_instruction_failed(const char *insn, uint64_t operand, int status, void *caller)
{
    fprintf(stderr, "unexpected %s(%#lx) status %d from %p\n", insn, (unsigned long)operand,
            status, caller);
    abort();
}

uint8_t *host_ept_memory(size_t pages, bool guarded)
{
    size_t guard = guarded ? HOST_EPT_PAGE : 0;
    uint8_t *p = mmap(NULL, pages * HOST_EPT_PAGE + 2 * guard, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap(MAP_32BIT)");
        abort();
    }
    if (guarded && (mprotect(p, guard, PROT_NONE) ||
                    mprotect(p + guard + pages * HOST_EPT_PAGE, guard, PROT_NONE))) {
        perror("mprotect");
        abort();
    }
    return p + guard;
}

/* The EPT's table pages: a bump allocator over one block. */
struct pool {
    uint8_t *base;
    unsigned int used, pages;
};

static uint64_t pool_alloc(void *ctx)
{
    struct pool *p = ctx;
    return p->used < p->pages ? (uint64_t)(uintptr_t)(p->base + p->used++ * HOST_EPT_PAGE) : 0;
}

static void *identity(void *ctx, uint64_t pa)
{
    (void)ctx;
    return (void *)(uintptr_t)pa;
}

void host_ept_domain(struct domain *d, unsigned int pool_pages)
{
    static struct pool pool;    /* one domain per program */
    struct vmx_ept_caps caps = { .ept = true, .walk_4level = true, .memtype_wb = true,
                                 .memtype_uc = true, .page_2m = true };
    pool = (struct pool){ host_ept_memory(pool_pages, false), 0, pool_pages };
    struct ept_page_source src = { pool_alloc, identity, &pool };
    d->vcpu_count = 1;
    d->vcpus[0].domain = d;
    if (ept_init(&d->vmx.ept, &src, &caps) != EPT_OK) {
        fprintf(stderr, "host_ept: EPT set-up failed\n");
        abort();
    }
}
