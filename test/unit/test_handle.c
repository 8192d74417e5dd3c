/*
 * Unit test of the handle pools (core/handle.h): live objects are valid, freed ones and
 * made-up pointers (NULL, small integers, the middle of an object, another pool's object,
 * heap and stack memory, the top of the address space) are not; freed slots are reused
 * oldest first; predefined objects are found by their hash whatever their addresses; and
 * pools grow past one slab with every object still told apart; with objects shared between
 * threads, checks in one thread stay right while another allocates new slabs. Run under
 * ASan by test/asan/run, which also checks that a freed object's memory is poisoned.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/errors.h"
#include "core/handle.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define HAVE_ASAN 1
#endif

static int failures;
#define CHECK(name, cond)                                                      \
    do {                                                                       \
        if (cond)                                                              \
            printf("PASS: unit/handle/%s\n", name);                            \
        else {                                                                 \
            printf("FAIL: unit/handle/%s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

typedef struct obj {
    int refcount;
    char payload[200];   /* not a multiple of the grain */
} obj_t;

#define NOBJ 2000        /* several slabs */

static void basic(void)
{
    core_handle_pool_t pool = CORE_HANDLE_POOL_INIT, other = CORE_HANDLE_POOL_INIT;
    CHECK("empty-pool-null", !core_handle_valid(&pool, NULL));
    CHECK("empty-pool-garbage", !core_handle_valid(&pool, (void *)0x1234));
    CHECK("empty-pool-top", !core_handle_valid(&pool, (void *)UINTPTR_MAX));
    CHECK("empty-pool-one", !core_handle_valid(&pool, (void *)1));

    obj_t *a = core_handle_alloc(&pool, sizeof(obj_t));
    obj_t *b = core_handle_alloc(&pool, sizeof(obj_t));
    obj_t *x = core_handle_alloc(&other, sizeof(obj_t));
    CHECK("alloc", a && b && x && a != b);
    CHECK("zeroed", a && a->refcount == 0 && a->payload[199] == 0);
    CHECK("live", core_handle_valid(&pool, a) && core_handle_valid(&pool, b));
    CHECK("state-live", core_handle_state(&pool, a) == CORE_HANDLE_LIVE);
    CHECK("interior", !core_handle_valid(&pool, (char *)a + 16) &&
                          !core_handle_valid(&pool, (char *)a + 1) &&
                          !core_handle_valid(&pool, (char *)b - 16));
    CHECK("state-interior", core_handle_state(&pool, (char *)a + 16) == CORE_HANDLE_FOREIGN);
    CHECK("other-kind", !core_handle_valid(&pool, x) && core_handle_valid(&other, x) &&
                            !core_handle_valid(&other, a));
    int on_stack;
    void *heap = malloc(sizeof(obj_t));
    CHECK("not-an-object", !core_handle_valid(&pool, &on_stack) && !core_handle_valid(&pool, heap) &&
                               !core_handle_valid(&pool, NULL) &&
                               !core_handle_valid(&pool, (void *)0x1234) &&
                               !core_handle_valid(&pool, (void *)UINTPTR_MAX) &&
                               !core_handle_valid(&pool, (void *)(UINTPTR_MAX - 15)));
    free(heap);

    CHECK("last-hit", core_handle_valid(&pool, a) && pool.last == (uintptr_t)a);
    core_handle_free(&pool, a);   /* the object checked last */
    CHECK("freed", !core_handle_valid(&pool, a) && core_handle_valid(&pool, b));
    CHECK("state-dead", core_handle_state(&pool, a) == CORE_HANDLE_DEAD);
    core_handle_free(&pool, a);   /* a second free is ignored */
    CHECK("double-free-ignored", pool.nlive == 1);
#ifdef HAVE_ASAN
    CHECK("freed-poisoned", __asan_address_is_poisoned(a) && !__asan_address_is_poisoned(b));
#endif
    /* the freed slot is the last to be reused */
    obj_t *c = core_handle_alloc(&pool, sizeof(obj_t));
    CHECK("not-reused-first", c != a && !core_handle_valid(&pool, a));
    core_handle_pool_destroy(&pool);
    core_handle_pool_destroy(&other);
}

static void many(void)
{
    core_handle_pool_t pool = CORE_HANDLE_POOL_INIT;
    static obj_t *o[NOBJ];
    int ok = 1;
    for (int i = 0; i < NOBJ; i++) {
        o[i] = core_handle_alloc(&pool, sizeof(obj_t));
        if (!o[i])
            ok = 0;
        else
            o[i]->refcount = i;
    }
    CHECK("many-alloc", ok && pool.nslabs > 2);
    /* free the even ones: every object is told apart, whichever slab it is in */
    for (int i = 0; i < NOBJ; i += 2)
        core_handle_free(&pool, o[i]);
    ok = 1;
    for (int i = 0; i < NOBJ; i++) {
        int v = core_handle_valid(&pool, o[i]);
        if (v != (i % 2) || (v && o[i]->refcount != i))
            ok = 0;
        if (core_handle_state(&pool, o[i]) != (i % 2 ? CORE_HANDLE_LIVE : CORE_HANDLE_DEAD))
            ok = 0;
        if (core_handle_valid(&pool, (char *)o[i] + CORE_HANDLE_GRAIN))
            ok = 0;
    }
    CHECK("many-valid", ok);
    /* reuse: slots never used come first, then the freed ones, oldest first */
    size_t spare = pool.nfree - NOBJ / 2;
    for (size_t i = 0; i < spare; i++)
        core_handle_alloc(&pool, sizeof(obj_t));
    obj_t *first = core_handle_alloc(&pool, sizeof(obj_t));
    obj_t *second = core_handle_alloc(&pool, sizeof(obj_t));
    CHECK("reuse-oldest", first == o[0] && second == o[2] && core_handle_valid(&pool, o[0]) &&
                              first->refcount == 0);
    CHECK("count", pool.nlive == NOBJ / 2 + 2 + spare);
    core_handle_pool_destroy(&pool);
    CHECK("destroyed", !core_handle_valid(&pool, o[1]) && pool.nslabs == 0);
}

static void predefined(void)
{
    /* objects at arbitrary addresses, as copy relocations leave them */
    static obj_t statics[40];
    obj_t *heap[24];
    const void *objs[64];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        objs[n++] = &statics[i];
    for (int i = 0; i < 24; i++)
        objs[n++] = heap[i] = malloc(sizeof(obj_t));
    core_handle_pool_t pool = CORE_HANDLE_POOL_INIT;
    CHECK("predefine", core_handle_predefine(&pool, objs, n) == 0);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        if (!core_handle_valid(&pool, objs[i]) ||
            core_handle_valid(&pool, (const char *)objs[i] + 8) ||
            core_handle_valid(&pool, (const char *)objs[i] + 1))
            ok = 0;
    CHECK("predefined-valid", ok);
    /* the table's filler values are odd: none of them may be found */
    ok = 1;
    for (uintptr_t v = 1; v < 4096; v += 2)
        if (core_handle_valid(&pool, (void *)v))
            ok = 0;
    for (uintptr_t v = 0; v < 64; v++)
        if (core_handle_valid(&pool, (void *)(UINTPTR_MAX - v)) || core_handle_valid(&pool, (void *)v))
            ok = 0;
    CHECK("no-false-match", ok);
    CHECK("reject-odd", core_handle_predefine(&pool, (const void *[]){(void *)3}, 1) == CORE_EINVAL);
    /* predefined and allocated objects side by side */
    obj_t *a = core_handle_alloc(&pool, sizeof(obj_t));
    CHECK("mixed", core_handle_valid(&pool, a) && core_handle_valid(&pool, objs[0]) &&
                       core_handle_state(&pool, objs[0]) == CORE_HANDLE_LIVE);
    core_handle_pool_destroy(&pool);
    for (int i = 0; i < 24; i++)
        free(heap[i]);
}

/* The library's pools: its predefined objects are not linked here, so they start empty. */
static void library_pools(void)
{
    CHECK("library-pools-empty", !core_handle_valid(&core_handles.comm, NULL) &&
                                     !core_handle_valid(&core_handles.req, (void *)0x1234));
}

/* Slot numbers (Fortran's integer handles): stable, unique, and back to the same slot,
 * across slabs whose addresses need not be in allocation order. */
static void indices(void)
{
    core_handle_pool_t pool = CORE_HANDLE_POOL_INIT;
    static void *objs[NOBJ];
    int unique = 1, back = 1;
    CHECK("index-empty", core_handle_index(&pool, &pool) == -1 && !core_handle_at(&pool, 0));
    for (int i = 0; i < NOBJ; i++)
        objs[i] = core_handle_alloc(&pool, 100);
    for (int i = 0; i < NOBJ; i++) {
        long n = core_handle_index(&pool, objs[i]);
        back &= n >= 0 && core_handle_at(&pool, n) == objs[i];
        if (i > 0)
            unique &= n != core_handle_index(&pool, objs[i - 1]);
    }
    CHECK("index-roundtrip", back);
    CHECK("index-unique", unique);
    long n5 = core_handle_index(&pool, objs[5]);
    core_handle_free(&pool, objs[5]);
    CHECK("index-dead-slot", core_handle_index(&pool, objs[5]) == n5 &&
                                 core_handle_at(&pool, n5) == objs[5] &&
                                 !core_handle_valid(&pool, core_handle_at(&pool, n5)));
    CHECK("index-interior", core_handle_index(&pool, (char *)objs[6] + 16) == -1);
    CHECK("index-beyond", !core_handle_at(&pool, 1L << 40) && !core_handle_at(&pool, -1));
    core_handle_pool_destroy(&pool);
}

/* Objects shared between threads (MPI_THREAD_MULTIPLE): one thread allocates NOBJ objects,
 * adding slab after slab (each a new hot slab and directory), and publishes each with
 * release; the other checks every published object, its index and a pointer into its
 * middle meanwhile. Under ThreadSanitizer this also shows the checks race with nothing. */
typedef struct share_run {
    core_handle_pool_t pool;
    obj_t *objs[NOBJ];
    int published;
    int bad;
} share_run_t;

static void *share_checker(void *arg)
{
    share_run_t *r = arg;
    int n;
    do {
        n = __atomic_load_n(&r->published, __ATOMIC_ACQUIRE);
        for (int i = 0; i < n; i++) {
            obj_t *o = r->objs[i];
            long at = core_handle_index(&r->pool, o);
            if (!core_handle_valid(&r->pool, o) || at < 0 || core_handle_at(&r->pool, at) != o ||
                core_handle_valid(&r->pool, o->payload + 8))
                r->bad++;
        }
    } while (n < NOBJ);
    return NULL;
}

static void shared_growth(void)
{
    share_run_t *r = calloc(1, sizeof(*r));
    r->pool = (core_handle_pool_t)CORE_HANDLE_POOL_INIT;
    core_handles_share(1);
    pthread_t th;
    int ok = pthread_create(&th, NULL, share_checker, r) == 0;
    for (int i = 0; i < NOBJ; i++) {
        r->objs[i] = core_handle_alloc(&r->pool, sizeof(obj_t));
        __atomic_store_n(&r->published, i + 1, __ATOMIC_RELEASE);
    }
    if (ok)
        pthread_join(th, NULL);
    core_handles_share(0);
    CHECK("shared-growth", ok && r->bad == 0 && r->pool.nslabs > 2);
    core_handle_pool_destroy(&r->pool);
    free(r);
}

int main(void)
{
    shared_growth();
    indices();
    basic();
    many();
    predefined();
    library_pools();
    return failures ? 1 : 0;
}
