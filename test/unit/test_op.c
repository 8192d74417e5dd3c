/*
 * Unit test of src/core/op.c: every predefined op on every predefined type
 * against a straightforward reference computed in long long / long double
 * (and rejected where MPI-4.1 does not define it), integer wraparound,
 * MINLOC/MAXLOC on every pair type including ties, ops on contiguous derived
 * types (in place and through the packed path, holes left alone), REPLACE
 * and NO_OP, and the argument order of user functions.
 */
#include <complex.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datatype.h"
#include "core/errors.h"
#include "core/op.h"

static int failures;

static void report(const char *name, int ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS: unit/op/%s\n", name);
        return;
    }
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    printf("FAIL: unit/op/%s %s\n", name, detail);
    failures++;
}

#define EXPECT(cond, ...)                                                          \
    do {                                                                           \
        if (!(cond) && !why[0])                                                    \
            snprintf(why, sizeof(why), __VA_ARGS__);                               \
    } while (0)

/* ---- The reference: which ops MPI-4.1 defines on which types ----------- */

/* CHAR_ARITH: MPI_CHAR, a character type that also takes the arithmetic ops, as Open MPI and
 * MPICH allow (core/op.c) */
enum cls { INTEGER, FLOATING, COMPLEX, LOGICAL, BYTE, CHARACTER, OPAQUE, CHAR_ARITH };

static const struct {
    MPI_Datatype dt;
    enum cls cls;
    int is_signed;
} types[] = {
    {MPI_CHAR, CHAR_ARITH, 1},         {MPI_WCHAR, CHARACTER, 1},
    {MPI_PACKED, OPAQUE, 0},          {MPI_BYTE, BYTE, 0},
    {MPI_C_BOOL, LOGICAL, 0},         {MPI_SIGNED_CHAR, INTEGER, 1},
    {MPI_UNSIGNED_CHAR, INTEGER, 0},  {MPI_SHORT, INTEGER, 1},
    {MPI_UNSIGNED_SHORT, INTEGER, 0}, {MPI_INT, INTEGER, 1},
    {MPI_UNSIGNED, INTEGER, 0},       {MPI_LONG, INTEGER, 1},
    {MPI_UNSIGNED_LONG, INTEGER, 0},  {MPI_LONG_LONG, INTEGER, 1},
    {MPI_UNSIGNED_LONG_LONG, INTEGER, 0},
    {MPI_INT8_T, INTEGER, 1},         {MPI_INT16_T, INTEGER, 1},
    {MPI_INT32_T, INTEGER, 1},        {MPI_INT64_T, INTEGER, 1},
    {MPI_UINT8_T, INTEGER, 0},        {MPI_UINT16_T, INTEGER, 0},
    {MPI_UINT32_T, INTEGER, 0},       {MPI_UINT64_T, INTEGER, 0},
    {MPI_AINT, INTEGER, 1},           {MPI_OFFSET, INTEGER, 1},
    {MPI_COUNT, INTEGER, 1},          {MPI_FLOAT, FLOATING, 1},
    {MPI_DOUBLE, FLOATING, 1},        {MPI_LONG_DOUBLE, FLOATING, 1},
    {MPI_C_FLOAT_COMPLEX, COMPLEX, 1}, {MPI_C_DOUBLE_COMPLEX, COMPLEX, 1},
    {MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX, 1},
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const struct {
    MPI_Op op;
    unsigned classes; /* bit per enum cls */
} ops[] = {
    {MPI_MAX, 1u << INTEGER | 1u << FLOATING | 1u << CHAR_ARITH},
    {MPI_MIN, 1u << INTEGER | 1u << FLOATING | 1u << CHAR_ARITH},
    {MPI_SUM, 1u << INTEGER | 1u << FLOATING | 1u << COMPLEX | 1u << CHAR_ARITH},
    {MPI_PROD, 1u << INTEGER | 1u << FLOATING | 1u << COMPLEX | 1u << CHAR_ARITH},
    {MPI_LAND, 1u << INTEGER | 1u << LOGICAL},
    {MPI_LOR, 1u << INTEGER | 1u << LOGICAL},
    {MPI_LXOR, 1u << INTEGER | 1u << LOGICAL},
    {MPI_BAND, 1u << INTEGER | 1u << BYTE},
    {MPI_BOR, 1u << INTEGER | 1u << BYTE},
    {MPI_BXOR, 1u << INTEGER | 1u << BYTE},
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- Reading and writing element i of a buffer of a predefined type ------ */

static void put(MPI_Datatype dt, void *buf, size_t i, long long re, long long im)
{
    switch (dt->kind) {
    case CORE_DT_CHAR: ((char *)buf)[i] = (char)re; break;
    case CORE_DT_WCHAR: ((wchar_t *)buf)[i] = (wchar_t)re; break;
    case CORE_DT_PACKED:
    case CORE_DT_BYTE:
    case CORE_DT_UCHAR: ((unsigned char *)buf)[i] = (unsigned char)re; break;
    case CORE_DT_BOOL: ((_Bool *)buf)[i] = re != 0; break;
    case CORE_DT_SCHAR: ((signed char *)buf)[i] = (signed char)re; break;
    case CORE_DT_SHORT: ((short *)buf)[i] = (short)re; break;
    case CORE_DT_USHORT: ((unsigned short *)buf)[i] = (unsigned short)re; break;
    case CORE_DT_INT: ((int *)buf)[i] = (int)re; break;
    case CORE_DT_UINT: ((unsigned *)buf)[i] = (unsigned)re; break;
    case CORE_DT_LONG: ((long *)buf)[i] = (long)re; break;
    case CORE_DT_ULONG: ((unsigned long *)buf)[i] = (unsigned long)re; break;
    case CORE_DT_LLONG: ((long long *)buf)[i] = re; break;
    case CORE_DT_ULLONG: ((unsigned long long *)buf)[i] = (unsigned long long)re; break;
    case CORE_DT_INT8: ((int8_t *)buf)[i] = (int8_t)re; break;
    case CORE_DT_INT16: ((int16_t *)buf)[i] = (int16_t)re; break;
    case CORE_DT_INT32: ((int32_t *)buf)[i] = (int32_t)re; break;
    case CORE_DT_INT64: ((int64_t *)buf)[i] = (int64_t)re; break;
    case CORE_DT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)re; break;
    case CORE_DT_UINT16: ((uint16_t *)buf)[i] = (uint16_t)re; break;
    case CORE_DT_UINT32: ((uint32_t *)buf)[i] = (uint32_t)re; break;
    case CORE_DT_UINT64: ((uint64_t *)buf)[i] = (uint64_t)re; break;
    case CORE_DT_AINT: ((MPI_Aint *)buf)[i] = (MPI_Aint)re; break;
    case CORE_DT_OFFSET: ((MPI_Offset *)buf)[i] = (MPI_Offset)re; break;
    case CORE_DT_COUNT: ((MPI_Count *)buf)[i] = (MPI_Count)re; break;
    case CORE_DT_FLOAT: ((float *)buf)[i] = (float)re; break;
    case CORE_DT_DOUBLE: ((double *)buf)[i] = (double)re; break;
    case CORE_DT_LDOUBLE: ((long double *)buf)[i] = (long double)re; break;
    case CORE_DT_CFLOAT: ((float complex *)buf)[i] = CMPLXF((float)re, (float)im); break;
    case CORE_DT_CDOUBLE: ((double complex *)buf)[i] = CMPLX((double)re, (double)im); break;
    case CORE_DT_CLDOUBLE:
        ((long double complex *)buf)[i] = CMPLXL((long double)re, (long double)im);
        break;
    default: abort();
    }
}

/* Element i as (real, imaginary) long doubles; exact for the small values used here. */
static void get(MPI_Datatype dt, const void *buf, size_t i, long double *re, long double *im)
{
    *im = 0;
    switch (dt->kind) {
    case CORE_DT_CHAR: *re = ((const char *)buf)[i]; break;
    case CORE_DT_WCHAR: *re = ((const wchar_t *)buf)[i]; break;
    case CORE_DT_PACKED:
    case CORE_DT_BYTE:
    case CORE_DT_UCHAR: *re = ((const unsigned char *)buf)[i]; break;
    case CORE_DT_BOOL: *re = ((const _Bool *)buf)[i]; break;
    case CORE_DT_SCHAR: *re = ((const signed char *)buf)[i]; break;
    case CORE_DT_SHORT: *re = ((const short *)buf)[i]; break;
    case CORE_DT_USHORT: *re = ((const unsigned short *)buf)[i]; break;
    case CORE_DT_INT: *re = ((const int *)buf)[i]; break;
    case CORE_DT_UINT: *re = ((const unsigned *)buf)[i]; break;
    case CORE_DT_LONG: *re = ((const long *)buf)[i]; break;
    case CORE_DT_ULONG: *re = ((const unsigned long *)buf)[i]; break;
    case CORE_DT_LLONG: *re = ((const long long *)buf)[i]; break;
    case CORE_DT_ULLONG: *re = ((const unsigned long long *)buf)[i]; break;
    case CORE_DT_INT8: *re = ((const int8_t *)buf)[i]; break;
    case CORE_DT_INT16: *re = ((const int16_t *)buf)[i]; break;
    case CORE_DT_INT32: *re = ((const int32_t *)buf)[i]; break;
    case CORE_DT_INT64: *re = ((const int64_t *)buf)[i]; break;
    case CORE_DT_UINT8: *re = ((const uint8_t *)buf)[i]; break;
    case CORE_DT_UINT16: *re = ((const uint16_t *)buf)[i]; break;
    case CORE_DT_UINT32: *re = ((const uint32_t *)buf)[i]; break;
    case CORE_DT_UINT64: *re = ((const uint64_t *)buf)[i]; break;
    case CORE_DT_AINT: *re = ((const MPI_Aint *)buf)[i]; break;
    case CORE_DT_OFFSET: *re = ((const MPI_Offset *)buf)[i]; break;
    case CORE_DT_COUNT: *re = ((const MPI_Count *)buf)[i]; break;
    case CORE_DT_FLOAT: *re = ((const float *)buf)[i]; break;
    case CORE_DT_DOUBLE: *re = ((const double *)buf)[i]; break;
    case CORE_DT_LDOUBLE: *re = ((const long double *)buf)[i]; break;
    case CORE_DT_CFLOAT:
        *re = crealf(((const float complex *)buf)[i]);
        *im = cimagf(((const float complex *)buf)[i]);
        break;
    case CORE_DT_CDOUBLE:
        *re = creal(((const double complex *)buf)[i]);
        *im = cimag(((const double complex *)buf)[i]);
        break;
    case CORE_DT_CLDOUBLE:
        *re = creall(((const long double complex *)buf)[i]);
        *im = cimagl(((const long double complex *)buf)[i]);
        break;
    default: abort();
    }
}

/* The reference result of op on (a + ai i) and (b + bi i), in long long. */
static void reference(MPI_Op op, long long a, long long ai, long long b, long long bi,
                      long long *re, long long *im)
{
    *im = 0;
    if (op == MPI_MAX) *re = a > b ? a : b;
    else if (op == MPI_MIN) *re = a < b ? a : b;
    else if (op == MPI_SUM) { *re = a + b; *im = ai + bi; }
    else if (op == MPI_PROD) { *re = a * b - ai * bi; *im = a * bi + ai * b; }
    else if (op == MPI_LAND) *re = a && b;
    else if (op == MPI_LOR) *re = a || b;
    else if (op == MPI_LXOR) *re = !a != !b;
    else if (op == MPI_BAND) *re = a & b;
    else if (op == MPI_BOR) *re = a | b;
    else *re = a ^ b;
}

#define N 11

/* Small test values that fit every type: signed types get negatives, C_BOOL only 0/1. */
static long long value(size_t k, int which, enum cls cls, int is_signed)
{
    long long v = which ? (long long)((k * 5 + 2) % 9) : (long long)((k * 7) % 8);
    if (cls == LOGICAL)
        return v & 1;
    return is_signed ? v - 3 : v;
}

static void test_predefined_ops(void)
{
    char why[256] = "", vwhy[256] = "";
    unsigned char in[N * 32], inout[N * 32], before[N * 32];

    for (size_t o = 0; o < NOPS; o++) {
        for (size_t t = 0; t < NTYPES; t++) {
            MPI_Datatype dt = types[t].dt;
            MPI_Op op = ops[o].op;
            int valid = (ops[o].classes >> types[t].cls) & 1;
            for (size_t k = 0; k < N; k++) {
                long long a = value(k, 0, types[t].cls, types[t].is_signed);
                long long b = value(k, 1, types[t].cls, types[t].is_signed);
                put(dt, in, k, a, b);
                put(dt, inout, k, b, a - 1);
            }
            memcpy(before, inout, sizeof(inout));
            if (core_op_valid(op, dt) != valid) {
                if (!vwhy[0])
                    snprintf(vwhy, sizeof(vwhy), "%s on %s: valid=%d, expected %d", op->name,
                             dt->name, !valid, valid);
                continue;
            }
            int rc = core_op_apply(op, in, inout, N, dt);
            if (!valid) {
                EXPECT(rc == CORE_EOP && memcmp(before, inout, sizeof(inout)) == 0,
                       "%s on %s: invalid pair returned %d or changed inout", op->name,
                       dt->name, rc);
                continue;
            }
            EXPECT(rc == 0, "%s on %s returned %d", op->name, dt->name, rc);
            for (size_t k = 0; k < N; k++) {
                long long a = value(k, 0, types[t].cls, types[t].is_signed);
                long long b = value(k, 1, types[t].cls, types[t].is_signed);
                long long re, im;
                long double gre, gim;
                if (types[t].cls == COMPLEX)
                    reference(op, a, b, b, a - 1, &re, &im);
                else
                    reference(op, a, 0, b, 0, &re, &im);
                if (!types[t].is_signed && types[t].cls == INTEGER)
                    re = re & (long long)((1ull << (8 * dt->size - 1) << 1) - 1);
                get(dt, inout, k, &gre, &gim);
                EXPECT(gre == (long double)re && gim == (long double)im,
                       "%s on %s element %zu: got %Lg%+Lgi, expected %lld%+lldi", op->name,
                       dt->name, k, gre, gim, re, im);
            }
        }
    }
    report("validity_table", !vwhy[0], "%s", vwhy);
    report("predefined_ops", !why[0], "%s", why);
}

/* Sums and products wrap like the machine's unsigned arithmetic. */
static void test_wraparound(void)
{
    char why[256] = "";
    int ia = INT_MAX, ib = 1;
    core_op_apply(MPI_SUM, &ia, &ib, 1, MPI_INT);
    EXPECT(ib == INT_MIN, "INT_MAX + 1 = %d", ib);
    uint16_t ua = 65535, ub = 65535;
    core_op_apply(MPI_PROD, &ua, &ub, 1, MPI_UINT16_T);
    EXPECT(ub == 1, "65535 * 65535 in uint16 = %u", ub);
    unsigned short sa = 65535, sb = 65535;
    core_op_apply(MPI_PROD, &sa, &sb, 1, MPI_UNSIGNED_SHORT);
    EXPECT(sb == 1, "65535 * 65535 in unsigned short = %u", sb);
    unsigned char ca = 200, cb = 100;
    core_op_apply(MPI_SUM, &ca, &cb, 1, MPI_UNSIGNED_CHAR);
    EXPECT(cb == 44, "200 + 100 in uchar = %u", cb);
    int64_t la = INT64_MAX, lb = 2;
    core_op_apply(MPI_PROD, &la, &lb, 1, MPI_INT64_T);
    EXPECT(lb == -2, "INT64_MAX * 2 = %lld", (long long)lb);
    unsigned char xa = 0xF0, xb = 0x3C;
    core_op_apply(MPI_BXOR, &xa, &xb, 1, MPI_BYTE);
    EXPECT(xb == 0xCC, "0xF0 ^ 0x3C on MPI_BYTE = %#x", xb);
    report("wraparound", !why[0], "%s", why);
}

/* ---- MINLOC / MAXLOC ----------------------------------------------------- */

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };

struct pair_shape {
    MPI_Datatype dt;
    size_t vsize, ioff, extent;
};

static const struct pair_shape pairs[] = {
    {MPI_FLOAT_INT, sizeof(float), offsetof(struct float_int, i), sizeof(struct float_int)},
    {MPI_DOUBLE_INT, sizeof(double), offsetof(struct double_int, i), sizeof(struct double_int)},
    {MPI_LONG_INT, sizeof(long), offsetof(struct long_int, i), sizeof(struct long_int)},
    {MPI_2INT, sizeof(int), offsetof(struct two_int, i), sizeof(struct two_int)},
    {MPI_SHORT_INT, sizeof(short), offsetof(struct short_int, i), sizeof(struct short_int)},
    {MPI_LONG_DOUBLE_INT, sizeof(long double), offsetof(struct ldouble_int, i),
     sizeof(struct ldouble_int)},
};
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static void put_pair(const struct pair_shape *s, void *buf, size_t k, int v, int idx)
{
    char *p = (char *)buf + k * s->extent;
    switch (s->dt->kind) {
    case CORE_DT_FLOAT_INT: { float x = (float)v; memcpy(p, &x, sizeof(x)); break; }
    case CORE_DT_DOUBLE_INT: { double x = v; memcpy(p, &x, sizeof(x)); break; }
    case CORE_DT_LONG_INT: { long x = v; memcpy(p, &x, sizeof(x)); break; }
    case CORE_DT_2INT: { int x = v; memcpy(p, &x, sizeof(x)); break; }
    case CORE_DT_SHORT_INT: { short x = (short)v; memcpy(p, &x, sizeof(x)); break; }
    case CORE_DT_LDOUBLE_INT: { long double x = v; memcpy(p, &x, sizeof(x)); break; }
    default: abort();
    }
    memcpy(p + s->ioff, &idx, sizeof(idx));
}

static void get_pair(const struct pair_shape *s, const void *buf, size_t k, int *v, int *idx)
{
    const char *p = (const char *)buf + k * s->extent;
    switch (s->dt->kind) {
    case CORE_DT_FLOAT_INT: { float x; memcpy(&x, p, sizeof(x)); *v = (int)x; break; }
    case CORE_DT_DOUBLE_INT: { double x; memcpy(&x, p, sizeof(x)); *v = (int)x; break; }
    case CORE_DT_LONG_INT: { long x; memcpy(&x, p, sizeof(x)); *v = (int)x; break; }
    case CORE_DT_2INT: { int x; memcpy(&x, p, sizeof(x)); *v = x; break; }
    case CORE_DT_SHORT_INT: { short x; memcpy(&x, p, sizeof(x)); *v = x; break; }
    case CORE_DT_LDOUBLE_INT: { long double x; memcpy(&x, p, sizeof(x)); *v = (int)x; break; }
    default: abort();
    }
    memcpy(idx, p + s->ioff, sizeof(*idx));
}

/* The padding bytes of pair k hold the sentinel (not written by the op). */
static int holes_intact(const struct pair_shape *s, const void *buf, size_t k)
{
    const unsigned char *p = (const unsigned char *)buf + k * s->extent;
    for (size_t x = 0; x < s->extent; x++) {
        int data = x < s->vsize || (x >= s->ioff && x < s->ioff + sizeof(int));
        if (!data && p[x] != 0xEE)
            return 0;
    }
    return 1;
}

#define NLOC 12

/* Values with many ties, indices crossing both ways. */
static void loc_inputs(size_t k, int *av, int *ai, int *bv, int *bi)
{
    *av = (int)(k % 3) - 1;
    *bv = (int)((k / 3) % 3) - 1;
    *ai = (int)(k * 7 % 11);
    *bi = (int)(k * 5 % 13);
}

/*
 * Runs MINLOC or MAXLOC over count items of dt (NLOC pairs of shape s in all)
 * and checks every pair against the definition: the better value wins; on a
 * tie the lower index.
 */
static void check_loc(MPI_Op op, MPI_Datatype dt, int count, const struct pair_shape *s,
                      char *why, size_t whylen)
{
    unsigned char in[NLOC * 32], inout[NLOC * 32];
    int max = op == MPI_MAXLOC;
    memset(in, 0xEE, sizeof(in));
    memset(inout, 0xEE, sizeof(inout));
    for (size_t k = 0; k < NLOC; k++) {
        int av, ai, bv, bi;
        loc_inputs(k, &av, &ai, &bv, &bi);
        put_pair(s, in, k, av, ai);
        put_pair(s, inout, k, bv, bi);
    }
    int rc = core_op_apply(op, in, inout, count, dt);
    if (rc != 0) {
        snprintf(why, whylen, "%s on %s returned %d", op->name, dt->name, rc);
        return;
    }
    for (size_t k = 0; k < NLOC; k++) {
        int av, ai, bv, bi, v, idx;
        loc_inputs(k, &av, &ai, &bv, &bi);
        int wv = (max ? av > bv : av < bv) ? av : bv;
        int wi = av == bv ? (ai < bi ? ai : bi) : (wv == av ? ai : bi);
        get_pair(s, inout, k, &v, &idx);
        if (v != wv || idx != wi || !holes_intact(s, inout, k)) {
            snprintf(why, whylen, "%s on %s pair %zu: (%d,%d), expected (%d,%d)%s", op->name,
                     dt->name, k, v, idx, wv, wi, holes_intact(s, inout, k) ? "" : ", hole written");
            return;
        }
    }
}

static void test_loc(void)
{
    char why[256] = "";
    for (size_t p = 0; p < NPAIRS && !why[0]; p++) {
        check_loc(MPI_MINLOC, pairs[p].dt, NLOC, &pairs[p], why, sizeof(why));
        if (!why[0])
            check_loc(MPI_MAXLOC, pairs[p].dt, NLOC, &pairs[p], why, sizeof(why));
    }
    report("minloc_maxloc", !why[0], "%s", why);

    /* The tie rule in both directions, spelled out. */
    why[0] = '\0';
    struct double_int a = {5.0, 7}, b = {5.0, 3};
    core_op_apply(MPI_MINLOC, &a, &b, 1, MPI_DOUBLE_INT);
    EXPECT(b.v == 5.0 && b.i == 3, "MINLOC tie kept index %d, expected 3", b.i);
    a = (struct double_int){5.0, 2};
    b = (struct double_int){5.0, 9};
    core_op_apply(MPI_MAXLOC, &a, &b, 1, MPI_DOUBLE_INT);
    EXPECT(b.i == 2, "MAXLOC tie kept index %d, expected 2", b.i);
    struct two_int c = {-4, 8}, d = {-4, 1};
    core_op_apply(MPI_MAXLOC, &c, &d, 1, MPI_2INT);
    EXPECT(d.i == 1, "MAXLOC 2INT tie kept index %d, expected 1", d.i);
    report("loc_ties", !why[0], "%s", why);
}

/* ---- Fortran's types ------------------------------------------------------ */

/* The pairs whose index is a REAL, LOGICAL's 1 and 0, and the Fortran names of C kinds. */
static void test_fortran(void)
{
    char why[256] = "";
    float r_in[6] = {1, 5, 2, 2, 7, 1}, r_io[6] = {1, 9, 2, 1, 3, 4};
    core_op_apply(MPI_MINLOC, r_in, r_io, 3, MPI_2REAL);
    EXPECT(r_io[0] == 1 && r_io[1] == 5 && r_io[2] == 2 && r_io[3] == 1 && r_io[4] == 3 &&
               r_io[5] == 4, "MINLOC 2REAL: (%g,%g) (%g,%g) (%g,%g)", r_io[0], r_io[1], r_io[2],
           r_io[3], r_io[4], r_io[5]);
    double d_in[4] = {-1, 3, 8, 6}, d_io[4] = {-1, 2, 4, 1};
    core_op_apply(MPI_MAXLOC, d_in, d_io, 2, MPI_2DOUBLE_PRECISION);
    EXPECT(d_io[0] == -1 && d_io[1] == 2 && d_io[2] == 8 && d_io[3] == 6,
           "MAXLOC 2DOUBLE_PRECISION: (%g,%g) (%g,%g)", d_io[0], d_io[1], d_io[2], d_io[3]);
    int i_in[2] = {4, 9}, i_io[2] = {4, 2};
    core_op_apply(MPI_MAXLOC, i_in, i_io, 1, MPI_2INTEGER);
    EXPECT(i_io[0] == 4 && i_io[1] == 2, "MAXLOC 2INTEGER tie: (%d,%d)", i_io[0], i_io[1]);
    int32_t l_in[4] = {1, 0, 1, 0}, l_io[4] = {1, 1, 0, 0};
    core_op_apply(MPI_LAND, l_in, l_io, 4, MPI_LOGICAL);
    EXPECT(l_io[0] == 1 && l_io[1] == 0 && l_io[2] == 0 && l_io[3] == 0, "LAND LOGICAL");
    int32_t x_in[4] = {1, 0, 1, 0}, x_io[4] = {1, 1, 0, 0};
    core_op_apply(MPI_LXOR, x_in, x_io, 4, MPI_LOGICAL);
    EXPECT(x_io[0] == 0 && x_io[1] == 1 && x_io[2] == 1 && x_io[3] == 0, "LXOR LOGICAL");
    int64_t q_in = 1LL << 40, q_io = 5;
    core_op_apply(MPI_SUM, &q_in, &q_io, 1, MPI_INTEGER8);
    EXPECT(q_io == (1LL << 40) + 5, "SUM INTEGER8");
    double _Complex z_in = 1 + 2 * I, z_io = 3 - 1 * I;
    core_op_apply(MPI_PROD, &z_in, &z_io, 1, MPI_DOUBLE_COMPLEX);
    EXPECT(z_io == (1 + 2 * I) * (3 - 1 * I), "PROD DOUBLE_COMPLEX");
    /* (MPI_CHARACTER shares MPI_CHAR's kind, which takes the arithmetic ops as Open MPI's
     * and MPICH's do: issue 19's compatibility item.) */
    EXPECT(!core_op_valid(MPI_MINLOC, MPI_REAL) && !core_op_valid(MPI_LAND, MPI_REAL) &&
               !core_op_valid(MPI_BAND, MPI_LOGICAL) && !core_op_valid(MPI_SUM, MPI_LOGICAL) &&
               core_op_valid(MPI_LOR, MPI_LOGICAL) &&
               core_op_valid(MPI_MAXLOC, MPI_2REAL) && core_op_valid(MPI_SUM, MPI_COMPLEX),
           "the ops defined on Fortran's types");
    report("fortran_types", !why[0], "%s", why);
}

/* ---- Derived types ------------------------------------------------------- */

static MPI_Datatype contig(int count, MPI_Datatype old)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (core_dt_contiguous(count, old, &t) != 0)
        abort();
    return t;
}

static void test_derived(void)
{
    char why[256] = "";

    /* In place: contiguous ints. */
    MPI_Datatype i3 = contig(3, MPI_INT);
    int a[6] = {1, 2, 3, 4, 5, 6}, b[7] = {10, 20, 30, 40, 50, 60, 99};
    EXPECT(core_op_apply(MPI_SUM, a, b, 2, i3) == 0, "SUM on contig(3, MPI_INT) failed");
    EXPECT(b[0] == 11 && b[5] == 66 && b[6] == 99, "SUM on contig(3, MPI_INT): %d %d %d", b[0],
           b[5], b[6]);
    MPI_Datatype d2 = contig(2, MPI_DOUBLE);
    EXPECT(core_op_valid(MPI_MAX, d2) && !core_op_valid(MPI_BAND, d2) &&
               !core_op_valid(MPI_MINLOC, d2) && core_op_valid(MPI_MAX, i3),
           "validity on contiguous types");

    /* Pairs through the packed path (holes) and in place (FLOAT_INT has none). */
    char lwhy[256] = "";
    for (size_t p = 0; p < NPAIRS && !lwhy[0]; p++) {
        MPI_Datatype c3 = contig(3, pairs[p].dt), c2 = contig(2, pairs[p].dt);
        MPI_Datatype dup = NULL;
        core_dt_dup(pairs[p].dt, &dup);
        EXPECT(core_op_valid(MPI_MINLOC, c3) && !core_op_valid(MPI_SUM, c3),
               "validity on contig(3, %s)", pairs[p].dt->name);
        check_loc(MPI_MINLOC, c3, NLOC / 3, &pairs[p], lwhy, sizeof(lwhy));
        if (!lwhy[0])
            check_loc(MPI_MAXLOC, c2, NLOC / 2, &pairs[p], lwhy, sizeof(lwhy));
        if (!lwhy[0])
            check_loc(MPI_MAXLOC, dup, NLOC, &pairs[p], lwhy, sizeof(lwhy));
        core_dt_release(c3);
        core_dt_release(c2);
        core_dt_release(dup);
    }
    EXPECT(!lwhy[0], "%s", lwhy);
    core_dt_release(i3);
    core_dt_release(d2);
    report("derived", !why[0], "%s", why);
}

static void test_replace_noop(void)
{
    char why[256] = "";
    MPI_Datatype c3 = contig(3, MPI_DOUBLE_INT);
    struct double_int in[6], inout[6];
    memset(in, 0x11, sizeof(in));
    memset(inout, 0xEE, sizeof(inout));
    for (int k = 0; k < 6; k++)
        in[k] = (struct double_int){k * 1.5, k};
    EXPECT(core_op_apply(MPI_REPLACE, in, inout, 2, c3) == 0, "REPLACE failed");
    for (size_t k = 0; k < 6; k++) {
        EXPECT(inout[k].v == in[k].v && inout[k].i == in[k].i, "REPLACE pair %zu", k);
        EXPECT(holes_intact(&pairs[1], inout, k), "REPLACE wrote the hole of pair %zu", k);
    }
    int x[3] = {1, 2, 3}, y[3] = {7, 8, 9};
    EXPECT(core_op_apply(MPI_NO_OP, x, y, 3, MPI_INT) == 0 && y[0] == 7 && y[2] == 9, "NO_OP");
    EXPECT(core_op_apply(MPI_REPLACE, x, y, 3, MPI_INT) == 0 && y[0] == 1 && y[2] == 3,
           "REPLACE on MPI_INT");
    EXPECT(core_op_valid(MPI_REPLACE, MPI_PACKED) && core_op_valid(MPI_NO_OP, MPI_CHAR) &&
               core_op_valid(MPI_REPLACE, MPI_DOUBLE_INT),
           "REPLACE/NO_OP must be valid on every type");
    EXPECT(core_op_apply(MPI_SUM, x, y, 0, MPI_INT) == 0 && y[0] == 1, "count 0");
    core_dt_release(c3);
    report("replace_noop", !why[0], "%s", why);
}

/* ---- User ops ------------------------------------------------------------ */

static struct {
    void *invec, *inoutvec;
    int len;
    MPI_Datatype dt;
    int calls;
} seen;

/* Not commutative: inout = in - inout. */
static void minus(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    seen.invec = invec;
    seen.inoutvec = inoutvec;
    seen.len = *len;
    seen.dt = *dt;
    seen.calls++;
    const int *a = invec;
    int *b = inoutvec;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] - b[i];
}

static void test_user_op(void)
{
    char why[256] = "";
    struct rdmpi_op user = {.refcount = 1, .kind = CORE_OP_USER, .commute = 0, .fn = minus};
    int in[4] = {10, 20, 30, 40}, inout[4] = {1, 2, 3, 4};
    EXPECT(core_op_valid(&user, MPI_INT) && core_op_valid(&user, MPI_DOUBLE_INT),
           "user ops are valid on every type");
    EXPECT(core_op_apply(&user, in, inout, 4, MPI_INT) == 0, "user op returned an error");
    EXPECT(seen.calls == 1 && seen.invec == in && seen.inoutvec == inout && seen.len == 4 &&
               seen.dt == MPI_INT,
           "user fn got invec %p inoutvec %p len %d (calls %d)", seen.invec, seen.inoutvec,
           seen.len, seen.calls);
    EXPECT(inout[0] == 9 && inout[3] == 36, "inout = in - inout gave %d %d", inout[0], inout[3]);
    report("user_op", !why[0], "%s", why);
}

/*
 * The kernels are built vectorized (OP_CFLAGS): every length from 0 to 67
 * at every alignment, so vector bodies and scalar remainders both run, on
 * the types reductions use most, against a scalar loop here; and inout ==
 * in, where a vector loop must not assume the two buffers are apart.
 */
#define VEC_MAX 67
#define VEC_CHECK(T, DT, OPV, EXPR)                                                \
    do {                                                                           \
        T a[VEC_MAX + 4], b[VEC_MAX + 4], want[VEC_MAX + 4];                       \
        for (int len = 0; len <= VEC_MAX; len++) {                                 \
            for (int off = 0; off < 4; off++) {                                    \
                for (int i = 0; i < VEC_MAX + 4; i++) {                            \
                    a[i] = (T)((i * 7 + len) % 13) - (T)5;                         \
                    b[i] = (T)((i * 5 + off) % 11) - (T)4;                         \
                    want[i] = b[i];                                                \
                }                                                                  \
                for (int i = off; i < off + len; i++) {                            \
                    T x = a[i], y = b[i];                                          \
                    want[i] = (EXPR);                                              \
                }                                                                  \
                int rc = core_op_apply(OPV, a + off, b + off, len, DT);            \
                EXPECT(rc == 0 && memcmp(b, want, sizeof(b)) == 0,                 \
                       "%s on %s, %d items at offset %d: wrong result or "          \
                       "neighbours touched", (OPV)->name, (DT)->name, len, off);   \
            }                                                                      \
        }                                                                          \
        for (int i = 0; i < VEC_MAX; i++) {                                        \
            a[i] = (T)(i % 9) - (T)3;                                              \
            T x = a[i], y = a[i];                                                  \
            want[i] = (EXPR);                                                      \
        }                                                                          \
        EXPECT(core_op_apply(OPV, a, a, VEC_MAX, DT) == 0 &&                       \
                   memcmp(a, want, sizeof(T) * VEC_MAX) == 0,                      \
               "%s on %s with inout == in: wrong result", (OPV)->name, (DT)->name);  \
    } while (0)

static void test_vector_lengths(void)
{
    char why[256] = "";
    VEC_CHECK(float, MPI_FLOAT, MPI_SUM, x + y);
    VEC_CHECK(double, MPI_DOUBLE, MPI_SUM, x + y);
    VEC_CHECK(int, MPI_INT, MPI_SUM, x + y);
    VEC_CHECK(long, MPI_LONG, MPI_SUM, x + y);
    VEC_CHECK(double, MPI_DOUBLE, MPI_PROD, x * y);
    VEC_CHECK(float, MPI_FLOAT, MPI_MAX, x > y ? x : y);
    VEC_CHECK(double, MPI_DOUBLE, MPI_MIN, x < y ? x : y);
    VEC_CHECK(int, MPI_INT, MPI_MAX, x > y ? x : y);
    VEC_CHECK(long, MPI_LONG, MPI_MIN, x < y ? x : y);
    VEC_CHECK(unsigned, MPI_UNSIGNED, MPI_BXOR, x ^ y);
    report("vector_lengths", !why[0], "%s", why);
}

int main(void)
{
    test_fortran();
    setvbuf(stdout, NULL, _IOLBF, 0);
    core_dt_init();
    test_predefined_ops();
    test_wraparound();
    test_loc();
    test_derived();
    test_replace_noop();
    test_user_op();
    test_vector_lengths();
    return failures ? 1 : 0;
}
