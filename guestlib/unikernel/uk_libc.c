/* newlib's system calls (CPL 3). newlib built for x86_64-elf has no
 * operating system and calls these under their POSIX names (its
 * reentrant wrappers, e.g. _write_r, call write): output to stdout and
 * stderr and the exit go to the kernel side through INT 0x80 (uk_abi.h);
 * the heap grows over the start-info page's free RAM; time is the TSC
 * divided by the start-info page's tsc_hz (time since the machine's reset:
 * there is no wall clock). Everything else fails with ENOSYS. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guestlib/unikernel/uk_abi.h"
#include "guestlib/unikernel/uk_heap.h"
#include "guestlib/unikernel/uk_time.h"
#include "guestlib/unikernel/vertigo_uk.h"

#define USEC_PER_SEC  1000000ull



static int fail(int err)
{
    errno = err;
    return -1;
}

_READ_WRITE_RETURN_TYPE write(int fd, const void *buf, size_t len)
{
    int64_t ret = vertigo_uk_syscall(UK_SYS_WRITE, (uint64_t)fd, (uint64_t)buf, len);
    return ret < 0 ? fail((int)-ret) : (int)ret;
}

void _exit(int status)
{
    vertigo_uk_syscall(UK_SYS_EXIT, (uint64_t)(int64_t)status, 0, 0);
    for (;;)
        ;   /* UK_SYS_EXIT does not return */
}

/* stdin, stdout and stderr are the console, a character device, so stdio
 * line-buffers stdout; no other descriptor exists. */
static int is_console(int fd)
{
    return fd >= 0 && fd <= 2;
}

int fstat(int fd, struct stat *st)
{
    if (!is_console(fd))
        return fail(EBADF);
    *st = (struct stat){ .st_mode = S_IFCHR };
    return 0;
}

int isatty(int fd)
{
    return is_console(fd) ? 1 : fail(EBADF);
}

void *sbrk(ptrdiff_t increment)
{
    static struct uk_heap heap;

    if (!heap.start)
        heap = (struct uk_heap){ uk_boot_info.free_start, uk_boot_info.free_start,
                                 uk_boot_info.free_end };
    uint64_t old = uk_heap_grow(&heap, increment);
    if (old == UK_HEAP_REFUSED) {
        errno = ENOMEM;
        return (void *)-1;
    }
    return (void *)old;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* The TSC's time since reset as whole seconds and the fraction in units of
 * 1/per_second s; -1 (ENOSYS) when Vertigo gave no TSC rate. */
static int tsc_time(uint64_t per_second, uint64_t *seconds, uint64_t *fraction)
{
    if (!uk_boot_info.tsc_hz)
        return fail(ENOSYS);
    uint64_t units = uk_tsc_to_units(rdtsc(), uk_boot_info.tsc_hz, per_second);
    *seconds = units / per_second;
    *fraction = units % per_second;
    return 0;
}

clock_t times(struct tms *t)
{
    uint64_t seconds, fraction;

    if (tsc_time(CLOCKS_PER_SEC, &seconds, &fraction))
        return (clock_t)-1;
    clock_t now = (clock_t)(seconds * CLOCKS_PER_SEC + fraction);
    *t = (struct tms){ .tms_utime = now };
    return now;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    uint64_t seconds, us;

    (void)tz;
    if (tsc_time(USEC_PER_SEC, &seconds, &us))
        return -1;
    *tv = (struct timeval){ .tv_sec = (time_t)seconds, .tv_usec = (suseconds_t)us };
    return 0;
}

/* CLOCK_MONOTONIC and CLOCK_REALTIME alike: the TSC's time since reset. */
int clock_gettime(clockid_t clock, struct timespec *ts)
{
    uint64_t seconds, ns;

    if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
        return fail(EINVAL);
    if (tsc_time(UK_NSEC_PER_SEC, &seconds, &ns))
        return -1;
    *ts = (struct timespec){ .tv_sec = (time_t)seconds, .tv_nsec = (long)ns };
    return 0;
}

pid_t getpid(void)
{
    return 1;
}

/* No file system, processes or signals (abort() ends in _exit(1)). */
_READ_WRITE_RETURN_TYPE read(int fd, void *buf, size_t len) { (void)fd; (void)buf; (void)len; return fail(ENOSYS); }
int open(const char *path, int flags, ...) { (void)path; (void)flags; return fail(ENOSYS); }
int close(int fd) { (void)fd; return fail(ENOSYS); }
int stat(const char *restrict path, struct stat *restrict st) { (void)path; (void)st; return fail(ENOSYS); }
off_t lseek(int fd, off_t off, int whence) { (void)fd; (void)off; (void)whence; return fail(ENOSYS); }
int kill(pid_t pid, int sig) { (void)pid; (void)sig; return fail(ENOSYS); }
int link(const char *old, const char *new_name) { (void)old; (void)new_name; return fail(ENOSYS); }
int unlink(const char *path) { (void)path; return fail(ENOSYS); }
pid_t fork(void) { return fail(ENOSYS); }
int execve(const char *path, char *const argv[], char *const envp[]) { (void)path; (void)argv; (void)envp; return fail(ENOSYS); }
pid_t wait(int *status) { (void)status; return fail(ENOSYS); }
