/*
 * Reduction operations: the predefined op objects, which types each op is
 * defined for (MPI-4.1 section 6.9.2), and core_op_apply, which computes
 * inout[i] = in[i] op inout[i].
 *
 * The kernels are generated per (op family, C type) from the type lists
 * below; the same lists decide validity, so the table of valid pairs and the
 * kernels cannot drift apart. A derived type is reduced through its basic
 * kind: in place when its data is one run, otherwise packed into scratch
 * buffers, reduced there and unpacked into inout.
 *
 * The kernels stay plain elementwise loops so the compiler vectorizes them:
 * this file is built with OP_CFLAGS (configure.ac), which GCC's -O2 lacks;
 * SSE2 roughly triples the speed of MPI_SUM on floats (1 KiB: about 500
 * instructions instead of 1600), which large allreduces are bound by.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/handle.h"
#include "core/op.h"

#define PREDEF_OP(obj, K, label)                                                    \
    struct rdmpi_op obj = {                                                        \
        .refcount = 1, .predefined = 1, .kind = K, .commute = 1, .name = label,    \
    }

PREDEF_OP(rdmpi_op_max, CORE_OP_MAX, "MPI_MAX");
PREDEF_OP(rdmpi_op_min, CORE_OP_MIN, "MPI_MIN");
PREDEF_OP(rdmpi_op_sum, CORE_OP_SUM, "MPI_SUM");
PREDEF_OP(rdmpi_op_prod, CORE_OP_PROD, "MPI_PROD");
PREDEF_OP(rdmpi_op_land, CORE_OP_LAND, "MPI_LAND");
PREDEF_OP(rdmpi_op_band, CORE_OP_BAND, "MPI_BAND");
PREDEF_OP(rdmpi_op_lor, CORE_OP_LOR, "MPI_LOR");
PREDEF_OP(rdmpi_op_bor, CORE_OP_BOR, "MPI_BOR");
PREDEF_OP(rdmpi_op_lxor, CORE_OP_LXOR, "MPI_LXOR");
PREDEF_OP(rdmpi_op_bxor, CORE_OP_BXOR, "MPI_BXOR");
PREDEF_OP(rdmpi_op_minloc, CORE_OP_MINLOC, "MPI_MINLOC");
PREDEF_OP(rdmpi_op_maxloc, CORE_OP_MAXLOC, "MPI_MAXLOC");
PREDEF_OP(rdmpi_op_replace, CORE_OP_REPLACE, "MPI_REPLACE");
PREDEF_OP(rdmpi_op_no_op, CORE_OP_NO_OP, "MPI_NO_OP");

/* The predefined ops are valid handles for as long as the library is loaded. */
__attribute__((constructor)) static void op_predefine(void)
{
    const void *ops[] = { MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                          MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP };
    core_handle_predefine(&core_handles.op, ops, sizeof(ops) / sizeof(ops[0]));
}

int core_op_create(MPI_User_function *fn, int commute, MPI_Op *out)
{
    MPI_Op o = core_handle_alloc(&core_handles.op, sizeof(*o));
    if (!o)
        return CORE_ENOMEM;
    o->refcount = 1;
    o->kind = CORE_OP_USER;
    o->commute = commute != 0;
    o->fn = fn;
    o->call = NULL;
    o->name = "a user-defined operation";
    *out = o;
    return 0;
}

void core_op_set_call(MPI_Op op, core_op_call_fn *call)
{
    op->call = call;
}

void core_op_retain(MPI_Op op)
{
    if (!op->predefined)
        core_ref_get(&op->refcount);
}

void core_op_release(MPI_Op op)
{
    if (!op->predefined && core_ref_put(&op->refcount) == 0)
        core_handle_free(&core_handles.op, op);
}

/*
 * Type lists: X(kind, C type, W), where W is the type sums and products are
 * computed in. For integers W is unsigned, so overflow wraps instead of being
 * undefined (and unsigned short products cannot overflow a promoted int).
 * MPI_CHAR and MPI_WCHAR are characters, not integers: MPI defines no op on
 * them. Open MPI and MPICH both accept the arithmetic ones (SUM, PROD, MIN,
 * MAX) on MPI_CHAR, and codes rely on it (OSU's collective benchmarks reduce
 * MPI_CHAR with MPI_SUM by default), so rdmpi does too (CHAR_KINDS).
 */
#define INTEGER_KINDS(X)                                                           \
    X(CORE_DT_SCHAR, signed char, unsigned)                                        \
    X(CORE_DT_UCHAR, unsigned char, unsigned)                                      \
    X(CORE_DT_SHORT, short, unsigned)                                              \
    X(CORE_DT_USHORT, unsigned short, unsigned)                                    \
    X(CORE_DT_INT, int, unsigned)                                                  \
    X(CORE_DT_UINT, unsigned, unsigned)                                            \
    X(CORE_DT_LONG, long, unsigned long)                                           \
    X(CORE_DT_ULONG, unsigned long, unsigned long)                                 \
    X(CORE_DT_LLONG, long long, unsigned long long)                                \
    X(CORE_DT_ULLONG, unsigned long long, unsigned long long)                      \
    X(CORE_DT_INT8, int8_t, unsigned)                                              \
    X(CORE_DT_INT16, int16_t, unsigned)                                            \
    X(CORE_DT_INT32, int32_t, uint32_t)                                            \
    X(CORE_DT_INT64, int64_t, uint64_t)                                            \
    X(CORE_DT_UINT8, uint8_t, unsigned)                                            \
    X(CORE_DT_UINT16, uint16_t, unsigned)                                          \
    X(CORE_DT_UINT32, uint32_t, uint32_t)                                          \
    X(CORE_DT_UINT64, uint64_t, uint64_t)                                          \
    X(CORE_DT_AINT, MPI_Aint, unsigned long)                                       \
    X(CORE_DT_OFFSET, MPI_Offset, unsigned long long)                              \
    X(CORE_DT_COUNT, MPI_Count, unsigned long long)

#define FLOAT_KINDS(X)                                                             \
    X(CORE_DT_FLOAT, float, float)                                                 \
    X(CORE_DT_DOUBLE, double, double)                                              \
    X(CORE_DT_LDOUBLE, long double, long double)                                   \
    X(CORE_DT_FLOAT128, __float128, __float128)

/* COMPLEX(16)'s C type: a complex of binary128 (written so gcc and clang both take it) */
typedef _Complex float __attribute__((mode(TC))) op_complex128;

#define COMPLEX_KINDS(X)                                                           \
    X(CORE_DT_CFLOAT, float _Complex, float _Complex)                              \
    X(CORE_DT_CDOUBLE, double _Complex, double _Complex)                           \
    X(CORE_DT_CLDOUBLE, long double _Complex, long double _Complex)                \
    X(CORE_DT_CFLOAT128, op_complex128, op_complex128)

#define CHAR_KINDS(X) X(CORE_DT_CHAR, char, unsigned)
#define BOOL_KINDS(X) X(CORE_DT_BOOL, _Bool, _Bool) X(CORE_DT_FLOGICAL, int32_t, int32_t)
#define BYTE_KINDS(X) X(CORE_DT_BYTE, unsigned char, unsigned)

/* The pair types: X(kind, C struct, value type). */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_2int { int v; int i; };
struct pair_short_int { short v; int i; };
struct pair_ldouble_int { long double v; int i; };
struct pair_2real { float v; float i; };       /* Fortran's: the index is a REAL */
struct pair_2double { double v; double i; };

#define PAIR_KINDS(X)                                                              \
    X(CORE_DT_FLOAT_INT, struct pair_float_int, float)                             \
    X(CORE_DT_DOUBLE_INT, struct pair_double_int, double)                          \
    X(CORE_DT_LONG_INT, struct pair_long_int, long)                                \
    X(CORE_DT_2INT, struct pair_2int, int)                                         \
    X(CORE_DT_SHORT_INT, struct pair_short_int, short)                             \
    X(CORE_DT_LDOUBLE_INT, struct pair_ldouble_int, long double)                   \
    X(CORE_DT_2REAL, struct pair_2real, float)                                     \
    X(CORE_DT_2DOUBLE, struct pair_2double, double)

/* Classes of kinds, as the MPI table groups them. */
enum {
    CLASS_INT = 1u, CLASS_FLOAT = 2u, CLASS_COMPLEX = 4u, CLASS_BOOL = 8u,
    CLASS_BYTE = 16u, CLASS_PAIR = 32u, CLASS_CHAR = 64u,
};

static unsigned kind_class(enum core_dt_kind kind)
{
#define CASE(K, T, W) case K:
    switch (kind) {
    INTEGER_KINDS(CASE) return CLASS_INT;
    FLOAT_KINDS(CASE) return CLASS_FLOAT;
    COMPLEX_KINDS(CASE) return CLASS_COMPLEX;
    BOOL_KINDS(CASE) return CLASS_BOOL;
    CHAR_KINDS(CASE) return CLASS_CHAR;
    BYTE_KINDS(CASE) return CLASS_BYTE;
    PAIR_KINDS(CASE) return CLASS_PAIR;
    default: return 0;
    }
#undef CASE
}

/* The classes each predefined op is defined on (REPLACE and NO_OP: every type). */
static const unsigned op_classes[] = {
    [CORE_OP_MAX] = CLASS_INT | CLASS_FLOAT | CLASS_CHAR,
    [CORE_OP_MIN] = CLASS_INT | CLASS_FLOAT | CLASS_CHAR,
    [CORE_OP_SUM] = CLASS_INT | CLASS_FLOAT | CLASS_COMPLEX | CLASS_CHAR,
    [CORE_OP_PROD] = CLASS_INT | CLASS_FLOAT | CLASS_COMPLEX | CLASS_CHAR,
    [CORE_OP_LAND] = CLASS_INT | CLASS_BOOL,
    [CORE_OP_LOR] = CLASS_INT | CLASS_BOOL,
    [CORE_OP_LXOR] = CLASS_INT | CLASS_BOOL,
    [CORE_OP_BAND] = CLASS_INT | CLASS_BYTE,
    [CORE_OP_BOR] = CLASS_INT | CLASS_BYTE,
    [CORE_OP_BXOR] = CLASS_INT | CLASS_BYTE,
    [CORE_OP_MINLOC] = CLASS_PAIR,
    [CORE_OP_MAXLOC] = CLASS_PAIR,
};

int core_op_valid(MPI_Op op, MPI_Datatype dt)
{
    if (op == MPI_OP_NULL || dt == MPI_DATATYPE_NULL)
        return 0;
    switch (op->kind) {
    case CORE_OP_USER:
    case CORE_OP_REPLACE:
    case CORE_OP_NO_OP:
        return 1;
    default:
        break;
    }
    if ((size_t)op->kind >= sizeof(op_classes) / sizeof(op_classes[0]))
        return 0;
    return (op_classes[op->kind] & kind_class(dt->basic)) != 0;
}

/* The arithmetic kernels in an AVX2 version besides the baseline one, picked at load time
 * (an ifunc) where the CPU has it: twice the vector width. OSU's reduce of 64 KiB of
 * MPI_CHAR sums on 2 ranks: the root's reduction was 28,700 instructions with SSE2 (the
 * copy of the partner's vector took less time). Elementwise, one operation per item and no
 * FMA (not in the avx2 target): the same bits either way.
 * Not in sanitizer builds: an ifunc's resolver runs while the dynamic linker relocates the
 * library, before the sanitizer's runtime is set up, and the instrumented resolver crashes
 * there (every TSan-built program died in _dl_relocate_object). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#define OP_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef OP_CLONES
#define OP_CLONES
#endif

/* Runs STMT for i in [0, n) with a = in and b = inout seen as arrays of T. */
#define EACH(T, STMT)                                                              \
    do {                                                                           \
        const T *a = in;                                                           \
        T *b = inout;                                                              \
        for (size_t i = 0; i < n; i++)                                             \
            STMT;                                                                  \
    } while (0)

OP_CLONES static void apply_minmax(int max, enum core_dt_kind kind, const void *in, void *inout, size_t n)
{
#define MINMAX(K, T, W)                                                            \
    case K:                                                                        \
        if (max)                                                                   \
            EACH(T, b[i] = a[i] > b[i] ? a[i] : b[i]);                             \
        else                                                                       \
            EACH(T, b[i] = a[i] < b[i] ? a[i] : b[i]);                             \
        break;
    switch (kind) {
    INTEGER_KINDS(MINMAX)
    CHAR_KINDS(MINMAX)
    FLOAT_KINDS(MINMAX)
    default: break;
    }
#undef MINMAX
}

OP_CLONES static void apply_sumprod(int prod, enum core_dt_kind kind, const void *in, void *inout, size_t n)
{
#define SUMPROD(K, T, W)                                                           \
    case K:                                                                        \
        if (prod)                                                                  \
            EACH(T, b[i] = (T)((W)a[i] * (W)b[i]));                                \
        else                                                                       \
            EACH(T, b[i] = (T)((W)a[i] + (W)b[i]));                                \
        break;
    switch (kind) {
    INTEGER_KINDS(SUMPROD)
    CHAR_KINDS(SUMPROD)
    FLOAT_KINDS(SUMPROD)
    COMPLEX_KINDS(SUMPROD)
    default: break;
    }
#undef SUMPROD
}

static void apply_logical(enum core_op_kind op, enum core_dt_kind kind, const void *in,
                          void *inout, size_t n)
{
#define LOGICAL(K, T, W)                                                           \
    case K:                                                                        \
        if (op == CORE_OP_LAND)                                                    \
            EACH(T, b[i] = (T)(a[i] && b[i]));                                     \
        else if (op == CORE_OP_LOR)                                                \
            EACH(T, b[i] = (T)(a[i] || b[i]));                                     \
        else                                                                       \
            EACH(T, b[i] = (T)(!a[i] != !b[i]));                                   \
        break;
    switch (kind) {
    INTEGER_KINDS(LOGICAL)
    BOOL_KINDS(LOGICAL)
    default: break;
    }
#undef LOGICAL
}

OP_CLONES static void apply_bitwise(enum core_op_kind op, enum core_dt_kind kind, const void *in,
                          void *inout, size_t n)
{
#define BITWISE(K, T, W)                                                           \
    case K:                                                                        \
        if (op == CORE_OP_BAND)                                                    \
            EACH(T, b[i] = (T)(a[i] & b[i]));                                      \
        else if (op == CORE_OP_BOR)                                                \
            EACH(T, b[i] = (T)(a[i] | b[i]));                                      \
        else                                                                       \
            EACH(T, b[i] = (T)(a[i] ^ b[i]));                                      \
        break;
    switch (kind) {
    INTEGER_KINDS(BITWISE)
    BYTE_KINDS(BITWISE)
    default: break;
    }
#undef BITWISE
}

/*
 * MINLOC/MAXLOC over n pairs. In the native layout the pairs are C structs
 * P; packed, each is the value immediately followed by the int index. On
 * equal values the lower index wins, whichever side it comes from.
 */
static void apply_loc(int max, enum core_dt_kind kind, const void *in, void *inout, size_t n,
                      int packed)
{
#define LOC(K, P, V)                                                               \
    case K: {                                                                      \
        typedef __typeof__(((P *)0)->i) I; /* int, or Fortran's REAL index */      \
        size_t stride = packed ? sizeof(V) + sizeof(I) : sizeof(P);                \
        size_t ioff = packed ? sizeof(V) : offsetof(P, i);                         \
        for (size_t j = 0; j < n; j++) {                                           \
            const char *s = (const char *)in + j * stride;                         \
            char *d = (char *)inout + j * stride;                                  \
            V sv, dv;                                                              \
            I si, di;                                                              \
            memcpy(&sv, s, sizeof(V));                                             \
            memcpy(&dv, d, sizeof(V));                                             \
            memcpy(&si, s + ioff, sizeof(I));                                      \
            memcpy(&di, d + ioff, sizeof(I));                                      \
            if (max ? sv > dv : sv < dv) {                                         \
                memcpy(d, &sv, sizeof(V));                                         \
                memcpy(d + ioff, &si, sizeof(I));                                  \
            } else if (sv == dv && si < di) {                                      \
                memcpy(d + ioff, &si, sizeof(I));                                  \
            }                                                                      \
        }                                                                          \
        break;                                                                     \
    }
    switch (kind) {
    PAIR_KINDS(LOC)
    default: break;
    }
#undef LOC
}

/*
 * Applies predefined op to n units of kind (pairs count one unit). packed
 * says whether pairs are packed or native structs; other kinds are the same
 * either way.
 */
static void apply_kind(enum core_op_kind op, enum core_dt_kind kind, const void *in,
                       void *inout, size_t n, int packed)
{
    switch (op) {
    case CORE_OP_MAX:
    case CORE_OP_MIN:
        apply_minmax(op == CORE_OP_MAX, kind, in, inout, n);
        break;
    case CORE_OP_SUM:
    case CORE_OP_PROD:
        apply_sumprod(op == CORE_OP_PROD, kind, in, inout, n);
        break;
    case CORE_OP_LAND:
    case CORE_OP_LOR:
    case CORE_OP_LXOR:
        apply_logical(op, kind, in, inout, n);
        break;
    case CORE_OP_BAND:
    case CORE_OP_BOR:
    case CORE_OP_BXOR:
        apply_bitwise(op, kind, in, inout, n);
        break;
    case CORE_OP_MINLOC:
    case CORE_OP_MAXLOC:
        apply_loc(op == CORE_OP_MAXLOC, kind, in, inout, n, packed);
        break;
    default:
        break;
    }
}

/* Copies the data (not the holes) of count items of dt from src to dst. */
static void copy_items(void *dst, const void *src, size_t count, MPI_Datatype dt)
{
    if (core_dt_is_contig(dt)) {
        memcpy(dst, src, count * dt->size);
        return;
    }
    size_t nruns = core_dt_nruns(dt);
    for (size_t i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (size_t k = 0; k < nruns; k++) {
            core_dt_block_t b = core_dt_run(dt, k);
            memcpy((char *)dst + base + b.off, (const char *)src + base + b.off, b.len);
        }
    }
}

/* A derived type with holes: reduce packed copies, then unpack the result into inout. */
static int apply_scattered(enum core_op_kind op, const void *in, void *inout, size_t count,
                           MPI_Datatype dt, size_t units)
{
    size_t bytes = count * dt->size;
    char *pin = malloc(bytes);
    char *pinout = malloc(bytes);
    if (!pin || !pinout) {
        free(pin);
        free(pinout);
        return CORE_ENOMEM;
    }
    core_dt_pack(pin, in, count, dt);
    core_dt_pack(pinout, inout, count, dt);
    apply_kind(op, dt->basic, pin, pinout, units, 1);
    core_dt_unpack(inout, count, dt, pinout, bytes);
    free(pin);
    free(pinout);
    return 0;
}

int core_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt)
{
    if (count <= 0)
        return 0;
    if (op->kind == CORE_OP_USER) {
        int len = count;
        MPI_Datatype t = dt;
        if (op->call)
            op->call(op->fn, (void *)in, inout, &len, &t);
        else
            op->fn((void *)in, inout, &len, &t);
        return 0;
    }
    if (!core_op_valid(op, dt))
        return CORE_EOP;
    if (op->kind == CORE_OP_NO_OP)
        return 0;
    if (op->kind == CORE_OP_REPLACE) {
        copy_items(inout, in, (size_t)count, dt);
        return 0;
    }
    if (dt->flags & CORE_DT_PREDEFINED) {
        apply_kind(op->kind, dt->kind, in, inout, (size_t)count, 0);
        return 0;
    }
    /* A derived type of basic kind K holds copies of K's unit (a pair is one unit of two elements). */
    size_t per_unit = kind_class(dt->basic) == CLASS_PAIR ? 2 : 1;
    size_t units = (size_t)count * dt->nbasic / per_unit;
    if (core_dt_is_contig(dt)) {
        apply_kind(op->kind, dt->basic, in, inout, units, 1);
        return 0;
    }
    return apply_scattered(op->kind, in, inout, (size_t)count, dt, units);
}
