/*
 * Counters the MPI_T performance variables read (p2p's p2p_counters_t, the
 * transports' tp_stats_t). They are bumped by whichever thread sends or
 * progresses and read by MPI_T in any thread, so every access is a relaxed
 * atomic: a reader sees a value some writer stored, never a torn one, and
 * orders nothing else. Without threads sharing objects (core_handles.shared
 * clear: every level but MPI_THREAD_MULTIPLE) an increment is a load and a store
 * of the counter itself.
 *
 * Under MULTIPLE an increment is still a load and a store, of the bumping thread's
 * own copy of the counter (its shard), not a locked read-modify-write of the shared
 * one: five or six locked increments per 8-byte ping-pong trip were what MULTIPLE with
 * one thread paid beyond SINGLE besides its locks (callgrind, issue 21). A block of
 * counters (a struct of uint64_t fields) is registered once (core_count_register, by its
 * owner at init); each thread that bumps one gets a shard of CORE_COUNT_WORDS words at
 * its first increment, where every registered block has the same words at its offset.
 * A reader adds the block's own value and every shard's (core_count_read). A shard
 * outlives its thread: at the thread's exit it is marked free, with its counts, and the
 * next new thread adopts it (so the memory is bounded by the most threads that counted at
 * once, and nothing counted is lost). A counter outside any registered block (a block
 * registered when the shards' words ran out) takes the locked increment, as before.
 * The registry and the shards are the process's, as the threads are (one table,
 * core_counts): a block of a runtime that ended is unregistered by its owner, and its
 * words are zeroed in every shard before another block takes them. Shared fields are
 * plain types accessed only through __atomic builtins (clang refuses those on _Atomic).
 */
#ifndef RDMPI_CORE_COUNT_H
#define RDMPI_CORE_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include "core/handle.h"

#define CORE_COUNT_WORDS 256   /* words of a shard: every block registered at once */
#define CORE_COUNT_BLOCKS 16   /* blocks registered at once */

typedef struct core_count_block {
    uint64_t *base;         /* the block's counters; NULL: a free entry (relaxed: set before
                               the block is used by any thread, cleared after) */
    uint32_t words;         /* its size, and */
    uint32_t off;           /* its words in every shard: set once, when the entry is made
                               (a free entry is reused by a block of the same size) */
} core_count_block_t;

typedef struct core_count_shard {
    uint64_t w[CORE_COUNT_WORDS];     /* written by its thread, read by any (relaxed) */
    struct core_count_shard *next;    /* the list of every shard (never unlinked) */
    int free_;                        /* its thread exited: another may adopt it */
} core_count_shard_t;

typedef struct core_counts {
    core_count_block_t blk[CORE_COUNT_BLOCKS];
    int nblk;                                 /* entries in use or used once */
    core_count_shard_t *shards;               /* pushed by compare-and-swap */
    uint32_t used;                            /* shard words given out (under the lock) */
} core_counts_t;
extern core_counts_t core_counts;
/* This thread's shard (NULL until its first increment under MULTIPLE). */
extern _Thread_local core_count_shard_t *core_count_mine
    __attribute__((tls_model("initial-exec")));

/* Registers a block of n counters (n uint64_t words at base), zeroed in every shard: its
 * increments under MULTIPLE go to the shards from then on. 0, or -1 when the shards have no
 * room (its increments stay locked read-modify-writes). */
int core_count_register(uint64_t *base, size_t n);
/* Before the block's memory is freed or reused (no thread may bump it any more). */
void core_count_unregister(uint64_t *base);
/* The slow path of an increment: this thread's first (its shard made or adopted). */
core_count_shard_t *core_count_shard_get(void);
/* The value of a counter: its block's own plus every shard's. */
uint64_t core_count_read(const uint64_t *c);

/* The word of c in this thread's shard, or NULL (c in no registered block). */
static inline uint64_t *core_count_slot(uint64_t *c)
{
    int n = __atomic_load_n(&core_counts.nblk, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        const core_count_block_t *b = &core_counts.blk[i];
        uint64_t *base = __atomic_load_n(&b->base, __ATOMIC_RELAXED);
        if (base && c >= base && c < base + b->words) {
            core_count_shard_t *s = core_count_mine;
            if (__builtin_expect(!s, 0) && !(s = core_count_shard_get()))
                return NULL;
            return &s->w[b->off + (size_t)(c - base)];
        }
    }
    return NULL;
}

static inline void core_count_bump(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* The increments under MULTIPLE (this thread's shard, or a locked add for a counter of no
 * registered block): out of line, so the increments without threads sharing objects stay a
 * load and a store at their call sites. Inline, the slot search made gcc outline the whole
 * increment (a call with a full prologue, ~23 instructions, twice per message sent or
 * received: callgrind of osu_mbw_mr 8 B). */
void core_count_add_shared(uint64_t *c, uint64_t n);
void core_count_add2_shared(uint64_t *c, uint64_t n, uint64_t *d, uint64_t m);

/* core_count_add with core_handles.shared read once by the caller: a hot path that bumps
 * several counters (the atomic stores keep the compiler from reusing one load of it). */
static inline __attribute__((always_inline)) void core_count_add_as(uint64_t *c, uint64_t n,
                                                                    int shared)
{
    if (__builtin_expect(!shared, 1))
        core_count_bump(c, n);
    else
        core_count_add_shared(c, n);
}

/* Two counters of one block (a message and its bytes): the block is looked up once. */
static inline __attribute__((always_inline)) void
core_count_add2_as(uint64_t *c, uint64_t n, uint64_t *d, uint64_t m, int shared)
{
    if (__builtin_expect(!shared, 1)) {
        core_count_bump(c, n);
        core_count_bump(d, m);
    } else {
        core_count_add2_shared(c, n, d, m);
    }
}

static inline void core_count_add(uint64_t *c, uint64_t n)
{
    core_count_add_as(c, n, core_handles.shared);
}

/* The block's own word (a level, or a counter without shards); core_count_read for a
 * counter's value. */
static inline uint64_t core_count_get(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static inline void core_count_set(uint64_t *c, uint64_t v)
{
    __atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/* Adds n to *c and raises *max to the new value if it is higher (a level and its high-water
 * mark); n may be negative. Not sharded (the mark is of the sum): a locked update under
 * MULTIPLE, kept in the block's own words. */
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
