/*
 * The verbs registration cache's bookkeeping (transports/verbs/verbs_rcache.c)
 * on any host: ibv_reg_mr and ibv_dereg_mr are stand-ins here that record
 * what is registered, so no RDMA device is needed. The memory hooks are the
 * real ones (installed when this program is loaded), and the events are
 * real munmap calls on a reserved address range. Where the hooks are off
 * (AddressSanitizer's allocator, valgrind) the same tests run on a cache
 * made here without a subscription, the events handed to its callback by
 * the test after each munmap.
 *
 * Checked: a lookup returns a live region covering the whole buffer, a hit
 * whenever one exists (the interval tree finds it among a thousand) and a
 * new registration otherwise; an munmap overlapping a region kills it (never
 * returned again, deregistered once unused) and leaves the others; regions
 * in use are never deregistered; the least recently used unused regions go
 * first beyond the entry limit; the tree and the list always hold the same
 * regions. A random sequence of a few thousand gets, puts and munmaps is
 * checked against a brute-force model of the live regions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* The cache itself, so that the test can look at its tree and counters. */
#include "transports/verbs/verbs_rcache.c"

static int failures;
#define CHECK(name, cond)                                                                  \
    do {                                                                                   \
        if (cond)                                                                          \
            printf("PASS: unit/verbs_rcache/%s\n", name);                                  \
        else {                                                                             \
            printf("FAIL: unit/verbs_rcache/%s (%s:%d: %s)\n", name, __FILE__, __LINE__,   \
                   #cond);                                                                 \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* ---- stand-ins for libibverbs ---- */

#define MR_LIVE 0x4c495645u
#define MR_GONE 0x474f4e45u

typedef struct fake_mr {
    struct ibv_mr mr;
    unsigned magic;
    struct fake_mr *next; /* every one made, freed at the end */
} fake_mr_t;

static fake_mr_t *all_mrs;

static long registered, deregistered, bad_dereg;

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    (void)pd;
    (void)access;
    fake_mr_t *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->mr.addr = addr;
    m->mr.length = length;
    m->magic = MR_LIVE;
    m->next = all_mrs;
    all_mrs = m;
    registered++;
    return &m->mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    (void)iova;
    return (ibv_reg_mr)(pd, addr, length, (int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    fake_mr_t *m = (fake_mr_t *)mr;
    if (m->magic != MR_LIVE)
        bad_dereg++;
    /* Kept (and marked) rather than freed until the end: a later use shows. */
    m->magic = MR_GONE;
    deregistered++;
    return 0;
}

/* ---- helpers ---- */

static size_t pg;
static int hooked; /* the memory hooks are on: munmap reaches the cache by itself */

static vb_rcache_t *make(size_t max_bytes, int max_entries)
{
    vb_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.verbs_rcache = 1;
    cfg.verbs_rcache_max = max_bytes;
    cfg.verbs_rcache_entries = max_entries;
    const char *why = NULL;
    if (hooked) {
        vb_rcache_t *c = vb_rcache_create(NULL, 0, &cfg, &why);
        if (!c)
            printf("# no cache: %s\n", why ? why : "?");
        return c;
    }
    /* As vb_rcache_create does, minus the hooks (destroy skips handle -1). */
    vb_rcache_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    atomic_flag_clear(&c->lock);
    core_list_init(&c->regions);
    core_itree_init(&c->tree);
    atomic_store(&c->lo, UINTPTR_MAX);
    atomic_store(&c->on, 1);
    c->page = pg;
    c->max_bytes = max_bytes;
    c->max_n = (size_t)max_entries;
    c->sub = -1;
    return c;
}

/* munmap, and the event the hooks would have reported when they are off. */
static void unmap(vb_rcache_t *c, void *addr, size_t len)
{
    munmap(addr, len);
    if (!hooked)
        on_event(c, (uintptr_t)addr, (uintptr_t)addr + len, CORE_MEM_UNMAP);
}

/* The tree and the list hold the same regions, the counters agree. */
static int consistent(vb_rcache_t *c)
{
    size_t n = 0, bytes = 0;
    core_list_t *it;
    core_list_each(it, &c->regions) {
        vb_region_t *r = region_of(it);
        n++;
        bytes += r->range.end - r->range.start;
    }
    return core_itree_check(&c->tree) == 0 && c->tree.n == n && c->n == n && c->bytes == bytes;
}

static int mr_live(const vb_region_t *r)
{
    return r->mr && ((const fake_mr_t *)r->mr)->magic == MR_LIVE;
}

/* ---- the tests ---- */

static void test_basic(char *area)
{
    vb_rcache_t *c = make((size_t)1 << 40, 1 << 20);
    if (!c) {
        CHECK("create", 0);
        return;
    }
    vb_region_t *a = vb_rcache_get(c, area + 10, 3 * pg);
    CHECK("miss_registers", a && mr_live(a) && a->range.start == (uintptr_t)area &&
                                a->range.end == (uintptr_t)area + 4 * pg && registered == 1);
    vb_rcache_put(c, a);
    vb_region_t *b = vb_rcache_get(c, area + pg, pg);
    CHECK("inside_hits", b == a && registered == 1 && c->hits == 1);
    vb_rcache_put(c, b);
    vb_region_t *d = vb_rcache_get(c, area + 3 * pg, 2 * pg); /* runs past a's end */
    CHECK("past_end_misses", d && d != a && registered == 2);
    vb_rcache_put(c, d);
    /* An munmap of a page of a kills a, and d (overlapping it), but not the
     * region after them. */
    vb_region_t *e = vb_rcache_get(c, area + 8 * pg, pg);
    vb_rcache_put(c, e);
    long before = deregistered;
    unmap(c, area + 3 * pg, pg);
    CHECK("munmap_kills_overlapping", a->dead && d->dead && !e->dead && c->invalidated == 2);
    vb_region_t *f = vb_rcache_get(c, area + pg, pg);
    CHECK("dead_never_returned", f != a && f != d && registered == 4);
    CHECK("dead_unused_deregistered", deregistered == before + 2 && bad_dereg == 0);
    vb_rcache_put(c, f);
    /* A region in use when its pages go is marked but kept until put. */
    vb_region_t *g = vb_rcache_get(c, area + 8 * pg, pg);
    before = deregistered;
    unmap(c, area + 8 * pg, pg);
    vb_rcache_put(c, vb_rcache_get(c, area + 20 * pg, pg)); /* runs tidy */
    CHECK("in_use_kept", g == e && g->dead && mr_live(g) && deregistered == before);
    vb_rcache_put(c, g);
    CHECK("released_after_put", deregistered == before + 1 && bad_dereg == 0);
    CHECK("consistent", consistent(c));
    vb_rcache_destroy(c);
    CHECK("destroy_deregisters_all", registered == deregistered && bad_dereg == 0);
}

static void test_lru(char *area)
{
    vb_rcache_t *c = make((size_t)1 << 40, 4);
    if (!c)
        return;
    long reg0 = registered;
    for (int i = 0; i < 10; i++)
        vb_rcache_put(c, vb_rcache_get(c, area + (size_t)i * 2 * pg, pg));
    CHECK("entry_limit", c->n == 4 && registered - reg0 == 10 && consistent(c));
    /* The four most recent (6..9) stay; 0 went first. */
    vb_rcache_put(c, vb_rcache_get(c, area + 9 * 2 * pg, pg));
    vb_rcache_put(c, vb_rcache_get(c, area + 6 * 2 * pg, pg));
    CHECK("recent_hit", registered - reg0 == 10);
    vb_rcache_put(c, vb_rcache_get(c, area, pg));
    CHECK("oldest_evicted", registered - reg0 == 11 && c->evicted >= 6 && consistent(c));
    vb_rcache_destroy(c);
}

/* Many regions: a hit in the middle of a thousand, and an munmap between
 * regions that kills none. */
static void test_many(char *area, size_t area_len)
{
    vb_rcache_t *c = make((size_t)1 << 40, 1 << 20);
    if (!c)
        return;
    int n = 1000;
    if ((size_t)n * 4 * pg > area_len)
        n = (int)(area_len / (4 * pg));
    for (int i = 0; i < n; i++)
        vb_rcache_put(c, vb_rcache_get(c, area + (size_t)i * 4 * pg, 2 * pg));
    long reg = registered;
    uint64_t hits = c->hits;
    vb_region_t *r = vb_rcache_get(c, area + (size_t)(n / 3) * 4 * pg + pg, pg);
    CHECK("hit_among_many", r && registered == reg && c->hits == hits + 1 &&
                                r->range.start == (uintptr_t)area + (size_t)(n / 3) * 4 * pg);
    vb_rcache_put(c, r);
    unmap(c, area + (size_t)(n / 2) * 4 * pg + 2 * pg, 2 * pg); /* the gap after a region */
    CHECK("gap_munmap_kills_none", c->invalidated == 0 && atomic_load(&c->ndead) == 0);
    unmap(c, area, (size_t)n * 4 * pg);
    CHECK("munmap_all_kills_all", c->invalidated == (uint64_t)n && consistent(c));
    vb_rcache_destroy(c);
}

/* The model: live regions the cache must know of. */
#define MAXR 4096
static struct {
    uintptr_t s, e;
    vb_region_t *r;
    int held;   /* gets not yet put (we put right away or keep one) */
    int dead;
} model[MAXR];
static int nmodel;

static uint64_t rng = 88172645463325252u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random(char *area, size_t area_len)
{
    vb_rcache_t *c = make((size_t)1 << 40, 1 << 20);
    if (!c)
        return;
    size_t npages = area_len / pg;
    long wrong_hit = 0, wrong_miss = 0, bad_cover = 0, killed_wrong = 0, inconsistent = 0;
    vb_region_t *held[16] = { 0 };
    for (int op = 0; op < 6000; op++) {
        unsigned k = (unsigned)(next() % 10);
        if (k < 6) { /* get, and keep it for a while sometimes */
            size_t p = next() % (npages - 40), len = 1 + next() % (8 * pg);
            uintptr_t s = (uintptr_t)area + p * pg + next() % pg, e = s + len;
            int expect_hit = 0;
            for (int i = 0; i < nmodel; i++)
                if (!model[i].dead && model[i].s <= (s & ~(pg - 1)) && model[i].e >= e)
                    expect_hit = 1;
            long reg = registered;
            vb_region_t *r = vb_rcache_get(c, (void *)s, len);
            if (!r || !mr_live(r) || r->dead || r->range.start > s || r->range.end < e)
                bad_cover++;
            if (expect_hit && registered != reg)
                wrong_miss++;
            if (!expect_hit && registered == reg)
                wrong_hit++;
            if (r && registered != reg && nmodel < MAXR) {
                model[nmodel].s = r->range.start;
                model[nmodel].e = r->range.end;
                model[nmodel].r = r;
                model[nmodel].dead = 0;
                nmodel++;
            }
            int slot = (int)(next() % 16);
            if (held[slot])
                vb_rcache_put(c, held[slot]);
            held[slot] = r;
        } else if (k < 9) { /* an munmap somewhere, as free() would */
            size_t p = next() % (npages - 40), n = 1 + next() % 6;
            uintptr_t s = (uintptr_t)area + p * pg, e = s + n * pg;
            unmap(c, (void *)s, n * pg);
            for (int i = 0; i < nmodel; i++) {
                int overlap = model[i].s < e && model[i].e > s;
                if (overlap)
                    model[i].dead = 1;
                /* Compare with the cache while the region is surely still on its list. */
                if (model[i].r && !model[i].dead && model[i].r->dead)
                    killed_wrong++;
            }
            /* Dead model entries are forgotten once the cache may free them. */
            int j = 0;
            for (int i = 0; i < nmodel; i++)
                if (!model[i].dead)
                    model[j++] = model[i];
            nmodel = j;
        } else if (!consistent(c)) {
            inconsistent++;
        }
    }
    for (int i = 0; i < 16; i++)
        if (held[i])
            vb_rcache_put(c, held[i]);
    printf("# random: %llu hits, %llu misses, %llu invalidated, %zu regions at the end\n",
           (unsigned long long)c->hits, (unsigned long long)c->misses,
           (unsigned long long)c->invalidated, (size_t)c->n);
    CHECK("random_returns_cover", bad_cover == 0);
    CHECK("random_hit_when_cached", wrong_miss == 0);
    CHECK("random_miss_when_not", wrong_hit == 0);
    CHECK("random_kills_only_overlapping", killed_wrong == 0);
    CHECK("random_consistent", inconsistent == 0 && consistent(c) && bad_dereg == 0);
    vb_rcache_destroy(c);
    CHECK("random_all_deregistered", registered == deregistered && bad_dereg == 0);
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    const char *why;
    hooked = core_memhooks_status(&why) == 0;
    if (!hooked)
        printf("# no memory hooks here (%s): events handed to the cache by the test\n", why);
    /* Reserved, never touched: the stand-in registration does not read it. */
    size_t area_len = 8192 * pg;
    char *area = mmap(NULL, area_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                      0);
    if (area == MAP_FAILED) {
        printf("FAIL: unit/verbs_rcache: cannot reserve address space\n");
        return 1;
    }
    test_basic(area);
    test_lru(area + 1024 * pg);
    test_many(area + 2048 * pg, 4096 * pg);
    test_random(area, area_len);
    munmap(area, area_len);
    while (all_mrs) {
        fake_mr_t *m = all_mrs;
        all_mrs = m->next;
        free(m);
    }
    return failures ? 1 : 0;
}
