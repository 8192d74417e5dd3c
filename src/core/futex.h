/*
 * Futex waits and wakes on a 32-bit word in memory shared between
 * processes (no FUTEX_PRIVATE_FLAG): how a rank asleep in the shm transport
 * is woken by the peer that wrote to it (transports/shm/shm_bell.h).
 */
#ifndef RDMPI_CORE_FUTEX_H
#define RDMPI_CORE_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word holds val, at most timeout seconds (always bounded: the word may be
 * written by another process that never wakes us). Returns at once when *word is not val;
 * spurious returns are allowed, the caller rechecks. */
static inline void core_futex_wait(_Atomic uint32_t *word, uint32_t val, double timeout)
{
    struct timespec ts;
    if (timeout < 0)
        timeout = 0;
    ts.tv_sec = (time_t)timeout;
    ts.tv_nsec = (long)((timeout - (double)ts.tv_sec) * 1e9);
    (void)syscall(SYS_futex, (void *)word, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Wakes up to n processes or threads waiting on word. */
static inline void core_futex_wake(_Atomic uint32_t *word, int n)
{
    (void)syscall(SYS_futex, (void *)word, FUTEX_WAKE, n, NULL, NULL, 0);
}

#endif
