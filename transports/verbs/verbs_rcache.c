/*
 * The registration cache: rendezvous buffers stay registered after their
 * message, so the next message from or into the same memory skips
 * ibv_reg_mr/ibv_dereg_mr.
 *
 * A region is a page-aligned range with its memory region (MR), a count of
 * the messages using it, its place on a list kept in recently-used order,
 * and its node in an interval tree (core/itree.h) keyed by address. A
 * lookup asks the tree for a live region covering the whole buffer (O(log
 * n)), else registers a new one. Unused regions are deregistered, least
 * recently used first (the list), beyond RDMPI_VERBS_RCACHE_MAX bytes or
 * RDMPI_VERBS_RCACHE_ENTRIES regions, and all of them when a registration
 * fails (locked memory full).
 *
 * Correctness rests on invalidation: the memory hooks (core/memhooks.h)
 * report every unmap, remap, discard, heap shrink, detach and fixed mapping
 * before it happens, and the callback marks every region overlapping it
 * dead. A dead region is never returned again; it is deregistered later,
 * outside the hook, once no message uses it. The callback runs inside
 * malloc/free in any thread, on every munmap of the process, so it first
 * looks, without the lock, at the region count and at the range that holds
 * every region (nothing to do: a few loads), then takes the cache's
 * spinlock and asks the tree for the overlapping regions (O(log n + k)),
 * and only sets flags; the cache in turn never calls anything that may
 * allocate, free, map or unmap (malloc, free, ibv_*) while it holds the
 * lock, or the hook would wait for itself.
 *
 * A region is on the list before ibv_reg_mr runs (without an MR, so no
 * lookup returns it), so an event during the registration marks it too.
 * If the hooks stop being ours (another library patched the same
 * functions), the cache marks everything dead and turns itself off: from
 * then on every message registers its own memory.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/log.h"
#include "core/memhooks.h"
#include "transports/verbs/verbs.h"

struct vb_rcache {
    atomic_flag lock;
    core_list_t regions;       /* vb_region_t.link, most recently used first */
    core_itree_t tree;         /* vb_region_t.range: the same regions, by address */
    _Atomic size_t bytes, n;   /* of every region on the list (changed under the lock) */
    size_t max_bytes, max_n;
    _Atomic uintptr_t lo, hi;  /* every region lies within: the hook's quick miss */
    atomic_int ndead;          /* dead regions still on the list */
    atomic_int on;
    int sub;                   /* memhooks subscription */
    struct ibv_pd *pd;
    int access;                /* IBV_ACCESS_* of every registration */
    uintptr_t page;
    uint64_t hits, misses, evicted, invalidated;
};


static void lock(vb_rcache_t *c)
{
    for (int spins = 0; atomic_flag_test_and_set_explicit(&c->lock, memory_order_acquire);) {
        if (++spins < 100)
            __asm__ __volatile__("" ::: "memory");
        else
            sched_yield();
    }
}

static void unlock(vb_rcache_t *c)
{
    atomic_flag_clear_explicit(&c->lock, memory_order_release);
}

#define region_of(l) core_list_elem(l, vb_region_t, link)

static void mark_dead(vb_rcache_t *c, vb_region_t *r)
{
    if (!r->dead) {
        r->dead = 1;
        atomic_fetch_add(&c->ndead, 1);
    }
}

/* Takes r off the list (lock held); the caller deregisters it after
 * unlocking. */
static void take(vb_rcache_t *c, vb_region_t *r, vb_region_t **out)
{
    core_list_unlink(&r->link);
    core_itree_remove(&c->tree, &r->range);
    if (r->dead)
        atomic_fetch_sub(&c->ndead, 1);
    c->bytes -= r->range.end - r->range.start;
    c->n--;
    if (c->n == 0) {
        atomic_store(&c->lo, UINTPTR_MAX);
        atomic_store(&c->hi, 0);
    }
    r->next_out = *out;
    *out = r;
}

static void release(vb_region_t *list)
{
    while (list) {
        vb_region_t *r = list;
        list = r->next_out;
        if (r->mr)
            ibv_dereg_mr(r->mr);
        free(r);
    }
}

static int kill_overlap(core_itree_node_t *n, void *arg)
{
    vb_rcache_t *c = arg;
    vb_region_t *r = core_itree_elem(n, vb_region_t, range);
    if (!r->dead) {
        mark_dead(c, r);
        c->invalidated++;
    }
    return 0;
}

/* The memory hook: runs before [start, end) changes, in any thread. */
static void on_event(void *arg, uintptr_t start, uintptr_t end, int event)
{
    vb_rcache_t *c = arg;
    (void)event;
    if (atomic_load_explicit(&c->n, memory_order_acquire) == 0 ||
        start >= atomic_load(&c->hi) || end <= atomic_load(&c->lo))
        return;
    lock(c);
    core_itree_overlaps(&c->tree, start, end, kill_overlap, c);
    unlock(c);
}

/* Deregisters dead regions nobody uses, and unused ones beyond the limits
 * (all unused ones when all). */
static void tidy(vb_rcache_t *c, int all)
{
    if (!all && atomic_load(&c->ndead) == 0 && c->bytes <= c->max_bytes && c->n <= c->max_n)
        return;
    vb_region_t *out = NULL;
    core_list_t *it, *tmp;
    lock(c);
    core_list_each_backward_safe(it, tmp, &c->regions) {
        vb_region_t *r = region_of(it);
        if (r->refs)
            continue;
        if (r->dead) {
            take(c, r, &out);
        } else if (all || c->bytes > c->max_bytes || c->n > c->max_n) {
            take(c, r, &out);
            c->evicted++;
        }
    }
    unlock(c);
    release(out);
}

vb_rcache_t *vb_rcache_create(struct ibv_pd *pd, int access, const vb_config_t *cfg,
                              const char **why)
{
    if (!cfg->verbs_rcache) {
        *why = "RDMPI_VERBS_RCACHE=0";
        return NULL;
    }
    if (core_memhooks_status(why) != 0)
        return NULL;
    vb_rcache_t *c = calloc(1, sizeof(*c));
    if (!c) {
        *why = "out of memory";
        return NULL;
    }
    atomic_flag_clear(&c->lock);
    core_list_init(&c->regions);
    core_itree_init(&c->tree);
    atomic_store(&c->lo, UINTPTR_MAX);
    atomic_store(&c->on, 1);
    c->pd = pd;
    c->access = access;
    c->page = (uintptr_t)sysconf(_SC_PAGESIZE);
    c->max_bytes = cfg->verbs_rcache_max;
    c->max_n = cfg->verbs_rcache_entries > 0 ? (size_t)cfg->verbs_rcache_entries : 1;
    struct rlimit rl;
    if (geteuid() != 0 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        c->max_bytes > rl.rlim_cur / 2)
        c->max_bytes = rl.rlim_cur / 2;
    c->sub = core_memhooks_subscribe(on_event, c);
    if (c->sub < 0) {
        *why = c->sub == CORE_EBUSY ? "no memory-hook subscriber slot left"
                                    : "the memory hooks are no longer in place";
        free(c);
        return NULL;
    }
    return c;
}

void vb_rcache_destroy(vb_rcache_t *c)
{
    if (!c)
        return;
    core_memhooks_unsubscribe(c->sub);
    core_debug("verbs: registration cache: %llu hits, %llu misses, %llu evicted, %llu "
               "invalidated by memory events", (unsigned long long)c->hits,
               (unsigned long long)c->misses, (unsigned long long)c->evicted,
               (unsigned long long)c->invalidated);
    vb_region_t *out = NULL;
    while (!core_list_empty(&c->regions))
        take(c, region_of(c->regions.next), &out);
    release(out);
    free(c);
}

int vb_rcache_on(vb_rcache_t *c)
{
    if (!c || !atomic_load_explicit(&c->on, memory_order_relaxed))
        return 0;
    if (core_memhooks_intact())
        return 1;
    /* Events may have been missed since the patches changed: trust nothing. */
    atomic_store(&c->on, 0);
    core_list_t *it;
    lock(c);
    core_list_each(it, &c->regions)
        mark_dead(c, region_of(it));
    unlock(c);
    tidy(c, 1);
    core_warn("verbs: the memory hooks were overwritten (another library patches libc's "
              "memory functions): registration cache off, registering per message");
    return 0;
}

typedef struct cover {
    uintptr_t end;
    vb_region_t *found;
} cover_t;

/* Visited for the regions holding a buffer's first page: takes the first
 * live registered one that reaches its last page too. */
static int covers(core_itree_node_t *n, void *arg)
{
    cover_t *cv = arg;
    vb_region_t *r = core_itree_elem(n, vb_region_t, range);
    if (r->mr && !r->dead && n->end >= cv->end) {
        cv->found = r;
        return 1;
    }
    return 0;
}

vb_region_t *vb_rcache_get(vb_rcache_t *c, void *addr, size_t len)
{
    uintptr_t pg = c->page;
    uintptr_t start = (uintptr_t)addr & ~(pg - 1);
    uintptr_t end = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);
    if (end == start)
        end = start + pg;
    tidy(c, 0);
    cover_t cv = { end, NULL };
    lock(c);
    /* the most recently used region first: a one-sided operation or a message from the
     * buffer of the last one (the common case) costs no tree search */
    vb_region_t *mru = core_list_empty(&c->regions) ? NULL : region_of(c->regions.next);
    if (mru && mru->mr && !mru->dead && mru->range.start <= start && mru->range.end >= end) {
        mru->refs++;
        c->hits++;
        unlock(c);
        return mru;
    }
    if (core_itree_overlaps(&c->tree, start, start + 1, covers, &cv)) {
        vb_region_t *r = cv.found;
        r->refs++;
        core_list_unlink(&r->link);
        core_list_push_front(&c->regions, &r->link);
        c->hits++;
        unlock(c);
        return r;
    }
    c->misses++;
    unlock(c);

    vb_region_t *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->range.start = start;
    r->range.end = end;
    r->refs = 1;
    lock(c);
    core_list_push_front(&c->regions, &r->link);
    core_itree_insert(&c->tree, &r->range);
    c->n++;
    c->bytes += end - start;
    if (start < atomic_load(&c->lo))
        atomic_store(&c->lo, start);
    if (end > atomic_load(&c->hi))
        atomic_store(&c->hi, end);
    unlock(c);
    struct ibv_mr *mr = ibv_reg_mr(c->pd, (void *)start, end - start, c->access);
    if (!mr && (errno == ENOMEM || errno == EAGAIN)) {
        /* The locked-memory limit: give back what nobody uses, once. */
        tidy(c, 1);
        mr = ibv_reg_mr(c->pd, (void *)start, end - start, c->access);
    }
    int err = errno;
    lock(c);
    r->mr = mr;
    if (!mr)
        mark_dead(c, r);
    unlock(c);
    if (!mr) {
        vb_rcache_put(c, r);
        errno = err; /* for the caller's message */
        return NULL;
    }
    tidy(c, 0);
    return r;
}

void vb_rcache_put(vb_rcache_t *c, vb_region_t *r)
{
    lock(c);
    r->refs--;
    unlock(c);
    tidy(c, 0);
}

void vb_rcache_counts(vb_rcache_t *c, uint64_t *hits, uint64_t *misses)
{
    lock(c);
    *hits = c->hits;
    *misses = c->misses;
    unlock(c);
}
