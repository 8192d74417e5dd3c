/*
 * Code patching (patch.h): a decoder for the few instructions that start
 * libc's memory functions, the choice of the instruction to replace, the
 * jump slots, and the atomic writes.
 *
 * What a thread may be doing while a function is patched, and why each case
 * is safe (a "half-written" patch is any moment where some thread could
 * execute bytes that are neither the old code nor the new):
 *
 * 1. Entering the function: the jump's 5 bytes lie in one aligned 16-byte
 *    block written with one `lock cmpxchg16b`, so a thread reads the old
 *    block or the new one, never a mix. (The old 16 bytes are also what the
 *    compare checks: code someone else changed meanwhile is left alone.)
 * 2. Stopped (preempted, or inside a signal handler) between two
 *    instructions at the entry: if the jump covered the end of one
 *    instruction and the start of the next, such a thread would resume in
 *    the middle of the jump's displacement. That is what a plain 5-byte
 *    jump at `mmap` (3 + 7 byte instructions on Debian 12's glibc) or
 *    `mremap` (4 + 5) did. So the jump replaces exactly one instruction
 *    that is at least 5 bytes long; the bytes after the jump up to that
 *    instruction's end are never reached by anyone (no thread can stop
 *    inside an instruction). The instructions before it stay and run as
 *    before; the decoder accepts there only ones whose effect the slot can
 *    undo (`sub $n,%rsp`, `push`: the slot adds the bytes back) or that only
 *    write scratch registers (`mov ...,%r10d` in mmap; endbr64), so the
 *    handler starts with the arguments and return address of a call.
 *    On this machine's glibc (Debian 12, 2.36): munmap, madvise, brk, shmat,
 *    shmdt: the 5-byte `mov $nr,%eax` at the entry; mmap: the 7-byte
 *    `test $0xfff,%r9d` at +3, after `mov %ecx,%r10d`; mremap: the 5-byte
 *    `mov %r8,0x40(%rsp)` at +4, after `sub $0x58,%rsp`.
 * 3. Inside the system call (past the replaced instruction): it returns to
 *    the instruction after `syscall`, which is never touched (the jump is
 *    within the one instruction, and that comes before any branch or
 *    syscall, because the decoder stops at anything it does not know).
 *
 * What this does NOT make safe is another core executing the block while it
 * changes: Intel's and AMD's manuals ask that code modified by one processor
 * be executed by another only after a serializing instruction on that other
 * processor (unsynchronized cross-modifying code may fault on some parts;
 * Linux's text_poke_bp needs int3 traps and IPIs for that reason). A library
 * cannot make other threads serialize, so the caller patches only while it
 * is the only thread (memhooks.c: from a constructor, checked).
 *
 * How others do it, for contrast: UCX's ucm (bistro) and Open MPI's patcher
 * write a 13-byte `movabs $addr,%r11; jmp *%r11` with memcpy, non-atomic and
 * across several instructions, at initialization with whatever threads exist
 * (PMIx's and the application's); MVAPICH2 interposes the munmap symbol,
 * which misses libc's internal calls (free, realloc, malloc_trim).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/patch.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>

#define SCAN 32      /* bytes of a function looked at for a site */
#define SLOT 32      /* bytes per jump slot */
#define REACH 0x7fff0000u
#define MAX_PATCHES 16

typedef struct insn {
    int len;    /* 0: not one we know */
    int before; /* may come before the replaced instruction */
    int stack;  /* bytes it takes off the stack */
} insn_t;

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
        n += 4; /* RIP-relative: fine in the replaced instruction, which never runs again */
    }
    return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* Registers a handler may find changed: rax (al is only read by variadic
 * callees, and the handlers are not variadic), r10, r11. */
static int scratch(int reg)
{
    return reg == 0 || reg == 10 || reg == 11;
}

/* Decodes one instruction of the kinds function entries start with. p has
 * at least 15 readable bytes. Jumps, calls, returns, syscall and int3 are
 * deliberately unknown: a site must come before them, and an entry that
 * starts with a jump has been patched by someone else. */
static insn_t decode(const uint8_t *p)
{
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
    insn_t in = { 0, 0, 0 };
    if (!memcmp(p, endbr64, 4)) {
        in.len = 4;
        in.before = 1;
        return in;
    }
    int n = 0, seg = 0, rex = 0;
    if (p[n] == 0x64 || p[n] == 0x65) { /* %fs/%gs: the stack protector's canary load */
        seg = 1;
        n++;
    }
    if ((p[n] & 0xf0) == 0x40)
        rex = p[n++];
    int w = rex & 8, rx = (rex & 4) << 1, bx = (rex & 1) << 3;
    uint8_t op = p[n++];
    const uint8_t *m = p + n; /* the ModRM byte, for the opcodes that have one */
    int reg = ((m[0] >> 3) & 7) | rx, rm = (m[0] & 7) | bx, direct = (m[0] >> 6) == 3;
    if (op >= 0x50 && op <= 0x57) { /* push %reg */
        in.len = n;
        in.before = !seg && (rex & 0x0e) == 0;
        in.stack = 8;
        return in;
    }
    if (op >= 0xb8 && op <= 0xbf) { /* mov $imm, %reg */
        in.len = n + (w ? 8 : 4);
        in.before = !seg && scratch((op & 7) | bx);
        return in;
    }
    switch (op) {
    case 0x89: /* mov %reg, r/m */
        in.len = n + modrm_len(m);
        in.before = !seg && direct && scratch(rm);
        return in;
    case 0x8b: /* mov r/m, %reg */
        in.len = n + modrm_len(m);
        in.before = !seg && direct && scratch(reg);
        return in;
    case 0x01: case 0x03: case 0x09: case 0x0b: case 0x21: case 0x23: case 0x29: case 0x2b:
    case 0x31: case 0x33: case 0x39: case 0x3b: case 0x85: case 0x8d:
        in.len = n + modrm_len(m); /* add/or/and/sub/xor/cmp/test/lea */
        return in;
    case 0x81:
    case 0x83: { /* group 1 with an immediate; sub $imm,%rsp may come before */
        int imm_len = op == 0x83 ? 1 : 4;
        in.len = n + modrm_len(m) + imm_len;
        if (!seg && w && !bx && m[0] == 0xec) {
            int32_t imm;
            if (op == 0x83)
                imm = (int8_t)m[1];
            else
                memcpy(&imm, m + 1, 4);
            if (imm > 0 && imm % 8 == 0) {
                in.before = 1;
                in.stack = imm;
            }
        }
        return in;
    }
    case 0xc7:
    case 0xf7: /* mov/test r/m, $imm32 */
        if (((m[0] >> 3) & 7) == 0)
            in.len = n + modrm_len(m) + 4;
        return in;
    default:
        return in;
    }
}

int core_patch_site(const uint8_t *code, size_t len, uintptr_t addr, int *undo)
{
    uint8_t buf[SCAN + 16];
    memset(buf, 0xcc, sizeof(buf)); /* int3: unknown, so the scan stops at the end */
    memcpy(buf, code, len < SCAN ? len : SCAN);
    size_t off = 0;
    int stack = 0;
    while (off < SCAN) {
        insn_t in = decode(buf + off);
        if (in.len == 0 || off + (size_t)in.len > len)
            return -1;
        if (in.len >= 5 && ((addr + off) & 15) + 5 <= 16) {
            *undo = stack;
            return (int)off;
        }
        if (!in.before)
            return -1;
        stack += in.stack;
        off += (size_t)in.len;
    }
    return -1;
}

/* One locked 16-byte compare-and-swap: every other agent sees the old
 * block or the new one. */
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

static int write_block(uint8_t *block, const uint8_t old[16], const uint8_t new_[16])
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uint8_t *page = (uint8_t *)((uintptr_t)block & ~(pg - 1));
    /* Executable throughout: a signal handler of this thread may run other
     * code of the page meanwhile. */
    if (mprotect(page, pg, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return -1;
    int ok = cas16(block, old, new_);
    mprotect(page, pg, PROT_READ | PROT_EXEC);
    return ok ? 0 : -1;
}

/* A page within REACH of near, for the slots. It is never unmapped: a
 * thread may be on its way through a slot at any time, even after the
 * patches are taken back. */
static uint8_t *slots_create(uintptr_t near, uintptr_t pg)
{
    const uintptr_t step = 16u << 20;
    for (int i = 1; i <= 120; i++) {
        uintptr_t hint = (i & 1) ? near - (uintptr_t)((i + 1) / 2) * step
                                 : near + (uintptr_t)(i / 2) * step;
        uint8_t *t = mmap((void *)(hint & ~(pg - 1)), pg, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED)
            return NULL;
        uintptr_t d = (uintptr_t)t > near ? (uintptr_t)t - near : near - (uintptr_t)t;
        if (d < REACH / 2)
            return t;
        munmap(t, pg);
    }
    return NULL;
}

/* The slot: `add $undo,%rsp` when the instructions before the site took
 * stack, then `jmp *0(%rip)` and the handler's address. */
static void slot_write(uint8_t *slot, int undo, void *handler)
{
    static const uint8_t jmp_abs[6] = { 0xff, 0x25, 0, 0, 0, 0 };
    int n = 0;
    memset(slot, 0xcc, SLOT);
    if (undo) {
        slot[n++] = 0x48;
        slot[n++] = 0x81;
        slot[n++] = 0xc4;
        int32_t imm = undo;
        memcpy(slot + n, &imm, 4);
        n += 4;
    }
    memcpy(slot + n, jmp_abs, 6);
    n += 6;
    uint64_t to = (uint64_t)(uintptr_t)handler;
    memcpy(slot + n, &to, 8);
}

const char *core_patch_prepare(core_patch_t *p, int n)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 13)))
        return "the processor has no 16-byte compare-and-swap (cmpxchg16b)";
    if (n > MAX_PATCHES || (uintptr_t)n * SLOT > pg)
        return "too many functions to patch for one page of jump slots";
    int undo[MAX_PATCHES];
    for (int i = 0; i < n; i++) {
        ElfW(Sym) *sym = NULL;
        Dl_info info;
        if (!dladdr1(p[i].entry, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
            return "the size of a libc function is unknown";
        p[i].site = core_patch_site(p[i].entry, sym->st_size, (uintptr_t)p[i].entry, &undo[i]);
        if (p[i].site < 0)
            return "a libc memory function does not start with instructions we know how to "
                   "patch safely (a different libc build, already patched by another library, "
                   "or a debugger breakpoint)";
        p[i].applied = 0;
    }
    uint8_t *slots = slots_create((uintptr_t)p[0].entry, pg);
    if (!slots)
        return "no page for jump slots within 2 GiB of libc";
    for (int i = 0; i < n; i++) {
        uint8_t *slot = slots + i * SLOT, *site = p[i].entry + p[i].site;
        uintptr_t dist = (uintptr_t)slot > (uintptr_t)site ? (uintptr_t)slot - (uintptr_t)site
                                                            : (uintptr_t)site - (uintptr_t)slot;
        if (dist >= REACH)
            return "libc's memory functions are too far apart";
        slot_write(slot, undo[i], p[i].handler);
        p[i].block = (uint8_t *)((uintptr_t)site & ~(uintptr_t)15);
        memcpy(p[i].orig, p[i].block, 16);
        memcpy(p[i].patched, p[i].orig, 16);
        int32_t rel = (int32_t)((intptr_t)slot - (intptr_t)(site + 5));
        uint8_t *at = p[i].patched + (site - p[i].block);
        at[0] = 0xe9;
        memcpy(at + 1, &rel, 4);
    }
    if (mprotect(slots, pg, PROT_READ | PROT_EXEC) != 0)
        return "the jump slots cannot be made executable";
    return NULL;
}

const char *core_patch_apply(core_patch_t *p, int n)
{
    for (int i = 0; i < n; i++) {
        if (write_block(p[i].block, p[i].orig, p[i].patched) != 0) {
            core_patch_revert(p, n);
            return "libc's code cannot be made writable (mprotect refused) or changed while "
                   "being patched";
        }
        p[i].applied = 1;
    }
    return NULL;
}

void core_patch_revert(core_patch_t *p, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (p[i].applied && write_block(p[i].block, p[i].patched, p[i].orig) == 0)
            p[i].applied = 0;
}

int core_patch_intact(const core_patch_t *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!p[i].applied || memcmp(p[i].block, p[i].patched, 16) != 0)
            return 0;
    return 1;
}

#else

int core_patch_site(const uint8_t *code, size_t len, uintptr_t addr, int *undo)
{
    (void)code, (void)len, (void)addr, (void)undo;
    return -1;
}

const char *core_patch_prepare(core_patch_t *p, int n)
{
    (void)p, (void)n;
    return "code patching exists for x86_64 Linux only";
}

const char *core_patch_apply(core_patch_t *p, int n)
{
    (void)p, (void)n;
    return "code patching exists for x86_64 Linux only";
}

void core_patch_revert(core_patch_t *p, int n)
{
    (void)p, (void)n;
}

int core_patch_intact(const core_patch_t *p, int n)
{
    (void)p, (void)n;
    return 0;
}

#endif
