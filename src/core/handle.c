/*
 * Handle pools (see handle.h): per-kind slab allocation that never returns
 * memory to malloc, a side table of live slots per slab, the collision-free
 * hash of the predefined objects, and the pools of the library's kinds.
 */
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/handle.h"

#if defined(__SANITIZE_ADDRESS__)
#define HANDLE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HANDLE_ASAN 1
#endif
#endif
#ifdef HANDLE_ASAN
#include <sanitizer/asan_interface.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HANDLE_VALGRIND 1
#endif
#endif

#define SLAB_TARGET 65536   /* bytes of objects per slab, about */
#define SLAB_MIN_SLOTS 16

/*
 * The table of a pool without predefined objects: the hash is the top bit of
 * the address, and each entry holds a value that hashes to the other entry,
 * so no pointer whatsoever is found in it.
 */
const uintptr_t core_handle_no_pre[2] = { UINTPTR_MAX, 1 };
const char core_handle_no_object;
/* The hot slab of a pool without slabs: no address is in its 0 bytes. */
const core_handle_slab_t core_handle_no_slab = { .base = 0, .bytes = 0 };
/* The directory of a pool without slabs. */
const core_handle_dir_t core_handle_no_dir = { .n = 0 };

core_handles_t core_handles = {
    .comm = CORE_HANDLE_POOL_INIT, .dt = CORE_HANDLE_POOL_INIT, .group = CORE_HANDLE_POOL_INIT,
    .op = CORE_HANDLE_POOL_INIT, .info = CORE_HANDLE_POOL_INIT, .errh = CORE_HANDLE_POOL_INIT,
    .req = CORE_HANDLE_POOL_INIT, .msg = CORE_HANDLE_POOL_INIT, .win = CORE_HANDLE_POOL_INIT,
    .file = CORE_HANDLE_POOL_INIT,
};

/* A dead slot is out of bounds for the memory checkers; a live one is the
 * caller's (undefined until it is zeroed). */
static void mark_dead(void *p, size_t n)
{
#ifdef HANDLE_ASAN
    ASAN_POISON_MEMORY_REGION(p, n);
#endif
#ifdef HANDLE_VALGRIND
    VALGRIND_MAKE_MEM_NOACCESS(p, n);
#endif
    (void)p;
    (void)n;
}

static void mark_live(void *p, size_t n)
{
#ifdef HANDLE_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#endif
#ifdef HANDLE_VALGRIND
    VALGRIND_MAKE_MEM_UNDEFINED(p, n);
#endif
    (void)p;
    (void)n;
}

static int is_live(const core_handle_slab_t *s, uintptr_t off)
{
    return __atomic_load_n(&s->live[off / CORE_HANDLE_GRAIN], __ATOMIC_ACQUIRE);
}

static void set_live(const core_handle_slab_t *s, uintptr_t off, uint8_t v)
{
    __atomic_store_n(&s->live[off / CORE_HANDLE_GRAIN], v, __ATOMIC_RELAXED);
}

static const core_handle_dir_t *dir_of(const core_handle_pool_t *pool)
{
    return __atomic_load_n(&pool->dir, __ATOMIC_ACQUIRE);
}

/* The slab of directory d holding address a, or NULL. */
static const core_handle_slab_t *slab_in(const core_handle_dir_t *d, uintptr_t a)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {   /* the first slab whose base is above a */
        size_t mid = lo + (hi - lo) / 2;
        if (d->sorted[mid]->base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const core_handle_slab_t *s = d->sorted[lo - 1];
    return a - s->base < s->bytes ? s : NULL;
}

static const core_handle_slab_t *slab_of(const core_handle_pool_t *pool, uintptr_t a)
{
    return slab_in(dir_of(pool), a);
}

int core_handle_valid_slow(const core_handle_pool_t *pool, uintptr_t a)
{
    const core_handle_slab_t *s = slab_of(pool, a);
    uintptr_t off = s ? a - s->base : 1;
    return s && !(off & (CORE_HANDLE_GRAIN - 1)) && is_live(s, off);
}

int core_handle_state(core_handle_pool_t *pool, const void *p)
{
    if (core_handle_valid(pool, p))
        return CORE_HANDLE_LIVE;
    const core_handle_dir_t *d = dir_of(pool);
    const core_handle_slab_t *s = slab_in(d, (uintptr_t)p);
    if (s && ((uintptr_t)p - s->base) % d->slot == 0)
        return CORE_HANDLE_DEAD;
    return CORE_HANDLE_FOREIGN;
}

/* Frees directory d, and the ones it kept. */
static void dir_free(const core_handle_dir_t *d)
{
    while (d && d != &core_handle_no_dir) {
        const core_handle_dir_t *prev = d->prev;
        free((void *)d);
        d = prev;
    }
}

/* Adds a slab of fresh slots behind the ones already free. */
static int add_slab(core_handle_pool_t *pool)
{
    size_t nslots = pool->slab_bytes / pool->slot;
    char *base = malloc(pool->slab_bytes);
    uint8_t *live = calloc(pool->slab_bytes / CORE_HANDLE_GRAIN, 1);
    core_handle_slab_t *rec = malloc(sizeof(*rec));
    void **ring = malloc((pool->ring_cap + nslots) * sizeof(*ring));
    size_t n = pool->nslabs + 1;
    core_handle_dir_t *d = malloc(sizeof(*d) + 2 * n * sizeof(core_handle_slab_t *));
    if (!base || !live || !rec || !ring || !d) {
        free(base);
        free(live);
        free(rec);
        free(ring);
        free(d);
        return CORE_ENOMEM;
    }
    mark_dead(base, pool->slab_bytes);
    /* the free slots, oldest first, then the new ones in address order */
    for (size_t i = 0; i < pool->nfree; i++)
        ring[i] = pool->ring[(pool->ring_head + i) % pool->ring_cap];
    for (size_t i = 0; i < nslots; i++)
        ring[pool->nfree + i] = base + i * pool->slot;
    free(pool->ring);
    pool->ring = ring;
    pool->ring_cap += nslots;
    pool->ring_head = 0;
    pool->nfree += nslots;
    *rec = (core_handle_slab_t){ (uintptr_t)base, pool->slab_bytes, live, pool->nslabs };
    /* the new directory: the old one's slabs with rec in its place */
    const core_handle_dir_t *old = pool->dir;
    d->n = n;
    d->slot = pool->slot;
    d->sorted = (const core_handle_slab_t **)(d + 1);
    d->by_serial = d->sorted + n;
    size_t at = 0;
    while (at < old->n && old->sorted[at]->base < (uintptr_t)base)
        at++;
    for (size_t i = 0; i < old->n; i++) {
        d->sorted[i < at ? i : i + 1] = old->sorted[i];
        d->by_serial[i] = old->by_serial[i];
    }
    d->sorted[at] = rec;
    d->by_serial[old->n] = rec;
    /* a check in another thread may still read the old directory: kept then */
    d->prev = core_handles.shared ? old : NULL;
    __atomic_store_n(&pool->dir, d, __ATOMIC_RELEASE);
    if (!core_handles.shared)
        dir_free(old);
    pool->nslabs = n;
    return 0;
}

void *core_handle_alloc(core_handle_pool_t *pool, size_t size)
{
    if (!pool->slot) {
        pool->slot = (size + CORE_HANDLE_GRAIN - 1) / CORE_HANDLE_GRAIN * CORE_HANDLE_GRAIN;
        size_t nslots = SLAB_TARGET / pool->slot;
        pool->slab_bytes = (nslots < SLAB_MIN_SLOTS ? SLAB_MIN_SLOTS : nslots) * pool->slot;
    }
    if (pool->nfree == 0 && add_slab(pool) != 0)
        return NULL;
    char *obj = pool->ring[pool->ring_head];
    pool->ring_head = (pool->ring_head + 1) % pool->ring_cap;
    pool->nfree--;
    const core_handle_slab_t *s = slab_of(pool, (uintptr_t)obj);
    mark_live(obj, pool->slot);
    memset(obj, 0, size);
    /* release: a thread whose check (acquire) finds the object live sees it zeroed */
    __atomic_store_n(&s->live[((uintptr_t)obj - s->base) / CORE_HANDLE_GRAIN], 1,
                     __ATOMIC_RELEASE);
    if (pool->hot != s)
        __atomic_store_n(&pool->hot, s, __ATOMIC_RELEASE);
    pool->nlive++;
    return obj;
}

void core_handle_free(core_handle_pool_t *pool, void *obj)
{
    const core_handle_slab_t *s = slab_of(pool, (uintptr_t)obj);
    uintptr_t off = s ? (uintptr_t)obj - s->base : 1;
    if (!s || off % pool->slot || !is_live(s, off))
        return;   /* not a live object of this pool: nothing to free */
    set_live(s, off, 0);
    if (pool->last == (uintptr_t)obj)
        pool->last = (uintptr_t)&core_handle_no_object;
    mark_dead(obj, pool->slot);
    pool->ring[(pool->ring_head + pool->nfree) % pool->ring_cap] = obj;
    pool->nfree++;
    pool->nlive--;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/*
 * Finds a multiplier that puts the n keys in distinct entries of a table of
 * 2^bits, trying larger tables when small ones collide (a few dozen keys need
 * a few hundred entries). Entries without a key get an odd value that hashes
 * elsewhere, so a lookup never matches an empty entry.
 */
int core_handle_predefine(core_handle_pool_t *pool, const void *const *objs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!objs[i] || ((uintptr_t)objs[i] & 1))
            return CORE_EINVAL;
    if (n == 0) {
        free(pool->pre_table);
        pool->pre_table = NULL;
        pool->pre = core_handle_no_pre;
        pool->pre_mult = 1;
        pool->pre_shift = 63;
        return 0;
    }
    unsigned bits = 1;
    while (((size_t)1 << bits) < 4 * n)
        bits++;
    uint64_t seed = 0x5eed;
    for (; bits <= 20; bits++) {
        size_t size = (size_t)1 << bits;
        unsigned shift = 64 - bits;
        uintptr_t *t = calloc(size, sizeof(*t));
        if (!t)
            return CORE_ENOMEM;
        for (int attempt = 0; attempt < 256; attempt++) {
            uint64_t mult = splitmix(&seed) | 1;
            memset(t, 0, size * sizeof(*t));
            size_t i;
            for (i = 0; i < n; i++) {
                uintptr_t k = (uintptr_t)objs[i];
                size_t h = (size_t)((uint64_t)k * mult >> shift);
                if (t[h] && t[h] != k)
                    break;
                t[h] = k;
            }
            if (i < n)
                continue;
            for (size_t h = 0; h < size; h++) {
                if (t[h])
                    continue;
                uintptr_t v = 1;
                while ((size_t)((uint64_t)v * mult >> shift) == h)
                    v += 2;
                t[h] = v;
            }
            free(pool->pre_table);
            pool->pre_table = t;
            pool->pre = t;
            pool->pre_mult = mult;
            pool->pre_shift = shift;
            return 0;
        }
        free(t);
    }
    return CORE_ENOMEM;
}

long core_handle_index(const core_handle_pool_t *pool, const void *p)
{
    const core_handle_dir_t *d = dir_of(pool);
    const core_handle_slab_t *s = slab_in(d, (uintptr_t)p);
    if (!s)
        return -1;
    uintptr_t off = (uintptr_t)p - s->base;
    if (off % d->slot)
        return -1;
    return (long)(s->serial * (s->bytes / d->slot) + off / d->slot);
}

void *core_handle_at(const core_handle_pool_t *pool, long index)
{
    const core_handle_dir_t *d = dir_of(pool);
    if (index < 0 || !d->n)
        return NULL;
    size_t per = d->sorted[0]->bytes / d->slot;
    size_t serial = (size_t)index / per;
    if (serial >= d->n)
        return NULL;
    return (void *)(d->by_serial[serial]->base + (size_t)index % per * d->slot);
}

void core_handles_share(int on)
{
    core_handle_pool_t *pools[] = { &core_handles.comm, &core_handles.dt, &core_handles.group,
                                    &core_handles.op,   &core_handles.info, &core_handles.errh,
                                    &core_handles.req,  &core_handles.msg, &core_handles.win,
                                    &core_handles.file };
    if (on)
        for (size_t i = 0; i < sizeof(pools) / sizeof(pools[0]); i++)
            pools[i]->last = (uintptr_t)&core_handle_no_object;
    core_handles.shared = on;
}

void core_handle_pool_destroy(core_handle_pool_t *pool)
{
    const core_handle_dir_t *d = pool->dir;
    for (size_t i = 0; i < d->n; i++) {
        const core_handle_slab_t *s = d->sorted[i];
        mark_live((void *)s->base, s->bytes);
        free((void *)s->base);
        free(s->live);
        free((void *)s);
    }
    dir_free(d);
    free(pool->ring);
    free(pool->pre_table);
    *pool = (core_handle_pool_t)CORE_HANDLE_POOL_INIT;
}
