/* The one lock type of the hypervisor: a test-and-test-and-set spinlock
 * on one 32-bit word, header-only so that freestanding and hosted builds
 * (unit tests) share it. It depends on nothing but the compiler.
 *
 * Contract for every user: a lock that normal context may hold is never
 * taken (spin_lock) from NMI context, since the NMI could have
 * interrupted its holder on the same CPU and would spin for ever. NMI
 * code may only spin_trylock such a lock and go without it when it
 * fails. A lock is not recursive; a subsystem that must tolerate
 * re-entry on one CPU keeps an owner field next to the lock. */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
    uint32_t locked;    /* 0 free, 1 held */
};

#define SPINLOCK_INIT {0}

static inline void spin_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("pause" ::: "memory");
#endif
}

/* Takes the lock if it is free, with acquire ordering. Returns true when
 * the caller now holds it; never waits. */
static inline bool spin_trylock(struct spinlock *lock)
{
    return !__atomic_load_n(&lock->locked, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&lock->locked, 1u, __ATOMIC_ACQUIRE);
}

/* Waits until the lock is free and takes it (acquire ordering). Never
 * from NMI context on a lock normal context may hold. */
static inline void spin_lock(struct spinlock *lock)
{
    while (!spin_trylock(lock))
        spin_relax();
}

/* Releases a lock the caller holds (release ordering). */
static inline void spin_unlock(struct spinlock *lock)
{
    __atomic_store_n(&lock->locked, 0u, __ATOMIC_RELEASE);
}

#endif
