/*
 * The shm doorbell: one 32-bit futex word per local rank in the node's
 * segment, with which a rank that goes to sleep asks the ranks that write
 * to its rings to wake it. No syscall while the receiver is awake: the
 * sender only reads the word after publishing a record.
 *
 * Protocol (a Dekker pair; both sides fence between their store and load):
 *   sleeper:  bell = ASLEEP; fence; if any incoming ring is non-empty, bell =
 *             AWAKE and do not sleep; else futex_wait(bell, ASLEEP, bounded);
 *             bell = AWAKE on waking.
 *   sender:   publish the record (release); fence; if bell == ASLEEP and
 *             exchange(bell, AWAKE) == ASLEEP, futex_wake(bell).
 * Either the sleeper's ring check sees the record, or the sender's load sees
 * ASLEEP: a wake cannot be lost. The exchange lets one of several senders pay
 * the syscall. Measured on this project's 2-core EPYC VM: the fence and the
 * load add ~20-30 ns to a send, a FUTEX_WAKE costs 0.3-0.45 us, a futex
 * wake-to-run hop between two processes ~1.1 us (sched_yield: 0.35-0.45 us).
 *
 * The word is shared memory that peers write: it is untrusted. A bogus value
 * makes futex_wait return at once (the rank polls instead of sleeping) or
 * makes senders skip the wake (the sleeper's bounded wait ends it): never a
 * hang, never a crash.
 */
#ifndef RDMPI_TP_SHM_BELL_H
#define RDMPI_TP_SHM_BELL_H

#include <stdatomic.h>
#include <stdint.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/futex.h"

#define TP_SHM_BELL_AWAKE 0u
#define TP_SHM_BELL_ASLEEP 1u

/* The sleeper, before its last look at its rings. */
static inline void tp_shm_bell_arm(_Atomic uint32_t *bell)
{
    atomic_store_explicit(bell, TP_SHM_BELL_ASLEEP, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

/* The sleeper, when it does not sleep after all or has woken. */
static inline void tp_shm_bell_clear(_Atomic uint32_t *bell)
{
    atomic_store_explicit(bell, TP_SHM_BELL_AWAKE, memory_order_relaxed);
}

/* The sleeper: waits while the bell says ASLEEP, at most timeout seconds. */
static inline void tp_shm_bell_wait(_Atomic uint32_t *bell, double timeout)
{
    core_futex_wait(bell, TP_SHM_BELL_ASLEEP, timeout);
}

/* The sender, after the fence or its stand-in: 1 when it woke the bell's owner. */
static inline int tp_shm_bell_ring_look(_Atomic uint32_t *bell)
{
    if (atomic_load_explicit(bell, memory_order_relaxed) != TP_SHM_BELL_ASLEEP)
        return 0;
    if (atomic_exchange_explicit(bell, TP_SHM_BELL_AWAKE, memory_order_relaxed) !=
        TP_SHM_BELL_ASLEEP)
        return 0;
    core_futex_wake(bell, 1);
    return 1;
}

/* The sender, after publishing a record to the bell's owner: 1 when it woke it. */
static inline int tp_shm_bell_ring(_Atomic uint32_t *bell)
{
    atomic_thread_fence(memory_order_seq_cst);
    return tp_shm_bell_ring_look(bell);
}

/*
 * The asymmetric form (a sender whose process is registered for the kernel's global
 * expedited membarrier, tp_shm_bell_light_init): no fence between the sender's record and
 * its look at the bell, only the compiler kept from reordering them. The sleeper pays
 * instead: after arming (its own fence) it calls tp_shm_bell_light_sleep, which makes every
 * running registered thread execute a full barrier (an IPI; a thread not running has passed
 * one at its last context switch). If the sender's barrier point falls before its look, the
 * look sees ASLEEP (the sleeper's store was visible before the IPIs went out); if after, the
 * record was visible by the time membarrier returned, and the sleeper's look at its rings
 * sees it. So a wake is still never lost. A lock-prefixed fence per record drains the store
 * buffer, and with the ring's line held by the reading core each drain waits for that line:
 * a window of small sends paid it 64 times.
 */
static inline int tp_shm_bell_ring_light(_Atomic uint32_t *bell)
{
    atomic_signal_fence(memory_order_seq_cst);
    return tp_shm_bell_ring_look(bell);
}

/* Registers this process for the global expedited membarrier and tries one: 0 when senders
 * of this process may ring with tp_shm_bell_ring_light, -1 when the kernel (or a seccomp
 * filter) does not allow it. */
static inline int tp_shm_bell_light_sleep(void);
static inline int tp_shm_bell_light_init(void)
{
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q < 0 || !(q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        !(q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
        return -1;
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) != 0)
        return -1;
    return tp_shm_bell_light_sleep(); /* one try: a filter may allow the query only */
}

/* The sleeper's barrier when light senders may exist (armed, before its last look at its
 * rings): 0, or -1 when the call failed (then it must not sleep). */
static inline int tp_shm_bell_light_sleep(void)
{
    return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0 ? 0 : -1;
}

#endif
