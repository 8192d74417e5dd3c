/*
 * Memory events (memhooks.h): the handlers that libc's patched memory
 * functions jump to, the subscribers, the installation at load time and its
 * self-test. The patching itself is core/patch.c.
 *
 * Why patch code and not symbols: glibc's own callers (free's munmap_chunk,
 * realloc's mremap_chunk, malloc_trim's madvise, sbrk's brk) call the same
 * code address without going through the PLT, so interposing the symbol
 * misses exactly the events that matter.
 *
 * Why at load time, from a constructor: patching code that another thread
 * may be executing is not safe on x86 without making that thread serialize
 * (patch.c), which a library cannot do. In a program linked with librdmpi
 * the constructor runs before main(), before PMIx or the application start
 * any thread. When librdmpi is dlopen'ed by a program that already has
 * threads (Python with a thread pool, say), nothing is patched: the reason
 * is kept for core_memhooks_status(), and the verbs transport registers per
 * message. The cost for a process that never uses verbs is the patching and
 * the self-test once (a few mprotect calls and a 64 MiB mmap/munmap, about
 * a hundred microseconds) and one call more per munmap, mremap, madvise,
 * brk, shmat, shmdt and mmap (a load and a compare while nobody subscribes).
 *
 * The handlers report first and then make the system call themselves
 * (syscall(2)); brk also keeps glibc's __curbrk up to date as the original
 * did. State is process-wide and static because libc calls the handlers
 * with no context to pass.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/memhooks.h"
#include "core/patch.h"
#include "core/procfile.h"

#define PAGE_DOWN(a) ((uintptr_t)(a) & ~(uintptr_t)(page - 1))
#define PAGE_UP(a) (((uintptr_t)(a) + page - 1) & ~(uintptr_t)(page - 1))

static uintptr_t page = 4096;

/* ---- subscribers ---- */

static struct {
    _Atomic(core_mem_cb_t) cb;
    void *_Atomic arg;
    atomic_int busy;        /* handlers inside cb right now */
} subs[CORE_MEMHOOKS_MAX_SUBS];
static atomic_int nsubs;
static pthread_mutex_t subs_lock = PTHREAD_MUTEX_INITIALIZER;

static void notify(uintptr_t start, uintptr_t end, int event)
{
    if (atomic_load_explicit(&nsubs, memory_order_acquire) == 0 || end <= start)
        return;
    start = PAGE_DOWN(start);
    if (end < UINTPTR_MAX - page)
        end = PAGE_UP(end);
    for (int i = 0; i < CORE_MEMHOOKS_MAX_SUBS; i++) {
        if (!atomic_load_explicit(&subs[i].cb, memory_order_relaxed))
            continue;
        atomic_fetch_add(&subs[i].busy, 1);
        core_mem_cb_t cb = atomic_load(&subs[i].cb);
        if (cb)
            cb(atomic_load(&subs[i].arg), start, end, event);
        atomic_fetch_sub(&subs[i].busy, 1);
    }
}

int core_memhooks_subscribe(core_mem_cb_t cb, void *arg)
{
    int h = CORE_EBUSY;
    if (!core_memhooks_intact())
        return CORE_EUNSUPPORTED;
    pthread_mutex_lock(&subs_lock);
    for (int i = 0; i < CORE_MEMHOOKS_MAX_SUBS; i++) {
        if (atomic_load(&subs[i].cb))
            continue;
        atomic_store(&subs[i].arg, arg);
        atomic_store(&subs[i].cb, cb);
        atomic_fetch_add(&nsubs, 1);
        h = i;
        break;
    }
    pthread_mutex_unlock(&subs_lock);
    return h;
}

void core_memhooks_unsubscribe(int h)
{
    if (h < 0 || h >= CORE_MEMHOOKS_MAX_SUBS)
        return;
    pthread_mutex_lock(&subs_lock);
    if (atomic_exchange(&subs[h].cb, NULL))
        atomic_fetch_sub(&nsubs, 1);
    while (atomic_load(&subs[h].busy))
        sched_yield();
    pthread_mutex_unlock(&subs_lock);
}

/* A forked child has none of its parent's registrations, and a subscriber's
 * lock may have been held by a thread that does not exist in the child. */
static void atfork_child(void)
{
    for (int i = 0; i < CORE_MEMHOOKS_MAX_SUBS; i++) {
        atomic_store(&subs[i].cb, NULL);
        atomic_store(&subs[i].busy, 0);
    }
    atomic_store(&nsubs, 0);
    pthread_mutex_init(&subs_lock, NULL);
}

/* ---- System V segments: their sizes, for shmdt ---- */

#define SHM_SLOTS 64
#define SHM_CLAIMED ((uintptr_t)1)

static struct {
    _Atomic uintptr_t addr;  /* 0: free; SHM_CLAIMED: being written */
    size_t len;
} shm_segs[SHM_SLOTS];

static void shm_record(uintptr_t addr, size_t len)
{
    for (int i = 0; i < SHM_SLOTS; i++) {
        uintptr_t z = 0;
        if (atomic_compare_exchange_strong(&shm_segs[i].addr, &z, SHM_CLAIMED)) {
            shm_segs[i].len = len;
            atomic_store(&shm_segs[i].addr, addr);
            return;
        }
    }
    /* Full: shmdt of this segment will report everything above it. */
}

static size_t shm_take(uintptr_t addr)
{
    for (int i = 0; i < SHM_SLOTS; i++) {
        uintptr_t a = addr;
        if (atomic_load_explicit(&shm_segs[i].addr, memory_order_relaxed) == addr &&
            atomic_compare_exchange_strong(&shm_segs[i].addr, &a, SHM_CLAIMED)) {
            size_t len = shm_segs[i].len;
            atomic_store(&shm_segs[i].addr, 0);
            return len;
        }
    }
    return 0;
}

/* ---- the handlers ---- */

static void **curbrk; /* glibc's __curbrk, which its brk keeps */

static int h_munmap(void *addr, size_t len)
{
    notify((uintptr_t)addr, (uintptr_t)addr + len, CORE_MEM_UNMAP);
    return (int)syscall(SYS_munmap, addr, len);
}

/* mremap is variadic; its fifth argument is only read with MREMAP_FIXED,
 * and the register holds it whenever the caller passed it. */
static void *h_mremap(void *old, size_t old_len, size_t new_len, int flags, void *new_addr)
{
    if (flags & MREMAP_FIXED)
        notify((uintptr_t)new_addr, (uintptr_t)new_addr + new_len, CORE_MEM_REMAP);
    notify((uintptr_t)old, (uintptr_t)old + old_len, CORE_MEM_REMAP);
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

/* Advice that cannot put other pages behind an address; everything else
 * (DONTNEED, FREE, REMOVE, DONTNEED_LOCKED, PAGEOUT, HWPOISON, HUGEPAGE and
 * MERGEABLE which allow later collapsing or merging, advice newer than this
 * list) is reported. libibverbs itself calls DONTFORK on registration. */
static int advice_harmless(int advice)
{
    switch (advice) {
    case 0:  /* MADV_NORMAL */
    case 1:  /* MADV_RANDOM */
    case 2:  /* MADV_SEQUENTIAL */
    case 3:  /* MADV_WILLNEED */
    case 10: /* MADV_DONTFORK */
    case 11: /* MADV_DOFORK */
    case 13: /* MADV_UNMERGEABLE */
    case 15: /* MADV_NOHUGEPAGE */
    case 16: /* MADV_DONTDUMP */
    case 17: /* MADV_DODUMP */
    case 18: /* MADV_WIPEONFORK */
    case 19: /* MADV_KEEPONFORK */
    case 20: /* MADV_COLD */
    case 22: /* MADV_POPULATE_READ */
    case 23: /* MADV_POPULATE_WRITE */
        return 1;
    default:
        return 0;
    }
}

static int h_madvise(void *addr, size_t len, int advice)
{
    if (!advice_harmless(advice))
        notify((uintptr_t)addr, (uintptr_t)addr + len, CORE_MEM_DISCARD);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

static int h_brk(void *addr)
{
    uintptr_t old = (uintptr_t)*curbrk;
    if (!old)
        old = (uintptr_t)syscall(SYS_brk, 0);
    if (addr && (uintptr_t)addr < old) /* brk(NULL) only asks where the break is */
        notify((uintptr_t)addr, old, CORE_MEM_BRK);
    void *now = (void *)syscall(SYS_brk, addr);
    *curbrk = now;
    if ((uintptr_t)now < (uintptr_t)addr) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static void *h_shmat(int shmid, const void *addr, int flags)
{
    struct shmid_ds ds;
    size_t len = 0;
    if (shmctl(shmid, IPC_STAT, &ds) == 0)
        len = PAGE_UP(ds.shm_segsz);
    if (addr && (flags & SHM_REMAP)) {
        uintptr_t a = (uintptr_t)addr;
        if (flags & SHM_RND)
            a &= ~(uintptr_t)(SHMLBA - 1);
        notify(a, len ? a + len : UINTPTR_MAX, CORE_MEM_SHMDT);
    }
    long r = syscall(SYS_shmat, shmid, addr, flags);
    if (r != -1 && len)
        shm_record((uintptr_t)r, len);
    return (void *)r;
}

/* A segment attached before the hooks (or past the table) has no known
 * size: everything from its address up is reported, which only costs a
 * subscriber some registrations. */
static int h_shmdt(const void *addr)
{
    size_t len = shm_take((uintptr_t)addr);
    notify((uintptr_t)addr, len ? (uintptr_t)addr + len : UINTPTR_MAX, CORE_MEM_SHMDT);
    return (int)syscall(SYS_shmdt, addr);
}

static void *h_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if ((flags & MAP_FIXED) && addr)
        notify((uintptr_t)addr, (uintptr_t)addr + len, CORE_MEM_FIXED);
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* ---- the patches ---- */

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)

#define NTARGETS 7

static const struct {
    const char *name;
    void *handler;
} hooked[NTARGETS] = {
    { "munmap", (void *)h_munmap },  { "mremap", (void *)h_mremap }, { "madvise", (void *)h_madvise },
    { "brk", (void *)h_brk },        { "shmat", (void *)h_shmat },   { "shmdt", (void *)h_shmdt },
    { "mmap", (void *)h_mmap },
};
static core_patch_t patches[NTARGETS];
static atomic_int hooks_on;

static const char *patch_all(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (!libc)
        return "libc.so.6 is not loaded (static link?)";
    for (int i = 0; i < NTARGETS; i++) {
        patches[i].entry = dlsym(libc, hooked[i].name);
        patches[i].handler = hooked[i].handler;
    }
    curbrk = dlsym(libc, "__curbrk");
    dlclose(libc);
    for (int i = 0; i < NTARGETS; i++)
        if (!patches[i].entry)
            return "a libc memory function was not found";
    if (!curbrk)
        return "glibc's __curbrk was not found";
    const char *why = core_patch_prepare(patches, NTARGETS);
    if (!why)
        why = core_patch_apply(patches, NTARGETS);
    if (!why)
        atomic_store(&hooks_on, 1);
    return why;
}

static void unpatch_all(void)
{
    atomic_store(&hooks_on, 0);
    core_patch_revert(patches, NTARGETS);
}

int core_memhooks_intact(void)
{
    return atomic_load_explicit(&hooks_on, memory_order_acquire) &&
           core_patch_intact(patches, NTARGETS);
}

#else

static const char *patch_all(void)
{
    return "memory hooks exist for x86_64 Linux with glibc only";
}

static void unpatch_all(void)
{
}

int core_memhooks_intact(void)
{
    return 0;
}

#endif

/* ---- self-test ---- */

typedef struct selftest {
    _Atomic uintptr_t lo, hi;
    atomic_int seen;
} selftest_t;

static void selftest_cb(void *arg, uintptr_t start, uintptr_t end, int event)
{
    selftest_t *st = arg;
    (void)event;
    if (start < atomic_load(&st->hi) && end > atomic_load(&st->lo))
        atomic_store(&st->seen, 1);
}

static void arm(selftest_t *st, void *p, size_t len)
{
    atomic_store(&st->seen, 0);
    atomic_store(&st->lo, (uintptr_t)p);
    atomic_store(&st->hi, (uintptr_t)p + len);
}

static const char *self_test(void)
{
    static selftest_t st;
    const char *why = NULL;
    int h = core_memhooks_subscribe(selftest_cb, &st);
    if (h < 0)
        return "no subscriber slot for the self-test";
    /* Above glibc's largest dynamic mmap threshold (32 MiB): free() unmaps it. */
    size_t big = 64u << 20;
    void *p = malloc(big);
    if (!p) {
        why = "the self-test cannot allocate 64 MiB";
        goto out;
    }
    arm(&st, p, big);
    free(p);
    if (!atomic_load(&st.seen)) {
        why = "free() of a 64 MiB block was not seen (the allocator does not unmap through "
              "libc, e.g. AddressSanitizer's, or keeps freed memory)";
        goto out;
    }
    uint8_t *q = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) {
        why = "the self-test cannot map memory";
        goto out;
    }
    arm(&st, q, 2 * page);
    madvise(q, 2 * page, MADV_DONTFORK);
    madvise(q, 2 * page, MADV_DOFORK);
    if (atomic_load(&st.seen))
        why = "madvise(MADV_DONTFORK) was reported as a change";
    arm(&st, q, 2 * page);
    madvise(q, 2 * page, MADV_DONTNEED);
    if (!why && !atomic_load(&st.seen))
        why = "madvise(MADV_DONTNEED) was not seen";
    arm(&st, q, 2 * page);
    munmap(q, 2 * page);
    if (!why && !atomic_load(&st.seen))
        why = "munmap was not seen";
out:
    core_memhooks_unsubscribe(h);
    return why;
}

/* ---- installation, once, at load time ---- */

/* Written only by the constructor, while no other thread exists. */
static int install_rc = CORE_EUNSUPPORTED;
static const char *install_why = "the memory hooks were never installed (the library's "
                                 "constructor did not run)";

/* The number of threads of this process (/proc/self/status), or -1. */
static int threads_now(void)
{
    char buf[4096];
    if (core_procfile_read("/proc/self/status", buf, sizeof(buf)) < 0)
        return -1;
    const char *t = strstr(buf, "\nThreads:");
    return t ? atoi(t + 9) : -1;
}

/* The settings that turn the registration cache off, read here because the
 * constructor runs before the configuration is loaded (core/config.c has
 * the same rows: RDMPI_VERBS_RCACHE is a boolean, RDMPI_TRANSPORTS a comma
 * separated list). Without a cache nobody needs the hooks. */
static const char *not_wanted(void)
{
    const char *v = getenv("RDMPI_VERBS_RCACHE");
    if (v && (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
              !strcasecmp(v, "off")))
        return "RDMPI_VERBS_RCACHE=0: no memory hooks installed";
    v = getenv("RDMPI_TRANSPORTS");
    if (!v)
        return NULL;
    for (const char *p = v; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 5 && !strncmp(p, "verbs", 5))
            return NULL;
        p += len + (end ? 1 : 0);
    }
    return "RDMPI_TRANSPORTS does not allow verbs: no memory hooks installed";
}

static void install(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    if (pg > 0)
        page = (uintptr_t)pg;
    const char *why = not_wanted();
    if (!why) {
        int n = threads_now();
        if (n < 0)
            why = "the number of threads is unknown (no /proc): libc is not patched, as "
                  "another thread could be running the code being changed";
        else if (n > 1)
            why = "other threads were already running when the library was loaded (dlopen "
                  "from a threaded program?): libc is not patched, as they could be running "
                  "the code being changed";
    }
    if (!why) {
        why = patch_all();
        if (!why) {
            why = self_test();
            if (why)
                unpatch_all();
        }
    }
    if (!why)
        pthread_atfork(NULL, NULL, atfork_child);
    install_why = why;
    install_rc = why ? CORE_EUNSUPPORTED : 0;
}

/* Runs when the code holding this file is loaded: before main() in a
 * program linked with librdmpi, inside dlopen() otherwise. */
__attribute__((constructor)) static void memhooks_at_load(void)
{
    install();
}

int core_memhooks_status(const char **why)
{
    const char *w = install_why;
    int rc = install_rc;
    if (rc == 0 && !core_memhooks_intact()) {
        rc = CORE_EUNSUPPORTED;
        w = "the memory hooks were overwritten (another library patches libc's memory "
            "functions too)";
    }
    if (why)
        *why = rc ? w : NULL;
    return rc;
}
