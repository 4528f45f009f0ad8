/* Reporting a failed VMX instruction (tier b of the failure model). */
#include "vmx/vmx_ops.h"

#include "lib/console.h"
#include "vmm/panic.h"
#include "lib/exit_names.h"
#include "vmx/vmx_errors.h"

__attribute__((noreturn, cold)) void vmx_instruction_failed(const char *insn, uint64_t operand,
                                                      int status, void *caller)
{
    if (status == 1)
        panic("%s(%#lx) failed: VMfailInvalid (no current VMCS or bad pointer), "
              "called from %p", insn, operand, caller);
    uint64_t err = 0;
    __asm__ volatile("vmread %1, %0" : "=r"(err) : "r"((uint64_t)VMCS_VM_INSTRUCTION_ERROR)
                     : "cc");
    panic("%s(%#lx) failed: VM-instruction error %lu (%s), called from %p", insn,
          operand, err, vmx_instruction_error_text((uint32_t)err), caller);
}
