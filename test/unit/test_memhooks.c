/*
 * The memory-event hooks (src/core/memhooks.c) without any RDMA device: a
 * subscriber watching a range must be told, before the pages change, about
 * every way the range can get other pages behind it: free() of a large
 * malloc block, realloc growth (mremap), munmap, mremap, madvise(DONTNEED,
 * FREE), malloc_trim, a heap trimmed by free(), sbrk shrinking, shmdt,
 * mmap(MAP_FIXED) over it, and from another thread; and must NOT be told
 * about madvise(DONTFORK), which libibverbs calls on every registration.
 * Under AddressSanitizer (whose malloc does not unmap through libc) the
 * hooks must refuse to install, with a reason, and leave libc working.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/memhooks.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static int failures;
static size_t pg;

/* What the subscriber saw of the watched range. */
static _Atomic uintptr_t w_lo, w_hi;
static atomic_int hits, mapped_before, last_event;
static _Atomic uintptr_t last_end;

static void on_event(void *arg, uintptr_t start, uintptr_t end, int event)
{
    (void)arg;
    uintptr_t lo = atomic_load(&w_lo), hi = atomic_load(&w_hi);
    if (start >= hi || end <= lo)
        return;
    atomic_fetch_add(&hits, 1);
    atomic_store(&last_event, event);
    atomic_store(&last_end, end);
    /* Reported before the change: the first watched page is still mapped. */
    unsigned char v;
    uintptr_t p = (start > lo ? start : lo) & ~(uintptr_t)(pg - 1);
    if (syscall(SYS_mincore, (void *)p, pg, &v) == 0)
        atomic_fetch_add(&mapped_before, 1);
}

static void watch(const void *p, size_t len)
{
    atomic_store(&hits, 0);
    atomic_store(&mapped_before, 0);
    atomic_store(&last_event, 0);
    atomic_store(&w_lo, (uintptr_t)p);
    atomic_store(&w_hi, (uintptr_t)p + len);
}

static void unwatch(void)
{
    atomic_store(&w_lo, 0);
    atomic_store(&w_hi, 0);
}

/* want_event: the watched range must (1) or must not (0) have been reported;
 * want_mapped: and still been mapped when it was. */
static void expect(const char *name, int want_event, int want_kind, int want_mapped)
{
    int h = atomic_load(&hits), k = atomic_load(&last_event);
    unwatch();
    if (want_event && !h)
        printf("FAIL: unit/memhooks/%s: not reported\n", name);
    else if (!want_event && h)
        printf("FAIL: unit/memhooks/%s: reported (event %d) but must not be\n", name, k);
    else if (want_event && want_kind && k != want_kind)
        printf("FAIL: unit/memhooks/%s: reported as event %d, expected %d\n", name, k, want_kind);
    else if (want_event && want_mapped && atomic_load(&mapped_before) == 0)
        printf("FAIL: unit/memhooks/%s: reported after the pages were already gone\n", name);
    else {
        printf("PASS: unit/memhooks/%s\n", name);
        return;
    }
    failures++;
}

static void *map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("FAIL: unit/memhooks: mmap of %zu bytes failed\n", len);
        exit(1);
    }
    memset(p, 1, len);
    return p;
}

static void *thread_free(void *p)
{
    free(p);
    return NULL;
}

static void test_malloc(void)
{
    size_t big = 64u << 20;
    char *p = malloc(big);
    p[0] = 1;
    watch(p, big);
    free(p);
    expect("free_big_block", 1, CORE_MEM_UNMAP, 1);

    /* Growth of an mmapped block moves it with mremap: the old range goes. */
    p = malloc(40u << 20);
    p[0] = 1;
    watch(p, 40u << 20);
    char *q = realloc(p, 80u << 20);
    expect("realloc_grow_mremap", 1, CORE_MEM_REMAP, 1);
    watch(q, 80u << 20);
    free(q);
    expect("free_after_realloc", 1, CORE_MEM_UNMAP, 1);

    /* The same from another thread. */
    p = malloc(big);
    p[0] = 1;
    watch(p, big);
    pthread_t t;
    pthread_create(&t, NULL, thread_free, p);
    pthread_join(t, NULL);
    expect("free_other_thread", 1, CORE_MEM_UNMAP, 1);
}

static void test_syscalls(void)
{
    char *p = map(4 * pg);
    watch(p + pg, pg);
    munmap(p, 4 * pg);
    expect("munmap", 1, CORE_MEM_UNMAP, 1);

    p = map(4 * pg);
    watch(p, 4 * pg);
    char *q = mremap(p, 4 * pg, 64 * pg, MREMAP_MAYMOVE);
    expect("mremap", 1, CORE_MEM_REMAP, 1);
    munmap(q, 64 * pg);

    p = map(4 * pg);
    watch(p, 4 * pg);
    madvise(p, 4 * pg, MADV_DONTFORK);
    madvise(p, 4 * pg, MADV_DOFORK);
    madvise(p, 4 * pg, MADV_WILLNEED);
    expect("madvise_dontfork_not_reported", 0, 0, 0);
    watch(p + 2 * pg, pg);
    madvise(p, 4 * pg, MADV_DONTNEED);
    expect("madvise_dontneed", 1, CORE_MEM_DISCARD, 1);
    watch(p, pg);
    madvise(p, pg, MADV_FREE);
    expect("madvise_free", 1, CORE_MEM_DISCARD, 1);
    watch(p, 4 * pg);
    q = mmap(p + pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    expect("mmap_fixed_over", 1, CORE_MEM_FIXED, 1);
    watch(p, 4 * pg);
    q = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    expect("mmap_elsewhere_not_reported", 0, 0, 0);
    munmap(q, pg);
    munmap(p, 4 * pg);

    int id = shmget(IPC_PRIVATE, 1u << 20, IPC_CREAT | 0600);
    if (id < 0) {
        printf("SKIP: unit/memhooks/shmdt: shmget failed\n");
        return;
    }
    p = shmat(id, NULL, 0);
    shmctl(id, IPC_RMID, NULL);
    if (p == (void *)-1) {
        printf("SKIP: unit/memhooks/shmdt: shmat failed\n");
        return;
    }
    p[0] = 1;
    watch(p + (512u << 10), pg);
    shmdt(p);
    uintptr_t end = atomic_load(&last_end);
    expect("shmdt", 1, CORE_MEM_SHMDT, 1);
    if (end != (uintptr_t)p + (1u << 20)) {
        printf("FAIL: unit/memhooks/shmdt_size: reported up to %#lx, segment ends at %#lx\n",
               (unsigned long)end, (unsigned long)((uintptr_t)p + (1u << 20)));
        failures++;
    } else {
        printf("PASS: unit/memhooks/shmdt_size\n");
    }
}

static void test_heap(void)
{
    /* Heap blocks: served from brk, not mmap, from here on. */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    char *a = malloc(8u << 20), *b = malloc(64);
    memset(a, 1, 8u << 20);
    uintptr_t inside = (uintptr_t)a + (2u << 20); /* freed but not yet given back */
    free(a);
    watch((void *)inside, 1u << 20);
    malloc_trim(0);
    expect("malloc_trim", 1, 0, 1);
    free(b);

    /* free() of the top block trims the heap through sbrk -> brk. */
    mallopt(M_TRIM_THRESHOLD, 64 << 10);
    a = malloc(4u << 20);
    memset(a, 1, 4u << 20);
    watch(a + (2u << 20), 1u << 20);
    free(a);
    expect("free_heap_top_brk", 1, CORE_MEM_BRK, 1);
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    mallopt(M_TRIM_THRESHOLD, 128 << 10);

    char *top = sbrk(0);
    if (sbrk((intptr_t)(1u << 20)) == (void *)-1) {
        printf("SKIP: unit/memhooks/sbrk_shrink: sbrk failed\n");
        return;
    }
    top[0] = 1;
    watch(top, 1u << 20);
    sbrk(-(intptr_t)(1u << 20));
    expect("sbrk_shrink", 1, CORE_MEM_BRK, 1);
    if (sbrk(0) != top) {
        printf("FAIL: unit/memhooks/sbrk_curbrk: the break is %p after shrinking, expected %p\n",
               sbrk(0), (void *)top);
        failures++;
    } else {
        printf("PASS: unit/memhooks/sbrk_curbrk\n");
    }
}

static void test_unsubscribe(int h)
{
    core_memhooks_unsubscribe(h);
    char *p = map(pg);
    watch(p, pg);
    munmap(p, pg);
    expect("after_unsubscribe", 0, 0, 0);
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    const char *why = NULL;
    int rc = core_memhooks_install(&why);
    if (rc != 0) {
        /* Off must mean off cleanly: a reason, no subscribers, libc intact. */
        int sub = core_memhooks_subscribe(on_event, NULL);
        char *p = malloc(64u << 20), *q = map(4 * pg);
        free(p);
        madvise(q, 4 * pg, MADV_DONTNEED);
        munmap(q, 4 * pg);
        int clean = why && why[0] && sub == CORE_EUNSUPPORTED && !core_memhooks_intact();
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
        if (UNDER_ASAN && clean) {
            printf("PASS: unit/memhooks/asan_off_cleanly (%s)\n", why);
            return 0;
        }
        printf("FAIL: unit/memhooks/install: %s%s\n", why ? why : "(no reason)",
               clean ? "" : " (and not off cleanly)");
        return 1;
#else
        printf("%s: unit/memhooks/install: off on this platform: %s\n", clean ? "SKIP" : "FAIL",
               why ? why : "(no reason)");
        return clean ? 0 : 1;
#endif
    }
    if (UNDER_ASAN)
        printf("PASS: unit/memhooks/install under AddressSanitizer (its allocator unmaps "
               "through libc here)\n");
    else
        printf("PASS: unit/memhooks/install\n");
    int again = core_memhooks_install(NULL);
    if (again != 0 || !core_memhooks_intact()) {
        printf("FAIL: unit/memhooks/install_twice\n");
        failures++;
    }
    int h = core_memhooks_subscribe(on_event, NULL);
    if (h < 0) {
        printf("FAIL: unit/memhooks/subscribe: %d\n", h);
        return 1;
    }
    test_malloc();
    test_syscalls();
    test_heap();
    test_unsubscribe(h);
    return failures ? 1 : 0;
}
