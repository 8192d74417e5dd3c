/*
 * Handle validation. An MPI handle (MPI_Comm, MPI_Datatype, ...) is the
 * address of the object, so a freed or made-up handle is a pointer the
 * library must not follow. Each kind of object therefore comes from its own
 * pool, which can say whether a pointer is a live object of that kind
 * without reading the memory it points to:
 *  - predefined objects (MPI_COMM_WORLD, MPI_INT, ...) are found in a small
 *    collision-free hash table of their addresses. A range check would not
 *    do: a program that takes their address gets copies of them in its own
 *    data (copy relocations), and only those it uses;
 *  - other objects live in slabs that are never returned to malloc, so a
 *    freed handle still points into mapped memory; a handle is valid when it
 *    lies in one of the pool's slabs, at the start of a slot, and the slot is
 *    marked live in the slab's side table (one byte per CORE_HANDLE_GRAIN).
 * The slab of the latest allocation is checked first, so a check costs a
 * hash probe and a few compares; other slabs are found by binary search.
 * Freed slots are reused oldest first, which keeps a stale handle detectable
 * for as long as possible (a slot that is reused makes the old handle name
 * the new object: there are no generations in a pointer).
 * Under AddressSanitizer (and valgrind) dead slots are poisoned, so the
 * library's own use of a freed object is still reported.
 * Threads: allocation and freeing are serialized by the caller (MPI_THREAD_MULTIPLE's
 * critical section today). A check may run beside them in another thread once objects are
 * shared (core_handles.shared): the hot slab is a record that never moves nor changes,
 * published with release when a new slab becomes hot and read with acquire; the live bytes
 * are atomics (a new object is zeroed before its byte is set, with release); the one-object cache `last` is neither read nor written (two threads
 * would race on it, and a check that stored it after another thread's free would make a dead
 * handle valid for good); the slow paths (binary search over the slabs, Fortran indices) read
 * the pool's directory, a table that is never changed once published (with release): a new
 * slab publishes a new directory, and the old one is kept until the pool is destroyed while
 * objects are shared (a reader may still be in it), freed at once otherwise.
 */
#ifndef RDMPI_CORE_HANDLE_H
#define RDMPI_CORE_HANDLE_H

#include <stddef.h>
#include <stdint.h>

#define CORE_HANDLE_GRAIN 16   /* slot alignment and side-table granularity */

/* A slab's record: made with the slab, never changed nor moved afterwards (checks in other
 * threads read it without the pool's lock), freed with the pool. */
typedef struct core_handle_slab {
    uintptr_t base;
    size_t bytes;              /* the pool's slab_bytes (0 in the empty record) */
    uint8_t *live;             /* 1 at the grain that starts a live slot (atomics: set with
                                  release when the object is ready, read with acquire) */
    size_t serial;             /* the slab's rank in allocation order */
} core_handle_slab_t;

/* The slabs of a pool, sorted by base and in allocation order: never changed once published
 * (core_handle_pool_t.dir). */
typedef struct core_handle_dir {
    size_t n;                             /* slabs */
    size_t slot;                          /* the pool's slot size (0 in the empty directory) */
    const struct core_handle_dir *prev;   /* the one it replaced, when kept */
    const core_handle_slab_t **sorted;    /* by base */
    const core_handle_slab_t **by_serial; /* in allocation order */
} core_handle_dir_t;

typedef struct core_handle_pool {
    /* the object found valid most recently (cleared when it is freed): a loop
     * on one communicator and one datatype pays one compare per check */
    uintptr_t last;
    /* predefined objects: pre[(p * pre_mult) >> pre_shift] == p */
    const uintptr_t *pre;
    uint64_t pre_mult;
    unsigned pre_shift;
    /* the slab of the latest allocation (core_handle_no_slab before the first): published
     * with release */
    const core_handle_slab_t *hot;
    size_t slab_bytes;         /* 0 until the first allocation */
    size_t slot;               /* object size rounded up to the grain */
    const core_handle_dir_t *dir; /* the slabs (published with release) */
    size_t nslabs;
    void **ring;               /* dead slots, oldest first (ring of ring_cap) */
    size_t ring_cap, ring_head, nfree;
    size_t nlive;
    uintptr_t *pre_table;      /* owned storage behind pre */
} core_handle_pool_t;

/* A pool with no predefined objects and no slabs yet (static initializer).
 * last starts at a hidden object of the library that no handle can name. */
extern const uintptr_t core_handle_no_pre[2];
extern const char core_handle_no_object;
extern const core_handle_slab_t core_handle_no_slab;
extern const core_handle_dir_t core_handle_no_dir;
#define CORE_HANDLE_POOL_INIT                                                               \
    {                                                                                       \
        .last = (uintptr_t)&core_handle_no_object, .pre = core_handle_no_pre, .pre_mult = 1, \
        .pre_shift = 63, .hot = &core_handle_no_slab, .dir = &core_handle_no_dir            \
    }

enum { CORE_HANDLE_FOREIGN = 0, CORE_HANDLE_LIVE = 1, CORE_HANDLE_DEAD = 2 };

int core_handle_valid_slow(const core_handle_pool_t *pool, uintptr_t a);

/* The pools of the library's object kinds. */
typedef struct core_handles {
    core_handle_pool_t comm, dt, group, op, info, errh, req, msg, win, file;
    /* Objects may be used by several threads at once: MPI_THREAD_MULTIPLE was granted (set
     * by MPI_Init_thread, cleared by MPI_Finalize). Reference counts are atomic then. */
    int shared;
} core_handles_t;
/* Sets core_handles.shared (MPI_Init_thread with MULTIPLE: 1; MPI_Finalize: 0); forgets
 * every pool's `last` when objects become shared. */
void core_handles_share(int on);

extern core_handles_t core_handles;

/* Whether a is the start of a live slot of one of pool's slabs. */
static inline int core_handle_in_slabs(const core_handle_pool_t *pool, uintptr_t a)
{
    const core_handle_slab_t *hot = __atomic_load_n(&pool->hot, __ATOMIC_ACQUIRE);
    uintptr_t off = a - hot->base;
    if (off < hot->bytes)
        return !(off & (CORE_HANDLE_GRAIN - 1)) &&
               __atomic_load_n(&hot->live[off / CORE_HANDLE_GRAIN], __ATOMIC_ACQUIRE);
    return core_handle_valid_slow(pool, a);
}

/*
 * 1 if p is a live object of pool (predefined, or allocated and not freed),
 * else 0 (NULL, freed, another kind's, or not an object at all). Never reads
 * *p. Valid from the pool's static initialization on.
 */
static inline int core_handle_valid(core_handle_pool_t *pool, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (a == pool->last)
        return 1;
    if (pool->pre[(uint64_t)a * pool->pre_mult >> pool->pre_shift] != a &&
        !core_handle_in_slabs(pool, a))
        return 0;
    if (!core_handles.shared)
        pool->last = a;
    return 1;
}

/* LIVE, DEAD (a freed slot: a stale handle) or FOREIGN, for error messages. */
int core_handle_state(core_handle_pool_t *pool, const void *p);

/* A zeroed object of size bytes (every call on a pool passes the same size),
 * or NULL when out of memory. */
void *core_handle_alloc(core_handle_pool_t *pool, size_t size);
/* Marks obj (from core_handle_alloc on pool) dead; its memory stays mapped. */
void core_handle_free(core_handle_pool_t *pool, void *obj);
/* Makes objs[0..n) valid handles of pool (the predefined objects); replaces
 * an earlier set. Returns 0 or CORE_ENOMEM. */
int core_handle_predefine(core_handle_pool_t *pool, const void *const *objs, size_t n);
/*
 * A slot's number, stable for the life of the slab (slabs are never freed):
 * serial * slots per slab + slot, or -1 when p is not the start of a slot of
 * pool's slabs (live or dead). Fortran's integer handles are built on it.
 */
long core_handle_index(const core_handle_pool_t *pool, const void *p);
/* The slot numbered index (live or dead: the caller's handle check decides),
 * or NULL when no slab has it. */
void *core_handle_at(const core_handle_pool_t *pool, long index);
/* Frees the pool's slabs and tables (every object in it goes): for tests. */
void core_handle_pool_destroy(core_handle_pool_t *pool);


/* Reference counts of MPI objects (communicators, datatypes, groups, ops, error handlers):
 * atomic when the objects are shared between threads (core_handles.shared), plain stores
 * otherwise, so THREAD_SINGLE and FUNNELED pay no locked instruction. core_ref_get takes
 * one reference; core_ref_put drops one and returns how many are left (the thread that sees
 * 0 frees the object: acquire-release, so it sees what the other holders wrote before). */
static inline void core_ref_get(int *ref)
{
    if (core_handles.shared)
        __atomic_fetch_add(ref, 1, __ATOMIC_RELAXED);
    else
        ++*ref;
}

static inline int core_ref_put(int *ref)
{
    if (core_handles.shared)
        return __atomic_sub_fetch(ref, 1, __ATOMIC_ACQ_REL);
    return --*ref;
}

#endif
