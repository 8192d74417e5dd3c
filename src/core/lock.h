/*
 * Locks of one futex word: core_lock_t, G's (the critical section of MPI_THREAD_MULTIPLE,
 * core/thread.c), and core_rlock_t, recursive, the per-peer send locks S(peer)
 * (transports/transport.h). Taking and leaving a pthread mutex costs ~40 instructions per
 * uncontended pair for a normal one and ~80 for a recursive one (glibc's type dispatch,
 * owner and count kept through the generic path), a large part of what an 8-byte ping-pong
 * under MULTIPLE paid more than under SINGLE (callgrind); these cost one compare-and-swap to
 * take and one atomic decrement to leave.
 *
 * The word: 0 free, 1 held, 2 held with a thread possibly asleep on it (the three-state mutex
 * of Drepper's "Futexes Are Tricky", as glibc's normal mutex): not fair, as that one.
 * Process-private (FUTEX_PRIVATE_FLAG): the locks live in one process's memory. Zeroed is free.
 */
#ifndef RDMPI_CORE_LOCK_H
#define RDMPI_CORE_LOCK_H

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
    _Atomic uint32_t word;
} core_lock_t;

static inline int core_lock_try(core_lock_t *l)
{
    uint32_t c = 0;
    return atomic_compare_exchange_strong_explicit(&l->word, &c, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* The contended path: sleeps until the word was free and this thread set it to 2 (a waiter
 * may remain: the unlock that sees 2 wakes one). */
static inline void core_lock_wait(core_lock_t *l, uint32_t c)
{
    if (c != 2)
        c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
    while (c != 0) {
        (void)syscall(SYS_futex, (void *)&l->word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 2, NULL,
                      NULL, 0);
        c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
    }
}

static inline void core_lock_lock(core_lock_t *l)
{
    uint32_t c = 0;
    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(
                             &l->word, &c, 1, memory_order_acquire, memory_order_relaxed),
                         0))
        core_lock_wait(l, c);
}

static inline void core_lock_unlock(core_lock_t *l)
{
    if (__builtin_expect(atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) != 1, 0)) {
        atomic_store_explicit(&l->word, 0, memory_order_release);
        (void)syscall(SYS_futex, (void *)&l->word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
                      0);
    }
}

/* Recursive: the owner (pthread_self) and depth let the holder take it again. Only the
 * holder stores its own id into owner, so a thread that reads its own id there holds the lock
 * (another thread's id or 0 never equals it); depth is the holder's alone. */
typedef struct {
    core_lock_t lock;
    _Atomic(pthread_t) owner; /* the holder, 0 when free: relaxed (see above) */
    unsigned depth;           /* the holder's count of takes */
} core_rlock_t;

static inline void core_rlock_lock(core_rlock_t *l)
{
    pthread_t self = pthread_self();
    if (atomic_load_explicit(&l->owner, memory_order_relaxed) == self) {
        l->depth++;
        return;
    }
    core_lock_lock(&l->lock);
    atomic_store_explicit(&l->owner, self, memory_order_relaxed);
    l->depth = 1;
}

/* By the holder only. */
static inline void core_rlock_unlock(core_rlock_t *l)
{
    if (--l->depth)
        return;
    atomic_store_explicit(&l->owner, (pthread_t)0, memory_order_relaxed);
    core_lock_unlock(&l->lock);
}

#endif
