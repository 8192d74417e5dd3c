/*
 * external32 (MPI-3.1 13.5.2): conversion between rdmpi's packed form (a
 * type's elements in type-map order, as core_dt_pack lays them out, in the
 * machine's representation) and the portable one: every element
 * big-endian, integers two's complement, floating point IEEE, with the
 * sizes of the standard's table 13.2. Where the sizes differ (MPI_LONG and
 * MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2) only the low-order bytes
 * travel, as the standard says, so every value in the smaller type's range
 * survives; decoding sign-extends the signed ones. MPI_LONG_DOUBLE is IEEE
 * binary128 (16 bytes): x87 80-bit extended values are converted exactly.
 *
 * A type made of one predefined element kind (dt->basic) is a run of those
 * elements. Any other (a struct of mixed kinds, or something built from
 * one) is walked through its constructor record (dt->args): a struct is its
 * members' blocks in order; every other constructor is copies of its one
 * old type, as many as its size holds.
 */
#include <float.h>
#include <stdint.h>
#include <string.h>
#include "core/external32.h"
#include "core/errors.h"

/* How one element of a kind converts: native and external sizes, and how. */
enum conv { C_UINT, C_SINT, C_FLOAT, C_LDOUBLE };
typedef struct elem {
    unsigned char nat, ext, conv;
} elem_t;

/* The elements of one unit of a kind: one, or two for the pair types and
 * complex numbers. Returns their number; 0 for a kind with no conversion. */
static int kind_elems(enum core_dt_kind k, elem_t e[2])
{
    const elem_t i4 = { 4, 4, C_SINT };
    switch (k) {
    case CORE_DT_CHAR: case CORE_DT_SCHAR: case CORE_DT_INT8:
        e[0] = (elem_t){ 1, 1, C_SINT }; return 1;
    case CORE_DT_UCHAR: case CORE_DT_BYTE: case CORE_DT_UINT8: case CORE_DT_BOOL:
    case CORE_DT_PACKED:
        e[0] = (elem_t){ 1, 1, C_UINT }; return 1;
    case CORE_DT_SHORT: case CORE_DT_INT16: e[0] = (elem_t){ 2, 2, C_SINT }; return 1;
    case CORE_DT_USHORT: case CORE_DT_UINT16: e[0] = (elem_t){ 2, 2, C_UINT }; return 1;
    case CORE_DT_INT: case CORE_DT_INT32: e[0] = i4; return 1;
    case CORE_DT_UINT: case CORE_DT_UINT32: e[0] = (elem_t){ 4, 4, C_UINT }; return 1;
    case CORE_DT_LONG: e[0] = (elem_t){ sizeof(long), 4, C_SINT }; return 1;
    case CORE_DT_ULONG: e[0] = (elem_t){ sizeof(long), 4, C_UINT }; return 1;
    case CORE_DT_LLONG: case CORE_DT_INT64: case CORE_DT_AINT: case CORE_DT_OFFSET:
    case CORE_DT_COUNT:
        e[0] = (elem_t){ 8, 8, C_SINT }; return 1;
    case CORE_DT_ULLONG: case CORE_DT_UINT64: e[0] = (elem_t){ 8, 8, C_UINT }; return 1;
    case CORE_DT_WCHAR: e[0] = (elem_t){ sizeof(wchar_t), 2, C_UINT }; return 1;
    case CORE_DT_FLOAT: e[0] = (elem_t){ 4, 4, C_FLOAT }; return 1;
    case CORE_DT_DOUBLE: e[0] = (elem_t){ 8, 8, C_FLOAT }; return 1;
    case CORE_DT_LDOUBLE: e[0] = (elem_t){ sizeof(long double), 16, C_LDOUBLE }; return 1;
    case CORE_DT_CFLOAT: e[0] = e[1] = (elem_t){ 4, 4, C_FLOAT }; return 2;
    case CORE_DT_CDOUBLE: e[0] = e[1] = (elem_t){ 8, 8, C_FLOAT }; return 2;
    case CORE_DT_CLDOUBLE:
        e[0] = e[1] = (elem_t){ sizeof(long double), 16, C_LDOUBLE }; return 2;
    case CORE_DT_FLOAT_INT: e[0] = (elem_t){ 4, 4, C_FLOAT }; e[1] = i4; return 2;
    case CORE_DT_DOUBLE_INT: e[0] = (elem_t){ 8, 8, C_FLOAT }; e[1] = i4; return 2;
    case CORE_DT_LONG_INT: e[0] = (elem_t){ sizeof(long), 4, C_SINT }; e[1] = i4; return 2;
    case CORE_DT_2INT: e[0] = e[1] = i4; return 2;
    case CORE_DT_SHORT_INT: e[0] = (elem_t){ 2, 2, C_SINT }; e[1] = i4; return 2;
    case CORE_DT_LDOUBLE_INT:
        e[0] = (elem_t){ sizeof(long double), 16, C_LDOUBLE }; e[1] = i4; return 2;
    /* Fortran's: LOGICAL is a 4-byte integer, the MINLOC pairs two reals */
    case CORE_DT_FLOGICAL: e[0] = i4; return 1;
    case CORE_DT_2REAL: e[0] = e[1] = (elem_t){ 4, 4, C_FLOAT }; return 2;
    case CORE_DT_2DOUBLE: e[0] = e[1] = (elem_t){ 8, 8, C_FLOAT }; return 2;
    default:
        return 0;
    }
}

/* ---- one element ------------------------------------------------------------------ */

static void put_be(unsigned char *o, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        o[i] = (unsigned char)v;
}

static uint64_t get_be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* An n-byte native element as a number (its bits, zero-extended), and back. */
static uint64_t load_native(const unsigned char *p, int n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return get_be(p, n);
#else
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
#endif
}

static void store_native(unsigned char *p, uint64_t v, int n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    put_be(p, v, n);
#else
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (unsigned char)v;
#endif
}

/* long double <-> IEEE binary128, big-endian. */
static void ld_encode(const unsigned char *nat, unsigned char *o)
{
#if LDBL_MANT_DIG == 64
    /* x87 extended: 64-bit significand with an explicit integer bit, then
     * sign and a 15-bit exponent of the same bias as binary128. */
    uint64_t mant = load_native(nat, 8);
    unsigned se = (unsigned)load_native(nat + 8, 2);
    uint64_t frac = mant << 1; /* the integer bit is implicit in binary128 */
    put_be(o, (uint64_t)se << 48 | frac >> 16, 8);
    put_be(o + 8, frac << 48, 8);
#elif LDBL_MANT_DIG == 113
    for (int i = 0; i < 16; i++)
        o[i] = nat[15 - i];
#else /* long double is double */
    double d;
    memcpy(&d, nat, sizeof(d));
    uint64_t b;
    memcpy(&b, &d, 8);
    unsigned sign = (unsigned)(b >> 63), e = (unsigned)(b >> 52) & 0x7ff;
    uint64_t f = b & ((1ull << 52) - 1);
    unsigned e15 = e == 0 ? 0 : e == 0x7ff ? 0x7fff : e - 1023 + 16383;
    put_be(o, (uint64_t)(sign << 15 | e15) << 48 | f >> 4, 8);
    put_be(o + 8, f << 60, 8);
#endif
}

static void ld_decode(const unsigned char *in, unsigned char *nat)
{
#if LDBL_MANT_DIG == 64
    uint64_t hi = get_be(in, 8), lo = get_be(in + 8, 8);
    unsigned se = (unsigned)(hi >> 48), e = se & 0x7fff;
    uint64_t frac = (hi << 16) | (lo >> 48); /* the top 64 of the 112 fraction bits */
    uint64_t mant = frac >> 1 | (e != 0 ? 1ull << 63 : 0);
    memset(nat, 0, sizeof(long double));
    store_native(nat, mant, 8);
    store_native(nat + 8, se, 2);
#elif LDBL_MANT_DIG == 113
    for (int i = 0; i < 16; i++)
        nat[i] = in[15 - i];
#else
    uint64_t hi = get_be(in, 8), lo = get_be(in + 8, 8);
    unsigned sign = (unsigned)(hi >> 63), e15 = (unsigned)(hi >> 48) & 0x7fff;
    uint64_t f = (hi << 16 | lo >> 48) >> 12;
    int e = e15 == 0 ? 0 : e15 == 0x7fff ? 0x7ff : (int)e15 - 16383 + 1023;
    if (e15 && e15 != 0x7fff && e <= 0)
        e = 0, f = 0; /* below double's range: zero */
    else if (e15 != 0x7fff && e >= 0x7ff)
        e = 0x7ff, f = 0; /* above: infinity */
    uint64_t b = (uint64_t)sign << 63 | (uint64_t)e << 52 | f;
    double d;
    memcpy(&d, &b, 8);
    memcpy(nat, &d, sizeof(d));
#endif
}

static void elem_encode(const elem_t *e, const unsigned char *nat, unsigned char *o)
{
    switch (e->conv) {
    case C_LDOUBLE:
        ld_encode(nat, o);
        break;
    default: /* integers keep their low bytes; floats are bytes reversed */
        put_be(o, load_native(nat, e->nat), e->ext);
        break;
    }
}

static void elem_decode(const elem_t *e, const unsigned char *in, unsigned char *nat)
{
    if (e->conv == C_LDOUBLE) {
        ld_decode(in, nat);
        return;
    }
    uint64_t v = get_be(in, e->ext);
    if (e->conv == C_SINT && e->ext < 8 && (v >> (8 * e->ext - 1)) & 1)
        v |= ~0ull << (8 * e->ext); /* sign-extend to the native width */
    store_native(nat, v, e->nat);
}

/* ---- types ------------------------------------------------------------------------ */

/* The kind a unit of which makes up dt, and the unit's native size; NONE
 * when dt mixes kinds. */
static enum core_dt_kind unit_kind(MPI_Datatype dt, size_t *unit)
{
    elem_t e[2];
    int n = dt->basic != CORE_DT_NONE ? kind_elems(dt->basic, e) : 0;
    if (n == 0)
        return CORE_DT_NONE;
    *unit = e[0].nat + (n > 1 ? e[1].nat : 0);
    return dt->basic;
}

/* What a walk does with one run of n units of kind k. */
typedef struct walk {
    int dir;                  /* 0: measure, 1: encode, 2: decode */
    const unsigned char *in;
    unsigned char *out;
    size_t ext;               /* external bytes so far */
} walk_t;

static void run(walk_t *w, enum core_dt_kind k, size_t n)
{
    elem_t e[2];
    int ne = kind_elems(k, e);
    size_t unit_ext = e[0].ext + (ne > 1 ? e[1].ext : 0);
    w->ext += n * unit_ext;
    if (w->dir == 0)
        return;
    for (size_t u = 0; u < n; u++)
        for (int j = 0; j < ne; j++) {
            if (w->dir == 1) {
                elem_encode(&e[j], w->in, w->out);
                w->in += e[j].nat, w->out += e[j].ext;
            } else {
                elem_decode(&e[j], w->in, w->out);
                w->in += e[j].ext, w->out += e[j].nat;
            }
        }
}

static int walk(walk_t *w, MPI_Datatype dt, size_t count)
{
    size_t unit;
    if (dt->size == 0 || count == 0)
        return 0;
    enum core_dt_kind k = unit_kind(dt, &unit);
    if (k != CORE_DT_NONE) {
        run(w, k, count * (dt->size / unit));
        return 0;
    }
    const core_dt_args_t *a = dt->args;
    if (!a)
        return CORE_ETYPE;
    for (size_t c = 0; c < count; c++) {
        if (a->combiner == MPI_COMBINER_STRUCT) {
            for (int i = 0; i < a->ints[0]; i++) {
                int rc = walk(w, a->types[i], (size_t)a->ints[1 + i]);
                if (rc)
                    return rc;
            }
        } else {
            MPI_Datatype old = a->types[0];
            int rc = walk(w, old, old->size ? dt->size / old->size : 0);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int core_x32_size(MPI_Datatype dt, size_t count, size_t *size)
{
    walk_t w = { 0, NULL, NULL, 0 };
    int rc = walk(&w, dt, count);
    if (rc == 0)
        *size = w.ext;
    return rc;
}

int core_x32_encode(MPI_Datatype dt, size_t count, const void *native, void *ext)
{
    walk_t w = { 1, native, ext, 0 };
    return walk(&w, dt, count);
}

int core_x32_decode(MPI_Datatype dt, size_t count, const void *ext, void *native)
{
    walk_t w = { 2, ext, native, 0 };
    return walk(&w, dt, count);
}
