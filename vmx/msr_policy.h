/* Which MSRs Vertigo owns and what a guest access to them does. The MSR
 * bitmap is built from this table; every other MSR is passed through. */
#ifndef VMX_MSR_POLICY_H
#define VMX_MSR_POLICY_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

enum msr_access_result {
    MSR_ACCESS_DONE,        /* emulated; skip the instruction */
    MSR_ACCESS_GP,          /* inject #GP, as the hardware would */
};

struct msr_rule {
    uint32_t first, last;
    const char *what;
    enum msr_access_result (*read)(struct vcpu *v, uint32_t msr, uint64_t *value);
    enum msr_access_result (*write)(struct vcpu *v, uint32_t msr, uint64_t value);
};

/* The rule covering `msr`, or NULL for a pass-through MSR. */
const struct msr_rule *msr_policy_find(uint32_t msr);

/* Every rule, in the order msr_policy_find tries them (*count of them). */
const struct msr_rule *msr_policy_rules(unsigned int *count);

/* Sets the intercept bits of every owned MSR in a 4 KiB MSR bitmap
 * (SDM Vol. 3C, 25.6.9 "MSR-Bitmap Address"). */
void msr_policy_fill_bitmap(uint8_t *bitmap);

#endif
