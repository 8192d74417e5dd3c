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
 *
 * The hooks are installed by memhooks.c's constructor before main() runs
 * (this program links memhooks.c directly); the test also checks that:
 * - several threads mapping, remapping, discarding and unmapping their own
 *   memory in a loop have every event seen, while another thread keeps
 *   subscribing and unsubscribing (an unsubscribed callback is never running
 *   once unsubscribe returns);
 * - the choice of the instruction replaced by the jump (core_patch_site)
 *   takes one whole instruction of at least 5 bytes within one aligned
 *   16-byte block, after only undoable instructions, on the entries of this
 *   glibc and on made-up ones, and refuses the rest;
 * - RDMPI_VERBS_RCACHE=0 or RDMPI_TRANSPORTS without verbs leave libc
 *   untouched, with a reason (the program re-runs itself for that).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/memhooks.h"
#include "core/patch.h"

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

/* ---- where the jump goes (core_patch_site) ---- */

static void expect_site(const char *name, const uint8_t *code, size_t len, uintptr_t addr,
                        int want_site, int want_undo)
{
    int undo = -1, site = core_patch_site(code, len, addr, &undo);
    if (site == want_site && (site < 0 || undo == want_undo)) {
        printf("PASS: unit/memhooks/site_%s\n", name);
        return;
    }
    printf("FAIL: unit/memhooks/site_%s: site %d undo %d, expected site %d undo %d\n", name, site,
           undo, want_site, want_undo);
    failures++;
}

static void test_sites(void)
{
    /* The entries of Debian 12's glibc 2.36 (objdump -d libc.so.6). */
    static const uint8_t munmap_[] = { 0xb8, 0x0b, 0, 0, 0, 0x0f, 0x05, 0x48, 0x3d, 0x01, 0xf0,
                                       0xff, 0xff, 0x73, 0x01, 0xc3 };
    static const uint8_t mmap_[] = { 0x41, 0x89, 0xca, 0x41, 0xf7, 0xc1, 0xff, 0x0f, 0, 0,
                                     0x75, 0x14, 0xb8, 0x09, 0, 0, 0, 0x0f, 0x05 };
    static const uint8_t mremap_[] = { 0x48, 0x83, 0xec, 0x58, 0x4c, 0x89, 0x44, 0x24, 0x40,
                                       0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 };
    /* mov $nr,%eax is a whole 5-byte instruction: replaced in place. */
    expect_site("munmap_glibc236", munmap_, sizeof(munmap_), 0x101a00, 0, 0);
    /* mov %ecx,%r10d (3) then test $0xfff,%r9d (7): a jump at the entry would
     * cover two instructions; the test is replaced, after the mov. */
    expect_site("mmap_glibc236", mmap_, sizeof(mmap_), 0x1019a0, 3, 0);
    /* sub $0x58,%rsp (4) then mov %r8,0x40(%rsp) (5): the mov is replaced
     * and the slot gives the 0x58 bytes back. */
    expect_site("mremap_glibc236", mremap_, sizeof(mremap_), 0x1099d0, 4, 0x58);
    /* The same mremap at an address where the mov would cross a 16-byte
     * block: the next instruction may not come before a site (a store), so
     * no site. */
    expect_site("mremap_block_crossing_refused", mremap_, sizeof(mremap_), 0x1099d8, -1, 0);
    /* A CET build: endbr64 first. */
    static const uint8_t cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xb8, 0x0b, 0, 0, 0, 0x0f, 0x05 };
    expect_site("endbr64_then_mov", cet, sizeof(cet), 0x2000, 4, 0);
    /* push, sub, then a 7-byte RIP-relative load: both undone. */
    static const uint8_t frame[] = { 0x53, 0x48, 0x83, 0xec, 0x20, 0x48, 0x8b, 0x05, 1, 2, 3, 4 };
    expect_site("push_sub_then_load", frame, sizeof(frame), 0x3000, 5, 0x28);
    /* Refused: a jump someone else put there, a breakpoint, a short
     * instruction changing an argument register first, only short
     * instructions before the syscall, a function shorter than the jump. */
    static const uint8_t jumped[] = { 0xe9, 1, 2, 3, 4, 0x0f, 0x05 };
    expect_site("already_patched_refused", jumped, sizeof(jumped), 0x4000, -1, 0);
    static const uint8_t bp[] = { 0xcc, 0x0b, 0, 0, 0, 0x0f, 0x05 };
    expect_site("breakpoint_refused", bp, sizeof(bp), 0x4000, -1, 0);
    static const uint8_t argreg[] = { 0x31, 0xd2, 0xb8, 0x0b, 0, 0, 0, 0x0f, 0x05 };
    expect_site("argument_register_first_refused", argreg, sizeof(argreg), 0x4000, -1, 0);
    static const uint8_t shorts[] = { 0x41, 0x89, 0xca, 0x0f, 0x05, 0xc3 };
    expect_site("short_then_syscall_refused", shorts, sizeof(shorts), 0x4000, -1, 0);
    expect_site("function_too_short_refused", munmap_, 3, 0x4000, -1, 0);
}

/* ---- several threads at once ---- */

#define NTHREADS 4
#define STRESS_ITERS 1500

static struct {
    _Atomic uintptr_t lo, hi;
    atomic_int count;
} slot[NTHREADS];
static atomic_int stress_stop;

static void on_stress(void *arg, uintptr_t start, uintptr_t end, int event)
{
    (void)arg;
    (void)event;
    for (int i = 0; i < NTHREADS; i++)
        if (start < atomic_load(&slot[i].hi) && end > atomic_load(&slot[i].lo))
            atomic_fetch_add(&slot[i].count, 1);
}

static void slot_watch(int i, void *p, size_t len)
{
    atomic_store(&slot[i].lo, (uintptr_t)p);
    atomic_store(&slot[i].hi, (uintptr_t)p + len);
}

/* Counts the events one of this thread's calls should have caused and
 * were not seen. */
static void *stress_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    long missed = 0;
    for (int it = 0; it < STRESS_ITERS; it++) {
        char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return (void *)-1L;
        p[0] = 1;
        slot_watch(i, p, 2 * pg);
        int c = atomic_load(&slot[i].count);
        char *q = mremap(p, 2 * pg, 4 * pg, MREMAP_MAYMOVE);
        missed += atomic_load(&slot[i].count) == c;
        if (q == MAP_FAILED)
            return (void *)-1L;
        if (q[0] != 1)
            return (void *)-2L; /* the remap itself went wrong */
        slot_watch(i, q, 4 * pg);
        c = atomic_load(&slot[i].count);
        madvise(q, 4 * pg, MADV_DONTNEED);
        missed += atomic_load(&slot[i].count) == c;
        c = atomic_load(&slot[i].count);
        munmap(q, 4 * pg);
        missed += atomic_load(&slot[i].count) == c;
        if (it % 100 == 0) { /* free() of a block glibc maps by itself */
            char *b = malloc(64u << 20);
            b[0] = 1;
            slot_watch(i, b, 64u << 20);
            c = atomic_load(&slot[i].count);
            free(b);
            missed += atomic_load(&slot[i].count) == c;
        }
        slot_watch(i, NULL, 0);
    }
    return (void *)missed;
}

static atomic_int churn_inside;
static void on_churn(void *arg, uintptr_t start, uintptr_t end, int event)
{
    (void)arg, (void)start, (void)end, (void)event;
    atomic_fetch_add(&churn_inside, 1);
    for (volatile int k = 0; k < 100; k++)
        ;
    atomic_fetch_sub(&churn_inside, 1);
}

/* Subscribes and unsubscribes while the others run; counts the times a
 * callback was still running after unsubscribe had returned. */
static void *churn_thread(void *arg)
{
    (void)arg;
    long late = 0, rounds = 0;
    while (!atomic_load(&stress_stop)) {
        int h = core_memhooks_subscribe(on_churn, NULL);
        if (h < 0)
            return (void *)-1L;
        sched_yield();
        core_memhooks_unsubscribe(h);
        late += atomic_load(&churn_inside) != 0;
        rounds++;
    }
    return (void *)(rounds ? late : -1L);
}

static void test_threads(void)
{
    int h = core_memhooks_subscribe(on_stress, NULL);
    if (h < 0) {
        printf("FAIL: unit/memhooks/threads: subscribe: %d\n", h);
        failures++;
        return;
    }
    pthread_t t[NTHREADS], churn;
    atomic_store(&stress_stop, 0);
    pthread_create(&churn, NULL, churn_thread, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, stress_thread, (void *)(intptr_t)i);
    long missed = 0, broken = 0;
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        if ((long)r < 0)
            broken++;
        else
            missed += (long)r;
    }
    atomic_store(&stress_stop, 1);
    void *late;
    pthread_join(churn, &late);
    core_memhooks_unsubscribe(h);
    if (broken)
        printf("FAIL: unit/memhooks/threads: %ld threads saw mmap/mremap fail or move data wrong\n",
               broken);
    else if (missed)
        printf("FAIL: unit/memhooks/threads: %ld of %d events not seen\n", missed,
               NTHREADS * STRESS_ITERS * 3 + NTHREADS * STRESS_ITERS / 100);
    else
        printf("PASS: unit/memhooks/threads (%d threads x %d rounds of mmap, mremap, madvise, "
               "munmap, every event seen)\n", NTHREADS, STRESS_ITERS);
    failures += broken || missed;
    if ((long)late != 0) {
        printf("FAIL: unit/memhooks/unsubscribe_waits: %s\n",
               (long)late < 0 ? "no round" : "a callback ran after unsubscribe returned");
        failures++;
    } else {
        printf("PASS: unit/memhooks/unsubscribe_waits\n");
    }
}

/* ---- settings that keep libc untouched ---- */

/* Runs this program again with one more variable set; its --status mode
 * prints "on", or "off: <reason>" and whether libc's code was left as it is
 * on disk. */
static void expect_off_with(const char *var, const char *val, const char *want_why)
{
    char cmd[512], out[512] = "";
    snprintf(cmd, sizeof(cmd), "%s=%s /proc/%d/exe --status", var, val, (int)getpid());
    FILE *f = popen(cmd, "r");
    if (f) {
        if (!fgets(out, sizeof(out), f))
            out[0] = '\0';
        pclose(f);
    }
    out[strcspn(out, "\n")] = '\0';
    char name[96];
    snprintf(name, sizeof(name), "off_with_%s", var);
    if (strncmp(out, "off: ", 5) == 0 && strstr(out, want_why) && !strstr(out, " BUT "))
        printf("PASS: unit/memhooks/%s (%s)\n", name, out + 5);
    else {
        printf("FAIL: unit/memhooks/%s: %s=%s gave \"%s\"\n", name, var, val, out);
        failures++;
    }
}

/* Whether the first bytes of libc's fn in memory are those of the libc.so
 * file (the text segment is mapped at its file offset), or -1 if unknown. */
static int libc_untouched(const char *fn)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    const uint8_t *f = libc ? dlsym(libc, fn) : NULL;
    Dl_info info;
    uint8_t disk[32];
    if (libc)
        dlclose(libc);
    if (!f || !dladdr(f, &info) || !info.dli_fname)
        return -1;
    FILE *lib = fopen(info.dli_fname, "rb");
    if (!lib)
        return -1;
    int ok = fseek(lib, (long)(f - (const uint8_t *)info.dli_fbase), SEEK_SET) == 0 &&
             fread(disk, 1, sizeof(disk), lib) == sizeof(disk);
    fclose(lib);
    return ok ? !memcmp(disk, f, sizeof(disk)) : -1;
}

static int print_status(void)
{
    const char *why;
    int rc = core_memhooks_status(&why);
    int untouched = libc_untouched("munmap") == 1 && libc_untouched("mmap") == 1 &&
                    libc_untouched("mremap") == 1;
    if (rc == 0)
        printf("on%s\n", untouched ? " BUT LIBC IS AS ON DISK" : "");
    else
        printf("off: %s%s\n", why ? why : "(no reason)",
               untouched ? "" : " BUT LIBC'S CODE WAS CHANGED");
    return 0;
}

int main(int argc, char **argv)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    if (argc > 1 && !strcmp(argv[1], "--status"))
        return print_status();
    test_sites();
    const char *why = NULL;
    int rc = core_memhooks_status(&why);
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
    if (why != NULL || !core_memhooks_intact()) {
        printf("FAIL: unit/memhooks/status: a reason with status 0, or not intact\n");
        failures++;
    }
    expect_off_with("RDMPI_VERBS_RCACHE", "off", "RDMPI_VERBS_RCACHE=0");
    expect_off_with("RDMPI_TRANSPORTS", "self,shm,tcp", "RDMPI_TRANSPORTS");
    int h = core_memhooks_subscribe(on_event, NULL);
    if (h < 0) {
        printf("FAIL: unit/memhooks/subscribe: %d\n", h);
        return 1;
    }
    test_malloc();
    test_syscalls();
    test_heap();
    test_unsubscribe(h);
    test_threads();
    return failures ? 1 : 0;
}
