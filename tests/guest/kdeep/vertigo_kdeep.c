// SPDX-License-Identifier: GPL-2.0
/* vertigo_kdeep.ko: a guest kernel path of known depth, for measuring what
 * the NMI path's walk of a kernel call stack through ORC tables costs
 * (`make bench-kstack`, scenario kdeep). Loaded with depths=D1,D2,...
 * loops=N, it declares its own ORC tables (objtool's, sorted by the module
 * loader) and its text to Vertigo as the guest kernel's
 * (VERTIGO_HC_KERNEL_ORC: the domain must not have declared any, so no
 * agent runs in that boot), then for each depth D calls a chain of D
 * functions that spins N iterations at its bottom: every sample taken in
 * the spin has D return addresses in this module's text above it, one
 * per function of the chain (the walk ends at the chain's caller, module
 * init code the declaration does not cover). The chain alternates two kinds of frame: one
 * that saves the caller's RBP (an ORC rule with the BP saved), one that
 * leaves RBP alone. It prints "vertigo_kdeep: declared ..." and, per depth,
 * "vertigo_kdeep: depth D: N loops" and stays loaded: Vertigo's copy of the
 * tables names its text. Refuses to load (-ENODEV) when not under Vertigo. */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "guestlib/vertigo_vmcall.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Vertigo: a guest kernel path of known depth for call-stack costs");

#define DEPTHS_MAX 4
static unsigned int depths[DEPTHS_MAX] = { 8, 24 };
static int ndepths = 2;
module_param_array(depths, uint, &ndepths, 0444);
static unsigned long loops = 2000000;
module_param(loops, ulong, 0444);

static noinline u64 spin(unsigned long n)
{
	u64 x = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		x += i;
		asm volatile("" : "+r"(x));
	}
	return x;
}

static u64 chain_keep_bp(unsigned int depth, unsigned long n);

/* A frame that saves RBP (the asm clobbers it) and the caller's registers:
 * its body's ORC rule has the caller's BP saved on the stack. */
static noinline u64 chain_save_bp(unsigned int depth, unsigned long n)
{
	u64 r = depth ? chain_keep_bp(depth - 1, n) : spin(n);

	asm volatile("" : "+r"(r) : : "rbp", "rbx", "r12");
	return r + depth;
}

/* A frame that leaves RBP alone. The asm after the call keeps the call a
 * call (no tail call, no loop made of the recursion). */
static noinline u64 chain_keep_bp(unsigned int depth, unsigned long n)
{
	u64 r = depth ? chain_save_bp(depth - 1, n) : spin(n);

	asm volatile("" : "+r"(r));
	return r + depth;
}

static int declare_orc(void)
{
	struct module *m = THIS_MODULE;
	struct vertigo_kernel_orc k = {
		.abi_version = VERTIGO_KERNEL_ORC_ABI,
		.format = VERTIGO_ORC_LINUX_V1,
		.text_start = (u64)m->core_layout.base,
		.text_end = (u64)m->core_layout.base + m->core_layout.text_size,
		.ip_table = (u64)m->arch.orc_unwind_ip,
		.orc_table = (u64)m->arch.orc_unwind,
		.count = m->arch.num_orcs,
	};
	int64_t r = vertigo_hypercall1(VERTIGO_HC_KERNEL_ORC, (u64)&k);

	pr_info("vertigo_kdeep: declared text %#llx-%#llx, %u ORC entries: %lld\n",
		k.text_start, k.text_end, k.count, r);
	return r ? -EINVAL : 0;
}

static int __init kdeep_init(void)
{
	int i, r;

	if (!vertigo_present())
		return -ENODEV;
	r = declare_orc();
	if (r)
		return r;
	for (i = 0; i < ndepths; i++) {
		u64 x = depths[i] ? chain_save_bp(depths[i] - 1, loops) : spin(loops);

		pr_info("vertigo_kdeep: depth %u: %lu loops (%llu)\n", depths[i], loops, x & 1);
	}
	return 0;
}
module_init(kdeep_init);
