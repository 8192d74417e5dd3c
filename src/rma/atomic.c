/*
 * CPU atomics on window memory: the accumulates, compare-and-swap and
 * passive-target lock words of the shared-memory path, and of the message
 * path's target when its window lives in a node segment (so an accumulate
 * arriving by message and one done in place by a neighbor are atomic with
 * each other).
 *
 * Memory outside a node segment (Win_create, dynamic windows) is only ever
 * accumulated into by its own rank's progress, one message at a time: there
 * the op runs over whole runs without atomics (plain_update).
 *
 * MPI asks for atomicity per basic element between accumulates of the same
 * op (accumulate_ops same_op_no_op) or MPI_NO_OP. An aligned element of 1,
 * 2, 4 or 8 bytes gets a lock-free update: a load (NO_OP), an exchange
 * (REPLACE), a fetch-add/and/or/xor (integer SUM, BAND, BOR, BXOR), else a
 * compare-exchange loop around the op's own function. Larger elements
 * (long double, complex, pair types) and unaligned ones have no CPU atomic:
 * a spin lock per target rank in the segment covers the whole call. Whether
 * an element is lock-free depends only on its address and size, so two
 * updates of one location always take the same side.
 *
 * Pair types with holes (MPI_DOUBLE_INT's padding after the index,
 * MPI_SHORT_INT's between value and index) always take the lock: each
 * element is gathered from its own layout in the window (holes skipped),
 * combined in that layout, and only its value and index are written back
 * (the holes may be another element's bytes, or memory the user keeps).
 */
#include <limits.h>
#include <sched.h>
#include <string.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/op.h"

typedef union word {
    uint8_t b[8];
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
} word_t;

static int lock_free(const uint8_t *p, size_t esz)
{
    return (esz == 1 || esz == 2 || esz == 4 || esz == 8) && (uintptr_t)p % esz == 0;
}

static int is_integer(enum core_dt_kind k)
{
    switch (k) {
    case CORE_DT_CHAR: case CORE_DT_SCHAR: case CORE_DT_UCHAR: case CORE_DT_BYTE:
    case CORE_DT_SHORT: case CORE_DT_USHORT: case CORE_DT_INT: case CORE_DT_UINT:
    case CORE_DT_LONG: case CORE_DT_ULONG: case CORE_DT_LLONG: case CORE_DT_ULLONG:
    case CORE_DT_INT8: case CORE_DT_INT16: case CORE_DT_INT32: case CORE_DT_INT64:
    case CORE_DT_UINT8: case CORE_DT_UINT16: case CORE_DT_UINT32: case CORE_DT_UINT64:
    case CORE_DT_WCHAR: case CORE_DT_AINT: case CORE_DT_OFFSET: case CORE_DT_COUNT:
        return 1;
    default:
        return 0;
    }
}

static word_t w_load(const uint8_t *p, size_t esz)
{
    word_t w = { .u64 = 0 };
    switch (esz) {
    case 1: w.u8 = __atomic_load_n(p, __ATOMIC_ACQUIRE); break;
    case 2: w.u16 = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE); break;
    case 4: w.u32 = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE); break;
    default: w.u64 = __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE); break;
    }
    return w;
}

/* Compare-exchange; on failure *cur gets what is there. */
static int w_cas(uint8_t *p, word_t *cur, word_t want, size_t esz)
{
    switch (esz) {
    case 1: return __atomic_compare_exchange_n(p, &cur->u8, want.u8, 0, __ATOMIC_ACQ_REL,
                                               __ATOMIC_ACQUIRE);
    case 2: return __atomic_compare_exchange_n((uint16_t *)p, &cur->u16, want.u16, 0,
                                               __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    case 4: return __atomic_compare_exchange_n((uint32_t *)p, &cur->u32, want.u32, 0,
                                               __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    default: return __atomic_compare_exchange_n((uint64_t *)p, &cur->u64, want.u64, 0,
                                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
}

static word_t w_xchg(uint8_t *p, word_t v, size_t esz)
{
    word_t w = { .u64 = 0 };
    switch (esz) {
    case 1: w.u8 = __atomic_exchange_n(p, v.u8, __ATOMIC_ACQ_REL); break;
    case 2: w.u16 = __atomic_exchange_n((uint16_t *)p, v.u16, __ATOMIC_ACQ_REL); break;
    case 4: w.u32 = __atomic_exchange_n((uint32_t *)p, v.u32, __ATOMIC_ACQ_REL); break;
    default: w.u64 = __atomic_exchange_n((uint64_t *)p, v.u64, __ATOMIC_ACQ_REL); break;
    }
    return w;
}

#define FETCH_OP(fn, p, v, esz, out)                                                     \
    switch (esz) {                                                                        \
    case 1: out.u8 = fn(p, v.u8, __ATOMIC_ACQ_REL); break;                                \
    case 2: out.u16 = fn((uint16_t *)(p), v.u16, __ATOMIC_ACQ_REL); break;                \
    case 4: out.u32 = fn((uint32_t *)(p), v.u32, __ATOMIC_ACQ_REL); break;                \
    default: out.u64 = fn((uint64_t *)(p), v.u64, __ATOMIC_ACQ_REL); break;               \
    }

/* One aligned element of esz <= 8 bytes; in is NULL for NO_OP. */
static int elem_update(uint8_t *p, const uint8_t *in, uint8_t *old, size_t esz,
                       MPI_Datatype elem, MPI_Op op)
{
    word_t v = { .u64 = 0 }, cur = { .u64 = 0 };
    if (in)
        memcpy(v.b, in, esz);
    int kind = op->kind;
    if (kind == CORE_OP_NO_OP || !in) {
        cur = w_load(p, esz);
    } else if (kind == CORE_OP_REPLACE) {
        cur = w_xchg(p, v, esz);
    } else if (is_integer(elem->kind) && kind == CORE_OP_SUM) {
        FETCH_OP(__atomic_fetch_add, p, v, esz, cur);
    } else if (is_integer(elem->kind) && kind == CORE_OP_BAND) {
        FETCH_OP(__atomic_fetch_and, p, v, esz, cur);
    } else if (is_integer(elem->kind) && kind == CORE_OP_BOR) {
        FETCH_OP(__atomic_fetch_or, p, v, esz, cur);
    } else if (is_integer(elem->kind) && kind == CORE_OP_BXOR) {
        FETCH_OP(__atomic_fetch_xor, p, v, esz, cur);
    } else {
        int is_bool = elem->kind == CORE_DT_BOOL;
        if (is_bool)   /* a byte other than 0 or 1 is no valid _Bool: read as C does */
            v.u8 = v.u8 != 0;
        cur = w_load(p, esz);
        for (;;) {
            word_t next = cur;
            if (is_bool)
                next.u8 = next.u8 != 0;
            int rc = core_op_apply(op, v.b, next.b, 1, elem);
            if (rc)
                return rc;
            if (w_cas(p, &cur, next, esz))
                break;
        }
    }
    if (old)
        memcpy(old, cur.b, esz);
    return 0;
}

/* A run of aligned elements of one size whose op is one CPU instruction (a load, an
 * exchange, an integer fetch-add/and/or/xor): one loop per op without elem_update's copies
 * and switches per element. The origin's bytes may be unaligned (copied with a constant
 * size). */
#define RUN_EACH(T, expr)                                                                 \
    for (size_t i = 0; i < n / sizeof(T); i++) {                                          \
        T v = 0, o;                                                                       \
        if (src)                                                                          \
            memcpy(&v, src + i * sizeof(T), sizeof(T));                                   \
        o = (expr);                                                                       \
        if (old)                                                                          \
            memcpy(old + i * sizeof(T), &o, sizeof(T));                                   \
    }
#define RUN_OPS(name, T)                                                                  \
    static void name(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n, int kind)  \
    {                                                                                     \
        T *d = (T *)(void *)dst;                                                          \
        switch (src ? kind : CORE_OP_NO_OP) {                                             \
        case CORE_OP_REPLACE: RUN_EACH(T, __atomic_exchange_n(d + i, v, __ATOMIC_ACQ_REL)); break; \
        case CORE_OP_SUM: RUN_EACH(T, __atomic_fetch_add(d + i, v, __ATOMIC_ACQ_REL)); break; \
        case CORE_OP_BAND: RUN_EACH(T, __atomic_fetch_and(d + i, v, __ATOMIC_ACQ_REL)); break; \
        case CORE_OP_BOR: RUN_EACH(T, __atomic_fetch_or(d + i, v, __ATOMIC_ACQ_REL)); break; \
        case CORE_OP_BXOR: RUN_EACH(T, __atomic_fetch_xor(d + i, v, __ATOMIC_ACQ_REL)); break; \
        default: RUN_EACH(T, __atomic_load_n(d + i, __ATOMIC_ACQUIRE)); break;            \
        }                                                                                 \
    }
RUN_OPS(run_ops8, uint8_t)
RUN_OPS(run_ops16, uint16_t)
RUN_OPS(run_ops32, uint32_t)
RUN_OPS(run_ops64, uint64_t)

/* Whether every element of a lock-free run of elem is one instruction under op (src NULL:
 * MPI_NO_OP): a load or exchange of any type (bits, as elem_update does), the bitwise and
 * additive ops of integers. */
static int one_instruction(MPI_Datatype elem, MPI_Op op, const uint8_t *src)
{
    int k = op->kind;
    if (!src || k == CORE_OP_NO_OP || k == CORE_OP_REPLACE)
        return 1;
    return is_integer(elem->kind) &&
           (k == CORE_OP_SUM || k == CORE_OP_BAND || k == CORE_OP_BOR || k == CORE_OP_BXOR);
}

static void spin_lock(uint32_t *l)
{
    if (!l)
        return;
    unsigned n = 0;
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            if (++n % 64 == 0)
                sched_yield();   /* the holder may share our core */
    }
}

static void spin_unlock(uint32_t *l)
{
    if (l)
        __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Under the lock: the whole run through aligned copies (window memory and payloads need
 * not be aligned for the element type). */
static int locked_update(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n,
                         MPI_Datatype elem, MPI_Op op)
{
    uint8_t tin[256], tout[256];
    size_t esz = elem->size, chunk = sizeof(tin) / esz * esz;
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        if (old)
            memcpy(old + off, dst + off, len);
        if (!src || op->kind == CORE_OP_NO_OP)
            continue;
        memcpy(tin, src + off, len);
        memcpy(tout, dst + off, len);
        if (elem->kind == CORE_DT_BOOL)
            for (size_t i = 0; i < len; i++) {
                tin[i] = tin[i] != 0;
                tout[i] = tout[i] != 0;
            }
        int rc = core_op_apply(op, tin, tout, (int)(len / esz), elem);
        if (rc)
            return rc;
        memcpy(dst + off, tout, len);
    }
    return 0;
}

/* Without another process mapping dst (acc NULL: memory outside a node segment), every
 * accumulate on it is applied by this rank's progress, one at a time: no element needs an
 * atomic, and the op runs over the whole run at once (a byte-wise SUM of megabytes is not
 * millions of locked instructions). */
static int plain_update(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n,
                        MPI_Datatype elem, MPI_Op op)
{
    size_t esz = elem->size, al = elem->align ? elem->align : 1;
    if (elem->kind == CORE_DT_BOOL || (uintptr_t)dst % al || (src && (uintptr_t)src % al) ||
        n / esz > (size_t)INT_MAX)
        return locked_update(dst, src, old, n, elem, op);
    if (old)
        memcpy(old, dst, n);
    if (!src || op->kind == CORE_OP_NO_OP)
        return 0;
    return core_op_apply(op, src, dst, (int)(n / esz), elem);
}

/* One element of a type with holes at p (its own layout); in, old: packed (esz bytes). */
static int holed_update(uint8_t *p, const uint8_t *in, uint8_t *old, MPI_Datatype elem,
                        MPI_Op op)
{
    /* the op works on the type's C layout: aligned copies of it */
    union { long double ld; double d; long l; uint8_t b[64]; } nin, ncur;
    uint8_t cur[64];
    size_t esz = elem->size;
    core_dt_pack(cur, p, 1, elem);
    if (old)
        memcpy(old, cur, esz);
    if (!in || op->kind == CORE_OP_NO_OP)
        return 0;
    if (op->kind == CORE_OP_REPLACE) {
        core_dt_unpack(p, 1, elem, in, esz);
        return 0;
    }
    memset(&nin, 0, sizeof(nin));
    memset(&ncur, 0, sizeof(ncur));
    core_dt_unpack(nin.b, 1, elem, in, esz);
    core_dt_unpack(ncur.b, 1, elem, cur, esz);
    int rc = core_op_apply(op, nin.b, ncur.b, 1, elem);
    if (rc)
        return rc;
    core_dt_pack(cur, ncur.b, 1, elem);
    core_dt_unpack(p, 1, elem, cur, esz);
    return 0;
}

/* n packed bytes of elements with holes, elem->extent apart from dst. */
static int holed_acc(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n,
                     MPI_Datatype elem, MPI_Op op, uint32_t *acc)
{
    size_t esz = elem->size;
    if ((size_t)elem->extent > 64 || elem->true_lb != 0)
        return CORE_ETYPE;
    int rc = 0;
    spin_lock(acc);
    for (size_t k = 0; k < n / esz && rc == 0; k++)
        rc = holed_update(dst + k * (size_t)elem->extent, src ? src + k * esz : NULL,
                          old ? old + k * esz : NULL, elem, op);
    spin_unlock(acc);
    return rc;
}

int rma_atomic_acc(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n,
                   MPI_Datatype elem, MPI_Op op, uint32_t *acc)
{
    size_t esz = elem->size;
    if (esz == 0 || esz > 256)
        return CORE_ETYPE;
    if (!core_dt_is_contig(elem))
        return holed_acc(dst, src, old, n, elem, op, acc);
    if (!acc)
        return plain_update(dst, src, old, n, elem, op);
    if (lock_free(dst, esz)) {
        if (one_instruction(elem, op, src)) {
            int k = src ? op->kind : CORE_OP_NO_OP;
            switch (esz) {
            case 1: run_ops8(dst, src, old, n, k); break;
            case 2: run_ops16(dst, src, old, n, k); break;
            case 4: run_ops32(dst, src, old, n, k); break;
            default: run_ops64(dst, src, old, n, k); break;
            }
            return 0;
        }
        for (size_t off = 0; off < n; off += esz) {
            int rc = elem_update(dst + off, src ? src + off : NULL, old ? old + off : NULL,
                                 esz, elem, op);
            if (rc)
                return rc;
        }
        return 0;
    }
    spin_lock(acc);
    int rc = locked_update(dst, src, old, n, elem, op);
    spin_unlock(acc);
    return rc;
}

void rma_atomic_cas(uint8_t *dst, const uint8_t *val, const uint8_t *cmp, uint8_t *old,
                    size_t esz, uint32_t *acc)
{
    if (lock_free(dst, esz)) {
        word_t c = { .u64 = 0 }, v = { .u64 = 0 };
        memcpy(c.b, cmp, esz);
        memcpy(v.b, val, esz);
        w_cas(dst, &c, v, esz);   /* on failure c holds the contents: the old value */
        memcpy(old, c.b, esz);
        return;
    }
    spin_lock(acc);
    memcpy(old, dst, esz);
    if (memcmp(dst, cmp, esz) == 0)
        memcpy(dst, val, esz);
    spin_unlock(acc);
}

int rma_lw_try(rma_ctl_t *c, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE) {
        uint64_t zero = 0;
        return __atomic_compare_exchange_n(&c->lock, &zero, RMA_LW_EXCL, 0, __ATOMIC_ACQUIRE,
                                           __ATOMIC_RELAXED);
    }
    if (__atomic_load_n(&c->lock, __ATOMIC_RELAXED) & RMA_LW_EXCL)
        return 0;
    if (!(__atomic_add_fetch(&c->lock, 1, __ATOMIC_ACQUIRE) & RMA_LW_EXCL))
        return 1;
    __atomic_sub_fetch(&c->lock, 1, __ATOMIC_RELAXED);   /* lost to a writer: back out */
    return 0;
}

void rma_lw_release(rma_ctl_t *c, int type)
{
    /* A reader backing out may have a transient count in the word: subtract, never store. */
    __atomic_sub_fetch(&c->lock, type == MPI_LOCK_EXCLUSIVE ? RMA_LW_EXCL : 1,
                       __ATOMIC_RELEASE);
}
