/* The ioctl interface of /dev/vertigo (guestlib/kmod/vertigo.c), shared by
 * the guest kernel module and the guest library (guestlib/vertigo_guest.h,
 * whose vertigo_dev_* functions make these requests).
 *
 * Session control and symbol shipping are kernel-only hypercalls
 * (include/vertigo/hypercall.h): a CPL 3 VMCALL gets -VERTIGO_EPERM. The
 * module copies the caller's argument into kernel memory, makes the
 * VMCALL from kernel mode and returns the hypercall's result as -errno
 * (vertigo_errno(), guestlib/vertigo_vmcall.h):
 *   -VERTIGO_ENOSYS -> ENOSYS (this Vertigo has no such call)
 *   -VERTIGO_EINVAL -> EINVAL    -VERTIGO_EPERM -> EPERM
 *   -VERTIGO_EFAULT -> EFAULT    -VERTIGO_EBUSY -> EBUSY
 *   anything else   -> EIO
 * Errors the module finds itself: EMSGSIZE (chunk len above
 * VERTIGO_SYMBOLS_CHUNK_MAX), EFAULT (unreadable user memory), ESRCH (no
 * such process), ENOENT (a kernel thread: no address space), EACCES (the
 * opener lacks CAP_SYS_ADMIN). */
#ifndef GUESTLIB_KMOD_VERTIGO_IOCTL_H
#define GUESTLIB_KMOD_VERTIGO_IOCTL_H

#ifdef __KERNEL__
#include <linux/ioctl.h>
#include <linux/types.h>
#else
#include <linux/ioctl.h>
#include <stdint.h>
#endif

#include "vertigo/hypercall.h"

#define VERTIGO_DEV_PATH      "/dev/vertigo"
#define VERTIGO_IOCTL_MAGIC   0xB6
#define VERTIGO_PROCESS_MAX   4096u    /* entries one LIST call reports at most */
#define VERTIGO_COMM_LEN      16u      /* TASK_COMM_LEN */

/* PROCESS: ship the identity of process `pid` as one kind-4 symbols chunk
 * ("PID CR3 COMM\n", CR3 in hex) and report what was shipped. cr3 is
 * __pa(mm->pgd): the kernel page-table root. Under page-table isolation the
 * user-mode CR3 of the same process sets bit 12 as well, and with PCIDs
 * bits 11:0 carry the PCID: a host matching a sample's CR3 against it
 * must mask bits 11:0 and bit 12 of both. */
struct vertigo_process_query {
    uint32_t pid;                       /* in */
    uint32_t reserved;                  /* in: 0 */
    uint64_t cr3;                       /* out */
    char comm[VERTIGO_COMM_LEN];        /* out, NUL-terminated, printable ASCII */
};

/* Makes a process name safe to ship and print: every byte up to the NUL
 * that is not printable ASCII (a newline, an escape sequence, ...) becomes
 * '?'. A process chooses its name (prctl PR_SET_NAME, its executable's
 * file name), and a newline in it would forge a second "PID CR3 COMM"
 * identity line for another process. The module applies it to every comm
 * it ships or returns. */
static inline void vertigo_comm_sanitize(char comm[VERTIGO_COMM_LEN])
{
    for (unsigned int i = 0; i < VERTIGO_COMM_LEN && comm[i]; i++)
        if ((unsigned char)comm[i] < 0x20 || (unsigned char)comm[i] > 0x7e)
            comm[i] = '?';
}

/* LIST: the user processes (those with an address space) and their CR3,
 * for cheap change detection (a new CR3 for a known PID means exec). */
struct vertigo_process_entry {
    uint32_t pid;
    uint32_t reserved;
    uint64_t cr3;
};

struct vertigo_process_list {
    uint64_t entries;                   /* in: user address of the array */
    uint32_t capacity;                  /* in: <= VERTIGO_PROCESS_MAX */
    uint32_t count;                     /* out: entries filled */
};

/* START: struct vertigo_session -> HC_SESSION_START, returns 0.
 * STOP: -> HC_SESSION_STOP; *arg = samples logged.
 * SYMBOLS: struct vertigo_symbols_chunk whose `data` is a user address of
 *   `len` bytes -> HC_SYMBOLS with a kernel copy; every other field is
 *   passed to Vertigo unchanged (Vertigo validates kind, reserved, ...).
 * PROCESS, LIST: see above.
 * KERNEL_ORC: struct vertigo_kernel_orc (the addresses of the kernel's
 *   .orc_unwind_ip and .orc_unwind, from /proc/kallsyms) -> HC_KERNEL_ORC
 *   with `format` set to the table layout of the kernel the module was
 *   built for (left alone for VERTIGO_ORC_FRAME_POINTER). The module never
 *   reads the tables itself: Vertigo reads them with checked accesses. */
#define VERTIGO_IOC_START    _IOW(VERTIGO_IOCTL_MAGIC, 1, struct vertigo_session)
#define VERTIGO_IOC_STOP     _IOR(VERTIGO_IOCTL_MAGIC, 2, uint64_t)
#define VERTIGO_IOC_SYMBOLS  _IOW(VERTIGO_IOCTL_MAGIC, 3, struct vertigo_symbols_chunk)
#define VERTIGO_IOC_PROCESS  _IOWR(VERTIGO_IOCTL_MAGIC, 4, struct vertigo_process_query)
#define VERTIGO_IOC_LIST     _IOWR(VERTIGO_IOCTL_MAGIC, 5, struct vertigo_process_list)
#define VERTIGO_IOC_KERNEL_ORC _IOW(VERTIGO_IOCTL_MAGIC, 6, struct vertigo_kernel_orc)

/* MUX_START: struct vertigo_mux -> HC_MUX_START on the CPU the caller runs
 *   on (the session is that VCPU's: pin the thread first), returns 0.
 * MUX_STOP: -> HC_MUX_STOP on the caller's CPU; *arg = rows written. */
#define VERTIGO_IOC_MUX_START _IOW(VERTIGO_IOCTL_MAGIC, 14, struct vertigo_mux)
#define VERTIGO_IOC_MUX_STOP  _IOR(VERTIGO_IOCTL_MAGIC, 15, uint64_t)

/* Per-thread counters (guestlib/vertigo_thread_ctr.h; the library is
 * guestlib/vertigo_counters.h). An fd opened on /dev/vertigo holds at most
 * one counter set, bound to the thread that made CTR_OPEN: every other
 * CTR_ request and the mmap come from that thread or get EPERM.
 * CTR_OPEN: the events (perf-style names, as pmu.events=) -> count;
 *   EBUSY if the fd has a set, EINVAL for events Vertigo refuses, ENOSYS
 *   if this Vertigo has no paravirtual counters, ENOMEM.
 * CTR_START, CTR_STOP: the thread's counts advance between the two.
 * CTR_RESET: the counts restart at 0 (started or not).
 * CTR_READ: the exact counts now (values[i], i < count): the fallback;
 *   once the thread exited, anyone holding the fd may read its final counts.
 * CTR_STATS: the module's switch figures, for benchmarks and tests.
 * Requests without a set get ENOENT. mmap(count pages, PROT_READ, offset
 * 0): counter i's page (struct vertigo_thread_page) at page i, read-only,
 * not inherited by fork; EINVAL for another length or offset, or for a
 * writable mapping. */
struct vertigo_ctr_open {
    char events[VERTIGO_PV_EVENTS_MAX];     /* in: NUL-terminated */
    uint32_t flags;                         /* in: 0 */
    uint32_t count;                         /* out: counters in the set */
};

struct vertigo_ctr_values {
    uint64_t values[VERTIGO_PV_COUNTERS_MAX];
};

/* Counted over all CPUs since the module loaded. */
struct vertigo_ctr_stats {
    uint64_t switches_in;       /* a counting thread came onto a CPU */
    uint64_t programs;          /* ... whose events the CPU did not count: one
                                   VERTIGO_HC_PV_PROGRAM each */
    uint64_t vcpu_reads;        /* VERTIGO_HC_PV_READ the module made (counters
                                   counting kernel mode need one per fold/start) */
    /* i-mode (CTR_PERIOD) */
    uint64_t interrupts;        /* Vertigo's overflow NMIs taken */
    uint64_t overflows;         /* periods counted by the threads' counters */
    uint64_t signals;           /* overflow signals sent */
    uint64_t signals_lost;      /* ... not sent: a CPU's queue was full */
    uint64_t late;              /* overflows found at a switch, not at their NMI */
    uint64_t skid_max;          /* the largest count past its overflow point a
                                   thread had at the NMI that found it, in events */
};

/* CTR_PERIOD: counter `index` of the set signals its thread every
 * `period` events (0: never), counted from its count now; `signo` is the
 * set's signal (all its counters'). The signal's siginfo: si_code
 * SI_QUEUE, si_pid 0, si_int = the counters that overflowed since the
 * last one (bit i: counter i). EINVAL for an index past the set, a
 * period outside VERTIGO_THREAD_PERIOD_MIN..MAX, a signal that is not
 * 1..64 or is SIGKILL or SIGSTOP; ENOSYS if Vertigo raises no overflow
 * interrupts. */
struct vertigo_ctr_period {
    uint32_t index;
    int32_t signo;
    uint64_t period;
};

#define VERTIGO_IOC_CTR_OPEN   _IOWR(VERTIGO_IOCTL_MAGIC, 7, struct vertigo_ctr_open)
#define VERTIGO_IOC_CTR_START  _IO(VERTIGO_IOCTL_MAGIC, 8)
#define VERTIGO_IOC_CTR_STOP   _IO(VERTIGO_IOCTL_MAGIC, 9)
#define VERTIGO_IOC_CTR_RESET  _IO(VERTIGO_IOCTL_MAGIC, 10)
#define VERTIGO_IOC_CTR_READ   _IOR(VERTIGO_IOCTL_MAGIC, 11, struct vertigo_ctr_values)
#define VERTIGO_IOC_CTR_STATS  _IOR(VERTIGO_IOCTL_MAGIC, 12, struct vertigo_ctr_stats)
#define VERTIGO_IOC_CTR_PERIOD _IOW(VERTIGO_IOCTL_MAGIC, 13, struct vertigo_ctr_period)

#endif
