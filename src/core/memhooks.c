/*
 * Memory events (memhooks.h): the patches on libc's entry points, their
 * handlers, the subscribers and the self-test.
 *
 * Why patch code and not symbols: glibc's own callers (free's munmap_chunk,
 * realloc's mremap_chunk, malloc_trim's madvise, sbrk's brk) call the same
 * code address without going through the PLT, so interposing the symbol
 * misses exactly the events that matter. So the first instruction(s) of each
 * function are replaced with a 5-byte relative jump to a trampoline page
 * mapped within 2 GiB of libc, whose slots jump to the handlers here.
 *
 * Why 5 bytes, and not a 13-byte absolute jump: the syscall stubs (munmap,
 * madvise, brk, shmat, shmdt) start with "mov $nr,%eax; syscall; ...". A
 * thread that is inside the system call while we patch returns to the byte
 * after the syscall instruction: a jump longer than the mov would have
 * overwritten it. The 5 bytes (plus int3 padding up to the next instruction
 * boundary, found by a small decoder that also refuses entries it does not
 * know, such as a jump another library already put there) are written with
 * one 16-byte atomic compare-and-swap, so a thread that enters the function
 * while we write sees either the old entry or the new one.
 *
 * The handlers report first and then make the system call themselves
 * (syscall(2)); brk also keeps glibc's __curbrk up to date as the original
 * did. State is process-wide and static because libc calls the handlers
 * with no context to pass.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/errors.h"
#include "core/memhooks.h"

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

/* ---- patching (x86_64) ---- */

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)

#define NTARGETS 7
#define TRAMP_SLOT 16

typedef struct target {
    const char *name;
    void *handler;
    uint8_t *entry;         /* libc's code */
    uint8_t orig[16];       /* the 16-byte block at entry, before */
    uint8_t patched[16];    /* ... and after */
    int done;
} target_t;

static target_t targets[NTARGETS] = {
    { "munmap", (void *)h_munmap, NULL, { 0 }, { 0 }, 0 },
    { "mremap", (void *)h_mremap, NULL, { 0 }, { 0 }, 0 },
    { "madvise", (void *)h_madvise, NULL, { 0 }, { 0 }, 0 },
    { "brk", (void *)h_brk, NULL, { 0 }, { 0 }, 0 },
    { "shmat", (void *)h_shmat, NULL, { 0 }, { 0 }, 0 },
    { "shmdt", (void *)h_shmdt, NULL, { 0 }, { 0 }, 0 },
    { "mmap", (void *)h_mmap, NULL, { 0 }, { 0 }, 0 },
};
static atomic_int hooks_on;

/* Bytes taken by a ModRM operand (ModRM, SIB, displacement). */
static int modrm_len(const uint8_t *p)
{
    int mod = p[0] >> 6, rm = p[0] & 7, n = 1;
    if (mod == 3)
        return 1;
    if (rm == 4) {
        n++;
        if (mod == 0 && (p[1] & 7) == 5)
            n += 4;
    } else if (mod == 0 && rm == 5) {
        n += 4; /* RIP-relative: fine, the code is never run again */
    }
    return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* Length of one instruction of the kinds function entries start with, or 0
 * for anything else: a jump, a breakpoint, or code we do not know, which we
 * then refuse to overwrite. */
static int insn_len(const uint8_t *p)
{
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
    if (!memcmp(p, endbr64, 4))
        return 4;
    int n = 0, rexw = 0;
    if ((p[0] & 0xf0) == 0x40) {
        rexw = p[0] & 8;
        n++;
    }
    uint8_t op = p[n++];
    if (op >= 0x50 && op <= 0x57)             /* push reg */
        return n;
    if (op >= 0xb8 && op <= 0xbf)             /* mov $imm, reg */
        return n + (rexw ? 8 : 4);
    switch (op) {
    case 0x01: case 0x03: case 0x09: case 0x0b: case 0x21: case 0x23: case 0x29: case 0x2b:
    case 0x31: case 0x33: case 0x39: case 0x3b: case 0x85: case 0x89: case 0x8b: case 0x8d:
        return n + modrm_len(p + n);         /* add/or/and/sub/xor/cmp/test/mov/lea r, r/m */
    case 0x83:
        return n + modrm_len(p + n) + 1;     /* group 1, imm8 */
    case 0x81:
        return n + modrm_len(p + n) + 4;     /* group 1, imm32 */
    case 0xc7:
    case 0xf7:                               /* mov/test r/m, imm32 */
        return ((p[n] >> 3) & 7) == 0 ? n + modrm_len(p + n) + 4 : 0;
    default:
        return 0;
    }
}

/* One 16-byte atomic compare-and-swap on code: a thread entering the
 * function sees the old bytes or the new ones, never a mix. */
static int cas16(uint8_t *p, const uint8_t old[16], const uint8_t new_[16])
{
    uint64_t o[2], n[2];
    unsigned char ok;
    memcpy(o, old, 16);
    memcpy(n, new_, 16);
    __asm__ __volatile__("lock cmpxchg16b %1\n\tsete %0"
                         : "=q"(ok), "+m"(*(volatile unsigned __int128 *)(void *)p),
                           "+a"(o[0]), "+d"(o[1])
                         : "b"(n[0]), "c"(n[1])
                         : "memory", "cc");
    return ok;
}

static int write_code(uint8_t *p, const uint8_t old[16], const uint8_t new_[16])
{
    uint8_t *pg = (uint8_t *)PAGE_DOWN(p);
    if (mprotect(pg, page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return -1;
    int ok = cas16(p, old, new_);
    mprotect(pg, page, PROT_READ | PROT_EXEC);
    return ok ? 0 : -1;
}

/* A page within 2 GiB of near holding one absolute jump per target. */
static uint8_t *tramp_create(uintptr_t near)
{
    const uintptr_t step = 16u << 20, reach = 0x7fff0000u;
    for (int i = 1; i <= 120; i++) {
        uintptr_t hint = (i & 1) ? near - (uintptr_t)((i + 1) / 2) * step
                                 : near + (uintptr_t)(i / 2) * step;
        uint8_t *t = mmap((void *)PAGE_DOWN(hint), page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED)
            return NULL;
        uintptr_t d = (uintptr_t)t > near ? (uintptr_t)t - near : near - (uintptr_t)t;
        if (d < reach)
            return t;
        munmap(t, page);
    }
    return NULL;
}

/* Plans the patch of t: where the jump goes and what the 16 bytes become. */
static const char *plan(target_t *t, const uint8_t *slot)
{
    ElfW(Sym) *sym = NULL;
    Dl_info info;
    if (((uintptr_t)t->entry & 15) != 0)
        return "a libc entry point is not 16-byte aligned";
    if (!dladdr1(t->entry, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return "the size of a libc function is unknown";
    memcpy(t->orig, t->entry, 16);
    int off = insn_len(t->orig) == 4 && t->orig[0] == 0xf3 ? 4 : 0; /* keep endbr64 */
    int end = off;
    while (end < off + 5) {
        int n = end < 12 ? insn_len(t->orig + end) : 0;
        if (n == 0)
            return "a libc memory function does not start with code we know how to patch "
                   "(already patched by another library, or a debugger breakpoint?)";
        end += n;
    }
    if (end > 16 || (size_t)end > sym->st_size)
        return "a libc memory function is too short to patch";
    memcpy(t->patched, t->orig, 16);
    int32_t rel = (int32_t)((intptr_t)slot - (intptr_t)(t->entry + off + 5));
    t->patched[off] = 0xe9;
    memcpy(t->patched + off + 1, &rel, 4);
    memset(t->patched + off + 5, 0xcc, (size_t)(end - off - 5));
    return NULL;
}

static void unpatch_all(void)
{
    atomic_store(&hooks_on, 0);
    for (int i = NTARGETS - 1; i >= 0; i--) {
        if (targets[i].done && write_code(targets[i].entry, targets[i].patched,
                                          targets[i].orig) == 0)
            targets[i].done = 0;
    }
}

static const char *patch_all(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (!libc)
        return "libc.so.6 is not loaded (static link?)";
    for (int i = 0; i < NTARGETS; i++)
        targets[i].entry = dlsym(libc, targets[i].name);
    curbrk = dlsym(libc, "__curbrk");
    dlclose(libc);
    for (int i = 0; i < NTARGETS; i++)
        if (!targets[i].entry)
            return "a libc memory function was not found";
    if (!curbrk)
        return "glibc's __curbrk was not found";
    uint8_t *tramp = tramp_create((uintptr_t)targets[0].entry);
    if (!tramp)
        return "no page for jump slots within 2 GiB of libc";
    for (int i = 0; i < NTARGETS; i++) {
        uint8_t *slot = tramp + i * TRAMP_SLOT;
        uint64_t to = (uint64_t)(uintptr_t)targets[i].handler;
        static const uint8_t jmp_abs[6] = { 0xff, 0x25, 0, 0, 0, 0 }; /* jmp *0(%rip) */
        memcpy(slot, jmp_abs, 6);
        memcpy(slot + 6, &to, 8);
        slot[14] = slot[15] = 0xcc;
        uintptr_t d = (uintptr_t)slot > (uintptr_t)targets[i].entry
                          ? (uintptr_t)slot - (uintptr_t)targets[i].entry
                          : (uintptr_t)targets[i].entry - (uintptr_t)slot;
        if (d >= 0x7fff0000u)
            return "libc's memory functions are too far apart";
        const char *why = plan(&targets[i], slot);
        if (why)
            return why;
    }
    if (mprotect(tramp, page, PROT_READ | PROT_EXEC) != 0)
        return "the jump slots cannot be made executable";
    for (int i = 0; i < NTARGETS; i++) {
        if (write_code(targets[i].entry, targets[i].orig, targets[i].patched) != 0) {
            unpatch_all();
            return "libc's code cannot be made writable (mprotect refused)";
        }
        targets[i].done = 1;
    }
    atomic_store(&hooks_on, 1);
    return NULL;
}

int core_memhooks_intact(void)
{
    if (!atomic_load_explicit(&hooks_on, memory_order_acquire))
        return 0;
    for (int i = 0; i < NTARGETS; i++)
        if (memcmp(targets[i].entry, targets[i].patched, 16) != 0)
            return 0;
    return 1;
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

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int install_rc = 1; /* 1: not tried yet */
static const char *install_why;

int core_memhooks_install(const char **why)
{
    pthread_mutex_lock(&install_lock);
    if (install_rc == 1) {
        long pg = sysconf(_SC_PAGESIZE);
        if (pg > 0)
            page = (uintptr_t)pg;
        install_why = patch_all();
        if (!install_why) {
            install_why = self_test();
            if (install_why)
                unpatch_all();
        }
        if (!install_why)
            pthread_atfork(NULL, NULL, atfork_child);
        install_rc = install_why ? CORE_EUNSUPPORTED : 0;
    }
    int rc = install_rc;
    if (why)
        *why = install_why;
    pthread_mutex_unlock(&install_lock);
    return rc;
}
