/*
 * Counters the MPI_T performance variables read (p2p's p2p_counters_t, the
 * transports' tp_stats_t). They are bumped by whichever thread sends or
 * progresses and read by MPI_T in any thread, so every access is a relaxed
 * atomic: a reader sees a value some writer stored, never a torn one, and
 * orders nothing else. When objects are shared between threads
 * (core_handles.shared: MPI_THREAD_MULTIPLE) an increment is a
 * read-modify-write, so two threads bumping one counter lose nothing; otherwise
 * it is a load and a store (no locked instruction on THREAD_SINGLE's path).
 */
#ifndef RDMPI_CORE_COUNT_H
#define RDMPI_CORE_COUNT_H

#include <stdint.h>
#include "core/handle.h"

/* core_count_add with core_handles.shared read once by the caller: a hot path that bumps
 * several counters (the atomic stores keep the compiler from reusing one load of it). */
static inline void core_count_add_as(uint64_t *c, uint64_t n, int shared)
{
    if (shared)
        __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
    else
        __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline void core_count_add(uint64_t *c, uint64_t n)
{
    core_count_add_as(c, n, core_handles.shared);
}

static inline uint64_t core_count_get(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static inline void core_count_set(uint64_t *c, uint64_t v)
{
    __atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Adds n to *c and raises *max to the new value if it is higher (a level and its high-water
 * mark); n may be negative. */
static inline void core_count_level(uint64_t *c, uint64_t *max, int64_t n)
{
    if (!core_handles.shared) {
        uint64_t now = core_count_get(c) + (uint64_t)n;
        core_count_set(c, now);
        if (now > core_count_get(max))
            core_count_set(max, now);
        return;
    }
    uint64_t now = __atomic_add_fetch(c, (uint64_t)n, __ATOMIC_RELAXED);
    uint64_t m = core_count_get(max);
    while (now > m && !__atomic_compare_exchange_n(max, &m, now, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
}

#endif
