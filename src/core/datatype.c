/*
 * Datatypes: the predefined type objects, the constructors (contiguous, dup,
 * pieces for vector/indexed/struct, resized),
 * reference counting, the pack engine and element counting.
 *
 * A type is the list of byte runs (blocks) of one item, in type-map order,
 * plus lb/extent (where item i starts: buf + i * extent) and the true bounds
 * of its data. Adjacent runs are merged when a type is built, so a type whose
 * data fills [0, extent) is one block and gets CORE_DT_CONTIG, and the pack
 * engine is a copy per run. Vector, indexed, struct and resized types are
 * more ways of producing a block list and bounds, so they fit the same
 * representation.
 *
 * Element counting relies on a signature made of copies of one predefined
 * type (`basic`). A struct of mixed types has none (basic NONE): for it
 * core_dt_elements counts whole items only, and reductions refuse it, as
 * MPI's predefined ops are only defined on predefined element types.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/datatype.h"
#include "core/errors.h"
#include "core/handle.h"

enum { PREDEF_FLAGS = CORE_DT_PREDEFINED | CORE_DT_COMMITTED };

/*
 * A predefined type of one element of C type T. The objects inherit default
 * visibility from their RDMPI_API declarations in mpi.h.
 */
#define PREDEF(obj, label, T, K)                                                   \
    struct rdmpi_datatype obj = {                                                  \
        .refcount = 1,                                                             \
        .flags = PREDEF_FLAGS | CORE_DT_CONTIG,                                    \
        .size = sizeof(T),                                                         \
        .extent = sizeof(T),                                                       \
        .true_extent = sizeof(T),                                                  \
        .kind = K,                                                                 \
        .basic = K,                                                                \
        .nbasic = 1,                                                               \
        .align = _Alignof(T),                                                      \
        .nblocks = 1,                                                              \
        .blocks = &obj.block0,                                                     \
        .block0 = {0, sizeof(T)},                                                  \
        .name = label,                                                             \
    }

PREDEF(rdmpi_dt_char, "MPI_CHAR", char, CORE_DT_CHAR);
PREDEF(rdmpi_dt_signed_char, "MPI_SIGNED_CHAR", signed char, CORE_DT_SCHAR);
PREDEF(rdmpi_dt_unsigned_char, "MPI_UNSIGNED_CHAR", unsigned char, CORE_DT_UCHAR);
PREDEF(rdmpi_dt_byte, "MPI_BYTE", unsigned char, CORE_DT_BYTE);
PREDEF(rdmpi_dt_packed, "MPI_PACKED", unsigned char, CORE_DT_PACKED);
PREDEF(rdmpi_dt_short, "MPI_SHORT", short, CORE_DT_SHORT);
PREDEF(rdmpi_dt_unsigned_short, "MPI_UNSIGNED_SHORT", unsigned short, CORE_DT_USHORT);
PREDEF(rdmpi_dt_int, "MPI_INT", int, CORE_DT_INT);
PREDEF(rdmpi_dt_unsigned, "MPI_UNSIGNED", unsigned, CORE_DT_UINT);
PREDEF(rdmpi_dt_long, "MPI_LONG", long, CORE_DT_LONG);
PREDEF(rdmpi_dt_unsigned_long, "MPI_UNSIGNED_LONG", unsigned long, CORE_DT_ULONG);
PREDEF(rdmpi_dt_long_long, "MPI_LONG_LONG_INT", long long, CORE_DT_LLONG);
PREDEF(rdmpi_dt_unsigned_long_long, "MPI_UNSIGNED_LONG_LONG", unsigned long long,
       CORE_DT_ULLONG);
PREDEF(rdmpi_dt_float, "MPI_FLOAT", float, CORE_DT_FLOAT);
PREDEF(rdmpi_dt_double, "MPI_DOUBLE", double, CORE_DT_DOUBLE);
PREDEF(rdmpi_dt_long_double, "MPI_LONG_DOUBLE", long double, CORE_DT_LDOUBLE);
PREDEF(rdmpi_dt_wchar, "MPI_WCHAR", wchar_t, CORE_DT_WCHAR);
PREDEF(rdmpi_dt_c_bool, "MPI_C_BOOL", _Bool, CORE_DT_BOOL);
PREDEF(rdmpi_dt_int8_t, "MPI_INT8_T", int8_t, CORE_DT_INT8);
PREDEF(rdmpi_dt_int16_t, "MPI_INT16_T", int16_t, CORE_DT_INT16);
PREDEF(rdmpi_dt_int32_t, "MPI_INT32_T", int32_t, CORE_DT_INT32);
PREDEF(rdmpi_dt_int64_t, "MPI_INT64_T", int64_t, CORE_DT_INT64);
PREDEF(rdmpi_dt_uint8_t, "MPI_UINT8_T", uint8_t, CORE_DT_UINT8);
PREDEF(rdmpi_dt_uint16_t, "MPI_UINT16_T", uint16_t, CORE_DT_UINT16);
PREDEF(rdmpi_dt_uint32_t, "MPI_UINT32_T", uint32_t, CORE_DT_UINT32);
PREDEF(rdmpi_dt_uint64_t, "MPI_UINT64_T", uint64_t, CORE_DT_UINT64);
PREDEF(rdmpi_dt_aint, "MPI_AINT", MPI_Aint, CORE_DT_AINT);
PREDEF(rdmpi_dt_offset, "MPI_OFFSET", MPI_Offset, CORE_DT_OFFSET);
PREDEF(rdmpi_dt_count, "MPI_COUNT", MPI_Count, CORE_DT_COUNT);
/* MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one handle: it answers with the name the
 * standard lists first (MPICH's typename accepts it for both) */
PREDEF(rdmpi_dt_c_float_complex, "MPI_C_COMPLEX", float _Complex, CORE_DT_CFLOAT);
PREDEF(rdmpi_dt_c_double_complex, "MPI_C_DOUBLE_COMPLEX", double _Complex, CORE_DT_CDOUBLE);
PREDEF(rdmpi_dt_c_long_double_complex, "MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex,
       CORE_DT_CLDOUBLE);

/* Fortran's types (usable from C too); INTEGER is 4 bytes, LOGICAL a 4-byte 1 or 0, as
 * gfortran has them. */
PREDEF(rdmpi_dt_integer, "MPI_INTEGER", int32_t, CORE_DT_INT32);
PREDEF(rdmpi_dt_real, "MPI_REAL", float, CORE_DT_FLOAT);
PREDEF(rdmpi_dt_double_precision, "MPI_DOUBLE_PRECISION", double, CORE_DT_DOUBLE);
PREDEF(rdmpi_dt_complex, "MPI_COMPLEX", float _Complex, CORE_DT_CFLOAT);
PREDEF(rdmpi_dt_double_complex, "MPI_DOUBLE_COMPLEX", double _Complex, CORE_DT_CDOUBLE);
PREDEF(rdmpi_dt_logical, "MPI_LOGICAL", int32_t, CORE_DT_FLOGICAL);
PREDEF(rdmpi_dt_character, "MPI_CHARACTER", char, CORE_DT_CHAR);
PREDEF(rdmpi_dt_integer1, "MPI_INTEGER1", int8_t, CORE_DT_INT8);
PREDEF(rdmpi_dt_integer2, "MPI_INTEGER2", int16_t, CORE_DT_INT16);
PREDEF(rdmpi_dt_integer4, "MPI_INTEGER4", int32_t, CORE_DT_INT32);
PREDEF(rdmpi_dt_integer8, "MPI_INTEGER8", int64_t, CORE_DT_INT64);
PREDEF(rdmpi_dt_real4, "MPI_REAL4", float, CORE_DT_FLOAT);
PREDEF(rdmpi_dt_real8, "MPI_REAL8", double, CORE_DT_DOUBLE);
PREDEF(rdmpi_dt_complex8, "MPI_COMPLEX8", float _Complex, CORE_DT_CFLOAT);
PREDEF(rdmpi_dt_complex16, "MPI_COMPLEX16", double _Complex, CORE_DT_CDOUBLE);
/* C++'s bool and std::complex<T> have the layouts of _Bool and T _Complex. */
PREDEF(rdmpi_dt_cxx_bool, "MPI_CXX_BOOL", _Bool, CORE_DT_BOOL);
PREDEF(rdmpi_dt_cxx_float_complex, "MPI_CXX_FLOAT_COMPLEX", float _Complex, CORE_DT_CFLOAT);
PREDEF(rdmpi_dt_cxx_double_complex, "MPI_CXX_DOUBLE_COMPLEX", double _Complex, CORE_DT_CDOUBLE);
PREDEF(rdmpi_dt_cxx_long_double_complex, "MPI_CXX_LONG_DOUBLE_COMPLEX", long double _Complex,
       CORE_DT_CLDOUBLE);
/* gfortran's REAL(16) is IEEE binary128 (__float128), whatever C's long double is. */
typedef _Complex float __attribute__((mode(TC))) dt_complex128;
PREDEF(rdmpi_dt_real16, "MPI_REAL16", __float128, CORE_DT_FLOAT128);
PREDEF(rdmpi_dt_complex32, "MPI_COMPLEX32", dt_complex128, CORE_DT_CFLOAT128);

/* The C layouts of the MINLOC/MAXLOC pair types: a value, then an int index. */
struct pair_float_int { float v; int i; };
struct pair_double_int { double v; int i; };
struct pair_long_int { long v; int i; };
struct pair_2int { int v; int i; };
struct pair_short_int { short v; int i; };
struct pair_ldouble_int { long double v; int i; };

/* Whether the pair struct P (value of type A) has no padding: then it is one block. */
#define PAIR_DENSE(P, A) (offsetof(P, i) == sizeof(A) && sizeof(P) == sizeof(A) + sizeof(int))

/*
 * A predefined pair type: two elements, laid out as the C struct P. Its
 * blocks are the two members, or one when they touch and fill the struct.
 */
#define PAIR(obj, label, P, A, K)                                                  \
    struct rdmpi_datatype obj = {                                                  \
        .refcount = 1,                                                             \
        .flags = PREDEF_FLAGS | (PAIR_DENSE(P, A) ? CORE_DT_CONTIG : 0),           \
        .size = sizeof(A) + sizeof(int),                                           \
        .extent = sizeof(P),                                                       \
        .true_extent = offsetof(P, i) + sizeof(int),                               \
        .kind = K,                                                                 \
        .basic = K,                                                                \
        .nbasic = 2,                                                               \
        .align = _Alignof(P),                                                      \
        .nblocks = PAIR_DENSE(P, A) ? 1 : 2,                                       \
        .blocks = (core_dt_block_t[]){                                             \
            {0, PAIR_DENSE(P, A) ? sizeof(P) : sizeof(A)},                         \
            {offsetof(P, i), sizeof(int)},                                         \
        },                                                                         \
        .name = label,                                                             \
    }

PAIR(rdmpi_dt_float_int, "MPI_FLOAT_INT", struct pair_float_int, float, CORE_DT_FLOAT_INT);
PAIR(rdmpi_dt_double_int, "MPI_DOUBLE_INT", struct pair_double_int, double, CORE_DT_DOUBLE_INT);
PAIR(rdmpi_dt_long_int, "MPI_LONG_INT", struct pair_long_int, long, CORE_DT_LONG_INT);
PAIR(rdmpi_dt_2int, "MPI_2INT", struct pair_2int, int, CORE_DT_2INT);
PAIR(rdmpi_dt_short_int, "MPI_SHORT_INT", struct pair_short_int, short, CORE_DT_SHORT_INT);
PAIR(rdmpi_dt_long_double_int, "MPI_LONG_DOUBLE_INT", struct pair_ldouble_int, long double,
     CORE_DT_LDOUBLE_INT);

/* Fortran's pairs: value and index of the same type, so no padding: one block. */
#define FPAIR(obj, label, T, K)                                                    \
    struct rdmpi_datatype obj = {                                                  \
        .refcount = 1,                                                             \
        .flags = PREDEF_FLAGS | CORE_DT_CONTIG,                                    \
        .size = 2 * sizeof(T),                                                     \
        .extent = 2 * sizeof(T),                                                   \
        .true_extent = 2 * sizeof(T),                                              \
        .kind = K,                                                                 \
        .basic = K,                                                                \
        .nbasic = 2,                                                               \
        .align = _Alignof(T),                                                      \
        .nblocks = 1,                                                              \
        .blocks = &obj.block0,                                                     \
        .block0 = {0, 2 * sizeof(T)},                                              \
        .name = label,                                                             \
    }

PAIR(rdmpi_dt_2integer, "MPI_2INTEGER", struct pair_2int, int, CORE_DT_2INT);
FPAIR(rdmpi_dt_2real, "MPI_2REAL", float, CORE_DT_2REAL);
FPAIR(rdmpi_dt_2double_precision, "MPI_2DOUBLE_PRECISION", double, CORE_DT_2DOUBLE);

/* Size of the first element of a pair kind (the value), or 0 for single-element kinds. */
static size_t pair_value_size(enum core_dt_kind kind)
{
    switch (kind) {
    case CORE_DT_FLOAT_INT: return sizeof(float);
    case CORE_DT_DOUBLE_INT: return sizeof(double);
    case CORE_DT_LONG_INT: return sizeof(long);
    case CORE_DT_2INT: return sizeof(int);
    case CORE_DT_SHORT_INT: return sizeof(short);
    case CORE_DT_LDOUBLE_INT: return sizeof(long double);
    case CORE_DT_2REAL: return sizeof(float);
    case CORE_DT_2DOUBLE: return sizeof(double);
    default: return 0;
    }
}

size_t core_dt_pair_value_size(enum core_dt_kind kind)
{
    return pair_value_size(kind);
}

void core_dt_init(void)
{
    /* Every predefined type is a static initializer; nothing to build. */
}

/* MPI-1's MPI_LB and MPI_UB markers: objects so that mpi.h can name them, but never made valid
 * handles, so that every call but MPI_Type_struct (src/api/mpi1.c, which looks for them
 * before checking its types) rejects them as it rejects any non-datatype: MPI_ERR_TYPE. */
struct rdmpi_datatype rdmpi_dt_lb = {.name = "MPI_LB"};
struct rdmpi_datatype rdmpi_dt_ub = {.name = "MPI_UB"};

/* The predefined types are valid handles for as long as the library is loaded. */
__attribute__((constructor)) static void dt_predefine(void)
{
    const void *types[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_PACKED, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_FLOAT_INT, MPI_DOUBLE_INT,
        MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
        MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
        MPI_LOGICAL, MPI_CHARACTER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
        MPI_REAL4, MPI_REAL8, MPI_COMPLEX8, MPI_COMPLEX16, MPI_2INTEGER, MPI_2REAL,
        MPI_2DOUBLE_PRECISION, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
        MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_REAL16, MPI_COMPLEX32,
    };
    core_handle_predefine(&core_handles.dt, types, sizeof(types) / sizeof(types[0]));
}

/* A new derived type with no data; its owner fills in the layout. */
static MPI_Datatype dt_alloc(void)
{
    MPI_Datatype t = core_handle_alloc(&core_handles.dt, sizeof(*t));
    if (t)
        t->refcount = 1;
    return t;
}

/* Room for n blocks in t: its own block0 for one, the heap for more. */
static int dt_alloc_blocks(MPI_Datatype t, size_t n)
{
    t->nblocks = n;
    if (n <= 1) {
        t->blocks = &t->block0;
        return 0;
    }
    t->blocks = malloc(n * sizeof(*t->blocks));
    return t->blocks ? 0 : CORE_ENOMEM;
}

static void args_free(core_dt_args_t *a)
{
    for (int i = 0; a && i < a->nd; i++)
        core_dt_release(a->types[i]);
    free(a);
}

static void dt_free(MPI_Datatype t)
{
    core_attr_discard(&t->attrs);
    args_free(t->args);
    core_dt_sig_free(t);
    if (t->blocks != &t->block0)
        free(t->blocks);
    core_handle_free(&core_handles.dt, t);
}

/* A type is contiguous when its data is one run filling [0, extent) with lb 0. */
static void dt_set_contig(MPI_Datatype t)
{
    int one_run = t->nblocks == 0 ||
                  (t->nblocks == 1 && core_dt_ntile(t) == 1 && t->blocks[0].off == 0);
    if (one_run && t->lb == 0 && (MPI_Aint)t->size == t->extent)
        t->flags |= CORE_DT_CONTIG;
    else
        t->flags &= ~(unsigned)CORE_DT_CONTIG;
}

/* The runs of a type being built, as they are appended: how many, and where the last ends. */
typedef struct runs {
    size_t n;
    MPI_Aint end;
} runs_t;

/*
 * Appends the runs of count items of old, the first at disp and the others
 * old->extent apart, merging a run that starts where the last one ends.
 * Writes them to out when out is not NULL (so a first pass with NULL sizes
 * the array).
 */
static void add_runs(core_dt_block_t *out, runs_t *st, size_t count, MPI_Datatype old,
                     MPI_Aint disp)
{
    int whole = core_dt_is_contig(old); /* the items touch: count of them are one run */
    size_t nitems = whole ? (count > 0) : count;
    size_t nruns = whole ? 1 : core_dt_nruns(old);
    for (size_t i = 0; i < nitems; i++) {
        for (size_t j = 0; j < nruns; j++) {
            core_dt_block_t b = whole ? (core_dt_block_t){0, count * old->size} : core_dt_run(old, j);
            MPI_Aint off = disp + (MPI_Aint)i * old->extent + b.off;
            size_t len = b.len;
            if (len == 0)
                continue;
            if (!out && st->n > CORE_DT_MAX_RUNS)
                return; /* counting: already too many (the caller refuses the type) */
            if (st->n > 0 && off == st->end) {
                if (out)
                    out[st->n - 1].len += len;
            } else {
                if (out)
                    out[st->n] = (core_dt_block_t){off, len};
                st->n++;
            }
            st->end = off + (MPI_Aint)len;
        }
    }
}

/* Bounds [lo, hi) of count copies of [lb, lb + extent) placed step bytes apart. */
static void repeat_bounds(size_t count, MPI_Aint lb, MPI_Aint extent, MPI_Aint step,
                          MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint last = (MPI_Aint)(count - 1) * step;
    *lo = lb + (step < 0 ? last : 0);
    *hi = lb + extent + (step < 0 ? 0 : last);
}

/* Widens [*lo, *hi) to cover [l, h); *have says whether it covers anything yet. */
static void widen(MPI_Aint *lo, MPI_Aint *hi, int *have, MPI_Aint l, MPI_Aint h)
{
    if (!*have || l < *lo)
        *lo = l;
    if (!*have || h > *hi)
        *hi = h;
    *have = 1;
}

int core_dt_pieces(size_t n, const core_dt_piece_t *p, int pad, MPI_Datatype *out)
{
    size_t bytes = 0, nbasic = 0, align = 1;
    enum core_dt_kind basic = CORE_DT_NONE;
    int have_basic = 0, have = 0, have_true = 0;
    unsigned marked = 0;
    MPI_Aint lo = 0, hi = 0, tlo = 0, thi = 0;
    runs_t st = {0, 0};

    for (size_t i = 0; i < n; i++) {
        MPI_Datatype old = p[i].type;
        size_t c = p[i].count, b, e;
        if (c == 0)
            continue;
        MPI_Aint span, tail;
        if (__builtin_mul_overflow(c, old->size, &b) || __builtin_add_overflow(bytes, b, &bytes) ||
            __builtin_mul_overflow(c, old->nbasic, &e) ||
            __builtin_add_overflow(nbasic, e, &nbasic) ||
            __builtin_mul_overflow((MPI_Aint)(c - 1), old->extent, &span) ||
            __builtin_add_overflow(p[i].disp, span, &tail))
            return CORE_EINVAL;
        if (old->align > align)
            align = old->align;
        marked |= old->flags & CORE_DT_MARKED;
        MPI_Aint l, h;
        repeat_bounds(c, old->lb, old->extent, old->extent, &l, &h);
        widen(&lo, &hi, &have, p[i].disp + l, p[i].disp + h);
        if (old->size == 0)
            continue; /* no data: no element kind, no true bounds */
        if (!have_basic)
            basic = old->basic;
        else if (old->basic != basic)
            basic = CORE_DT_NONE;
        have_basic = 1;
        repeat_bounds(c, old->true_lb, old->true_extent, old->extent, &l, &h);
        widen(&tlo, &thi, &have_true, p[i].disp + l, p[i].disp + h);
        add_runs(NULL, &st, c, old, p[i].disp);
    }

    if (st.n > CORE_DT_MAX_RUNS)
        return CORE_ECOUNT;
    MPI_Datatype t = dt_alloc();
    if (!t)
        return CORE_ENOMEM;
    if (dt_alloc_blocks(t, st.n) != 0) {
        dt_free(t);
        return CORE_ENOMEM;
    }
    st = (runs_t){0, 0};
    for (size_t i = 0; i < n; i++)
        if (p[i].count > 0 && p[i].type->size > 0)
            add_runs(t->blocks, &st, p[i].count, p[i].type, p[i].disp);

    t->size = bytes;
    t->basic = basic;
    t->nbasic = nbasic;
    t->align = align;
    t->flags |= marked;
    t->lb = lo;
    t->extent = hi - lo;
    t->true_lb = tlo;
    t->true_extent = thi - tlo;
    if (pad && !marked && t->extent > 0 && t->extent % (MPI_Aint)align)
        t->extent += (MPI_Aint)align - t->extent % (MPI_Aint)align;
    dt_set_contig(t);
    core_dt_sig_build(t, n, p);
    *out = t;
    return 0;
}

int core_dt_tiled(size_t count, size_t blocklength, MPI_Aint stride, MPI_Datatype old,
                  MPI_Datatype *out)
{
    if (count == 0 || blocklength == 0 || old->size == 0 || old->basic == CORE_DT_NONE ||
        core_dt_ntile(old) > 1)
        return CORE_ECOUNT;
    MPI_Datatype t;
    core_dt_piece_t block = {blocklength, 0, old};
    int rc = core_dt_pieces(1, &block, 0, &t);
    if (rc != 0)
        return rc;
    size_t bytes, nbasic;
    MPI_Aint span, lo, hi, tlo, thi;
    if (__builtin_mul_overflow(count, t->size, &bytes) ||
        __builtin_mul_overflow(count, t->nbasic, &nbasic) ||
        __builtin_mul_overflow((MPI_Aint)(count - 1), stride, &span)) {
        core_dt_release(t);
        return CORE_EINVAL;
    }
    repeat_bounds(count, t->lb, t->extent, stride, &lo, &hi);
    repeat_bounds(count, t->true_lb, t->true_extent, stride, &tlo, &thi);
    t->size = bytes;
    t->nbasic = nbasic;
    t->lb = lo;
    t->extent = hi - lo;
    t->true_lb = tlo;
    t->true_extent = thi - tlo;
    t->ntile = count;
    t->tile_stride = stride;
    dt_set_contig(t);
    *out = t;
    return 0;
}

int core_dt_set_args(MPI_Datatype t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *aints, int nd, const MPI_Datatype *types)
{
    /* one allocation: the header, then the addresses, the types, the ints (widest first) */
    core_dt_args_t *a = malloc(sizeof(*a) + (size_t)na * sizeof(MPI_Aint) +
                               (size_t)nd * sizeof(MPI_Datatype) + (size_t)ni * sizeof(int));
    if (!a)
        return CORE_ENOMEM;
    *a = (core_dt_args_t){combiner, ni, na, nd, NULL, NULL, NULL};
    a->aints = (MPI_Aint *)(a + 1);
    a->types = (MPI_Datatype *)(a->aints + na);
    a->ints = (int *)(a->types + nd);
    if (na)
        memcpy(a->aints, aints, (size_t)na * sizeof(MPI_Aint));
    if (ni)
        memcpy(a->ints, ints, (size_t)ni * sizeof(int));
    for (int i = 0; i < nd; i++) {
        a->types[i] = types[i];
        core_dt_retain(types[i]);
    }
    args_free(t->args);
    t->args = a;
    return 0;
}

int core_dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    int rc = core_dt_dup(old, out);
    if (rc != 0)
        return rc;
    MPI_Datatype t = *out;
    t->lb = lb;
    t->extent = extent;
    t->flags |= CORE_DT_MARKED;
    t->flags &= ~(unsigned)CORE_DT_COMMITTED;
    dt_set_contig(t);
    return 0;
}

/*
 * Built from the fastest-varying dimension out: each level is subsizes[d]
 * copies of the level below, one row of the full array (stride) apart; the
 * whole is then moved to the start corner and given the full array's bounds,
 * [0, product of sizes * old's extent).
 */
int core_dt_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts,
                     int c_order, MPI_Datatype old, MPI_Datatype *out)
{
    MPI_Datatype t = old, next;
    MPI_Aint stride = old->extent, corner = 0;
    int rc = 0;
    for (int k = 0; k < ndims && rc == 0; k++) {
        int d = c_order ? ndims - 1 - k : k;
        core_dt_piece_t *p = malloc((subsizes[d] > 0 ? (size_t)subsizes[d] : 1) * sizeof(*p));
        if (!p) {
            rc = CORE_ENOMEM;
            break;
        }
        for (int j = 0; j < subsizes[d]; j++)
            p[j] = (core_dt_piece_t){1, (MPI_Aint)j * stride, t};
        rc = core_dt_pieces((size_t)subsizes[d], p, 0, &next);
        free(p);
        if (rc == 0) {
            if (t != old)
                core_dt_release(t);
            t = next;
            corner += (MPI_Aint)starts[d] * stride;
            if (__builtin_mul_overflow(stride, (MPI_Aint)sizes[d], &stride))
                rc = CORE_EINVAL;
        }
    }
    if (rc == 0) {
        core_dt_piece_t at = {1, corner, t};
        rc = core_dt_pieces(1, &at, 0, &next);
    }
    if (t != old)
        core_dt_release(t);
    if (rc == 0) {
        rc = core_dt_resized(next, 0, stride, out);
        core_dt_release(next);
    }
    return rc;
}

int core_dt_contiguous(int count, MPI_Datatype old, MPI_Datatype *out)
{
    MPI_Aint span, bytes;

    if (count < 0)
        return CORE_ECOUNT;
    if (__builtin_mul_overflow((MPI_Aint)count, old->extent, &span) ||
        __builtin_mul_overflow((MPI_Aint)count, (MPI_Aint)old->size, &bytes))
        return CORE_EINVAL;
    core_dt_piece_t p = {(size_t)count, 0, old};
    int rc = core_dt_pieces(1, &p, 0, out);
    if (rc == 0) {
        /* even empty, it keeps old's element kind and alignment */
        (*out)->basic = old->basic;
        (*out)->align = old->align;
        (*out)->flags |= old->flags & CORE_DT_MARKED;
    }
    return rc;
}

int core_dt_dup(MPI_Datatype old, MPI_Datatype *out)
{
    MPI_Datatype t = dt_alloc();
    if (!t)
        return CORE_ENOMEM;
    *t = *old;
    t->refcount = 1;
    t->args = NULL;
    t->attrs = NULL;
    t->flags &= ~(unsigned)CORE_DT_PREDEFINED;
    t->kind = CORE_DT_NONE;
    t->name[0] = '\0';
    if (dt_alloc_blocks(t, old->nblocks) != 0 || core_dt_sig_copy(t, old) != 0) {
        if (t->nblocks > 1 && t->blocks)
            free(t->blocks);
        core_handle_free(&core_handles.dt, t);
        return CORE_ENOMEM;
    }
    if (old->nblocks)
        memcpy(t->blocks, old->blocks, old->nblocks * sizeof(*t->blocks));
    *out = t;
    return 0;
}

int core_dt_remap(MPI_Datatype like, size_t n, const core_dt_block_t *runs, MPI_Datatype *out)
{
    size_t bytes = 0;
    MPI_Aint lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += runs[i].len;
        if (i == 0 || runs[i].off < lo)
            lo = runs[i].off;
        if (i == 0 || runs[i].off + (MPI_Aint)runs[i].len > hi)
            hi = runs[i].off + (MPI_Aint)runs[i].len;
    }
    if (bytes != like->size || n > CORE_DT_MAX_RUNS)
        return CORE_EINVAL;
    MPI_Datatype t = dt_alloc();
    if (!t)
        return CORE_ENOMEM;
    *t = *like;
    t->refcount = 1;
    t->args = NULL;
    t->attrs = NULL;
    t->sig = NULL;
    t->nsig = 0;
    t->flags &= ~(unsigned)(CORE_DT_PREDEFINED | CORE_DT_MARKED);
    t->flags |= CORE_DT_COMMITTED;
    t->kind = CORE_DT_NONE;
    t->name[0] = '\0';
    t->ntile = 0;
    t->tile_stride = 0;
    if (dt_alloc_blocks(t, n) != 0 || core_dt_sig_copy(t, like) != 0) {
        if (t->nblocks > 1 && t->blocks)
            free(t->blocks);
        core_handle_free(&core_handles.dt, t);
        return CORE_ENOMEM;
    }
    if (n)
        memcpy(t->blocks, runs, n * sizeof(*t->blocks));
    t->lb = t->true_lb = lo;
    t->extent = t->true_extent = hi - lo;
    dt_set_contig(t);
    *out = t;
    return 0;
}

/* Predefined types are never counted: they live as long as the library. */
void core_dt_retain(MPI_Datatype dt)
{
    if (!(dt->flags & CORE_DT_PREDEFINED))
        core_ref_get(&dt->refcount);
}

void core_dt_release(MPI_Datatype dt)
{
    if (dt->flags & CORE_DT_PREDEFINED)
        return;
    if (core_ref_put(&dt->refcount) == 0)
        dt_free(dt);
}

void core_dt_pack(void *dst, const void *buf, size_t count, MPI_Datatype dt)
{
    if (core_dt_is_contig(dt)) {
        if (count && dt->size)
            memcpy(dst, buf, count * dt->size);
        return;
    }
    char *d = dst;
    size_t ntile = core_dt_ntile(dt);
    for (size_t i = 0; i < count; i++) {
        const char *item = (const char *)buf + (MPI_Aint)i * dt->extent;
        for (size_t t = 0; t < ntile; t++, item += dt->tile_stride) {
            for (size_t j = 0; j < dt->nblocks; j++) {
                memcpy(d, item + dt->blocks[j].off, dt->blocks[j].len);
                d += dt->blocks[j].len;
            }
        }
    }
}

void core_dt_unpack(void *buf, size_t count, MPI_Datatype dt, const void *src, size_t len)
{
    size_t total = count * dt->size;
    if (len > total)
        len = total;
    if (len == 0)
        return;
    if (core_dt_is_contig(dt)) {
        memcpy(buf, src, len);
        return;
    }
    const char *s = src;
    size_t ntile = core_dt_ntile(dt);
    for (size_t i = 0; i < count; i++) {
        char *item = (char *)buf + (MPI_Aint)i * dt->extent;
        for (size_t t = 0; t < ntile; t++, item += dt->tile_stride) {
            for (size_t j = 0; j < dt->nblocks; j++) {
                size_t n = dt->blocks[j].len < len ? dt->blocks[j].len : len;
                memcpy(item + dt->blocks[j].off, s, n);
                s += n;
                len -= n;
                if (len == 0)
                    return;
            }
        }
    }
}

/*
 * The signature of dt is copies of one predefined "unit" of kind dt->basic
 * (one element, or a value and an index for pair kinds). nbytes packed bytes
 * are whole units, possibly followed by a pair's value alone.
 */
MPI_Count core_dt_elements(MPI_Datatype dt, size_t nbytes)
{
    if (nbytes == 0 || dt->size == 0)
        return 0;
    if (dt->basic == CORE_DT_NONE) {
        MPI_Count whole = (MPI_Count)(nbytes / dt->size * dt->nbasic);
        if (nbytes % dt->size == 0)
            return whole;
        MPI_Count part = core_dt_sig_elements(dt, nbytes % dt->size);
        return part == MPI_UNDEFINED ? MPI_UNDEFINED : whole + part;
    }
    size_t value = pair_value_size(dt->basic);
    size_t per_unit = value ? 2 : 1;
    size_t unit = dt->size * per_unit / dt->nbasic;
    MPI_Count n = (MPI_Count)(nbytes / unit * per_unit);
    size_t rest = nbytes % unit;
    if (rest == 0)
        return n;
    if (rest == value)
        return n + 1;
    return MPI_UNDEFINED;
}
