/*
 * coll_more: the collectives MPI added after the first ones, blocking or
 * not, against references computed locally: reduce_scatter,
 * reduce_scatter_block, scan, exscan (with MPI_SUM on MPI_INT and
 * MPI_DOUBLE, MAXLOC on MPI_DOUBLE_INT, and a user operation that does not
 * commute, which checks MPI's canonical order; in place and not; counts 0,
 * 1, odd, powers of two and large, some blocks empty) and alltoallw (every
 * peer's block with its own count, datatype and byte displacement). Then
 * every predefined operation on every predefined datatype it is defined for
 * (the library's MPI_Reduce_local decides which) through reduce, allreduce,
 * scan, exscan and reduce_scatter_block, checked against MPI_Reduce_local
 * applied in rank order, and the same bits on every rank.
 *
 * Usage: coll_more [set=K | auto] [nb]: as coll_basic (set=K forces the
 * K-th algorithm of each collective; nb uses the nonblocking forms).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "mpi.h"

static int wrank, nb_mode;
static char cur[256];

#define COLL_TEST "coll_more"
#define COLL_RANK wrank
#define COLL_CUR cur
#include "coll_check.h"

static int complete(int rc, MPI_Request *req)
{
    int flag = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < 3 && !flag; k++)
        if ((rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return rc;
    return flag ? MPI_SUCCESS : MPI_Wait(req, MPI_STATUS_IGNORE);
}

static int Reduce_scatter_(const void *s, void *r, const int *c, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ireduce_scatter(s, r, c, t, op, comm, &q), &q)
                   : MPI_Reduce_scatter(s, r, c, t, op, comm);
}
static int Reduce_scatter_block_(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ireduce_scatter_block(s, r, c, t, op, comm, &q), &q)
                   : MPI_Reduce_scatter_block(s, r, c, t, op, comm);
}
static int Scan_(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iscan(s, r, c, t, op, comm, &q), &q)
                   : MPI_Scan(s, r, c, t, op, comm);
}
static int Exscan_(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iexscan(s, r, c, t, op, comm, &q), &q)
                   : MPI_Exscan(s, r, c, t, op, comm);
}
static int Reduce_(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root,
                   MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ireduce(s, r, c, t, op, root, comm, &q), &q)
                   : MPI_Reduce(s, r, c, t, op, root, comm);
}
static int Allreduce_(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iallreduce(s, r, c, t, op, comm, &q), &q)
                   : MPI_Allreduce(s, r, c, t, op, comm);
}
static int Alltoallw_(const void *s, const int *sc, const int *sd, const MPI_Datatype *st,
                      void *r, const int *rc, const int *rd, const MPI_Datatype *rt,
                      MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, comm, &q), &q)
                   : MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
}

/* ---- reduction cases ---------------------------------------------------------- */

typedef struct { unsigned a, b; } affine_t;   /* x -> a x + b (mod 2^32), as MPI_2INT */
typedef struct { double d; int i; } dint_t;

/* inout = in o inout: in (the lower ranks') applies first. */
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine_t *x = in, *y = inout;
    for (int k = 0; k < *len; k++) {
        unsigned b = y[k].a * x[k].b + y[k].b;
        y[k].a = x[k].a * y[k].a;
        y[k].b = b;
    }
}

enum { C_INT_SUM, C_DBL_SUM, C_MAXLOC, C_AFFINE, C_NCASES };
static const char *const cnames[C_NCASES] = { "MPI_INT/MPI_SUM", "MPI_DOUBLE/MPI_SUM",
                                              "MPI_DOUBLE_INT/MPI_MAXLOC",
                                              "MPI_2INT/affine (non-commutative)" };
static MPI_Op op_affine;

static size_t csize(int c)
{
    return c == C_INT_SUM ? sizeof(int) : c == C_DBL_SUM ? sizeof(double)
         : c == C_AFFINE ? sizeof(affine_t) : sizeof(dint_t);
}
static MPI_Datatype ctype(int c)
{
    return c == C_INT_SUM ? MPI_INT : c == C_DBL_SUM ? MPI_DOUBLE
         : c == C_AFFINE ? MPI_2INT : MPI_DOUBLE_INT;
}
static MPI_Op cop(int c)
{
    return c == C_AFFINE ? op_affine : c == C_MAXLOC ? MPI_MAXLOC : MPI_SUM;
}

/* Rank r's item i. */
static void cinput(int c, void *p, int r, int i)
{
    switch (c) {
    case C_INT_SUM: *(int *)p = (r * 7919 + i * 31) % 1000 - 500; break;
    case C_DBL_SUM: *(double *)p = (double)((r * 131 + i * 17) % 997) / 8; break;
    case C_MAXLOC:
        memset(p, 0, sizeof(dint_t));
        ((dint_t *)p)->d = (double)((i * 7 + r * 3) % 5);
        ((dint_t *)p)->i = (r * 3 + i) % 11;
        break;
    case C_AFFINE:
        ((affine_t *)p)->a = (unsigned)(2 * r + 3 + i);
        ((affine_t *)p)->b = (unsigned)(r * 7 + i);
        break;
    }
}

/* The reduction of item i over ranks [0, upto] in canonical order, by MPI_Reduce_local. */
static void cref(int c, void *out, int upto, int i)
{
    _Alignas(16) char x[32];
    cinput(c, out, 0, i);
    for (int k = 1; k <= upto; k++) {
        cinput(c, x, k, i);
        CHECK_MPI(MPI_Reduce_local(out, x, 1, ctype(c), cop(c)));   /* x = out op x_k */
        memcpy(out, x, csize(c));
    }
}

static int csame(int c, const void *a, const void *b)
{
    if (c == C_MAXLOC) {
        const dint_t *x = a, *y = b;
        return x->d == y->d && x->i == y->i;
    }
    return !memcmp(a, b, csize(c));
}

static void ccheck(int c, const void *got, int upto, int i, const char *what)
{
    _Alignas(16) char want[32];
    cref(c, want, upto, i);
    if (!csame(c, got, want))
        FAIL("%s: item %d differs from the reference", what, i);
}

static const int counts[] = { 0, 1, 7, 64, 1000, 40000 };
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

/* Block sizes of reduce_scatter: some empty, the others around count. */
static int rs_count(int count, int j)
{
    return j % 3 == 1 ? 0 : count + j % 2;
}

static void test_reduce_scatter(MPI_Comm comm, int c, int count, int block, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *rc = xmalloc(sizeof(int) * n), total = 0, off = 0;
    for (int j = 0; j < n; j++) {
        rc[j] = block ? count : rs_count(count, j);
        if (j < r)
            off += rc[j];
        total += rc[j];
    }
    size_t sz = csize(c);
    char *sbuf = xmalloc(sz * total), *rbuf = xmalloc(sz * (inplace ? total : rc[r] + 1));
    for (int i = 0; i < total; i++)
        cinput(c, sbuf + sz * i, r, i);
    if (inplace)
        memcpy(rbuf, sbuf, sz * total);
    else
        memset(rbuf, 0x5a, sz * (rc[r] + 1));
    const void *in = inplace ? MPI_IN_PLACE : sbuf;
    if (block)
        CHECK_MPI(Reduce_scatter_block_(in, rbuf, count, ctype(c), cop(c), comm));
    else
        CHECK_MPI(Reduce_scatter_(in, rbuf, rc, ctype(c), cop(c), comm));
    for (int i = 0; i < rc[r]; i++)
        ccheck(c, rbuf + sz * i, n - 1, off + i, "my block");
    if (!inplace)
        for (size_t k = 0; k < sz; k++)
            if ((unsigned char)rbuf[sz * rc[r] + k] != 0x5a)
                FAIL("wrote past the end of my block");
    free(sbuf);
    free(rbuf);
    free(rc);
}

static void test_scan(MPI_Comm comm, int c, int count, int excl, int inplace)
{
    int r;
    MPI_Comm_rank(comm, &r);
    size_t sz = csize(c);
    char *sbuf = xmalloc(sz * count), *rbuf = xmalloc(sz * count);
    for (int i = 0; i < count; i++) {
        cinput(c, sbuf + sz * i, r, i);
        cinput(c, rbuf + sz * i, r, i);
    }
    const void *in = inplace ? MPI_IN_PLACE : sbuf;
    if (excl)
        CHECK_MPI(Exscan_(in, rbuf, count, ctype(c), cop(c), comm));
    else
        CHECK_MPI(Scan_(in, rbuf, count, ctype(c), cop(c), comm));
    if (!excl || r > 0)
        for (int i = 0; i < count; i++)
            ccheck(c, rbuf + sz * i, excl ? r - 1 : r, i, "result");
    free(sbuf);
    free(rbuf);
}

/* ---- alltoallw ------------------------------------------------------------------ */

/* To rank j rank r sends w_count(r, j) items of type w_type(r + j): MPI_INT or
 * a pair of ints made contiguous; blocks in reverse order, one int apart. */
static MPI_Datatype pair_t;
static int w_count(int from, int to, int count) { return (from + 2 * to) % 4 == 3 ? 0 : count + to % 3; }
static MPI_Datatype w_type(int k) { return k % 2 ? pair_t : MPI_INT; }
static int w_ints(int k) { return k % 2 ? 2 : 1; }
static int w_val(int from, int to, int i) { return from * 100000 + to * 1000 + i % 1000; }

/* Layout of the blocks of rank me towards/from every other: counts, byte displacements, types. */
static int w_layout(int me, int n, int count, int sending, int *cnt, int *displ,
                    MPI_Datatype *types)
{
    int off = 0;
    for (int j = n - 1; j >= 0; j--) {
        int c = sending ? w_count(me, j, count) : w_count(j, me, count);
        types[j] = w_type(me + j);
        cnt[j] = c;
        off += (int)sizeof(int);   /* a gap */
        displ[j] = off;
        off += c * w_ints(me + j) * (int)sizeof(int);
    }
    return off + (int)sizeof(int);
}

static void test_alltoallw(MPI_Comm comm, int count, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *sc = xmalloc(sizeof(int) * n), *sd = xmalloc(sizeof(int) * n);
    int *rc = xmalloc(sizeof(int) * n), *rd = xmalloc(sizeof(int) * n);
    MPI_Datatype *st = xmalloc(sizeof(MPI_Datatype) * n), *rt = xmalloc(sizeof(MPI_Datatype) * n);
    int sbytes = w_layout(r, n, count, 1, sc, sd, st);
    int rbytes = w_layout(r, n, count, 0, rc, rd, rt);
    if (inplace) {
        /* Both directions described by the receive arguments: symmetric counts. */
        for (int j = 0; j < n; j++)
            rc[j] = count + (r + j) % 3;
        int off = 0;
        for (int j = n - 1; j >= 0; j--) {
            off += (int)sizeof(int);
            rd[j] = off;
            off += rc[j] * w_ints(r + j) * (int)sizeof(int);
        }
        rbytes = off + (int)sizeof(int);
    }
    char *sbuf = xmalloc((size_t)sbytes), *rbuf = xmalloc((size_t)rbytes);
    memset(sbuf, 0x77, (size_t)sbytes);
    memset(rbuf, 0x77, (size_t)rbytes);
    for (int j = 0; j < n; j++) {
        char *b = inplace ? rbuf + rd[j] : sbuf + sd[j];
        int c = inplace ? rc[j] : sc[j];
        for (int i = 0; i < c * w_ints(r + j); i++)
            ((int *)b)[i] = w_val(r, j, i);
    }
    if (inplace)
        CHECK_MPI(Alltoallw_(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, comm));
    else
        CHECK_MPI(Alltoallw_(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm));
    char *seen = calloc((size_t)rbytes, 1);
    for (int j = 0; j < n; j++) {
        const int *b = (const int *)(rbuf + rd[j]);
        for (int i = 0; i < rc[j] * w_ints(r + j); i++)
            if (b[i] != w_val(j, r, i))
                FAIL("block from rank %d: int %d is %d, expected %d", j, i, b[i], w_val(j, r, i));
        memset(seen + rd[j], 1, (size_t)rc[j] * w_ints(r + j) * sizeof(int));
    }
    for (int k = 0; k < rbytes; k++)
        if (!seen[k] && (unsigned char)rbuf[k] != 0x77)
            FAIL("byte %d (a gap) was written", k);
    free(seen);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
}

/* ---- every predefined operation on every predefined type ------------------------ */

typedef struct { const char *name; MPI_Datatype dt; } named_t;

static void set_elem(MPI_Datatype t, void *p, long v)
{
    if (t == MPI_CHAR) *(char *)p = (char)v;
    else if (t == MPI_SIGNED_CHAR || t == MPI_INT8_T) *(int8_t *)p = (int8_t)v;
    else if (t == MPI_UNSIGNED_CHAR || t == MPI_BYTE || t == MPI_UINT8_T) *(uint8_t *)p = (uint8_t)v;
    else if (t == MPI_SHORT || t == MPI_INT16_T) *(int16_t *)p = (int16_t)v;
    else if (t == MPI_UNSIGNED_SHORT || t == MPI_UINT16_T) *(uint16_t *)p = (uint16_t)v;
    else if (t == MPI_INT || t == MPI_INT32_T) *(int32_t *)p = (int32_t)v;
    else if (t == MPI_UNSIGNED || t == MPI_UINT32_T) *(uint32_t *)p = (uint32_t)v;
    else if (t == MPI_LONG) *(long *)p = v;
    else if (t == MPI_UNSIGNED_LONG) *(unsigned long *)p = (unsigned long)v;
    else if (t == MPI_LONG_LONG || t == MPI_INT64_T || t == MPI_OFFSET || t == MPI_COUNT)
        *(int64_t *)p = v;
    else if (t == MPI_UNSIGNED_LONG_LONG || t == MPI_UINT64_T) *(uint64_t *)p = (uint64_t)v;
    else if (t == MPI_AINT) *(MPI_Aint *)p = v;
    else if (t == MPI_FLOAT) *(float *)p = (float)v;
    else if (t == MPI_DOUBLE) *(double *)p = (double)v;
    else if (t == MPI_LONG_DOUBLE) { memset(p, 0, sizeof(long double)); *(long double *)p = v; }
    else if (t == MPI_WCHAR) *(wchar_t *)p = (wchar_t)v;
    else if (t == MPI_C_BOOL) *(_Bool *)p = v & 1;
    else if (t == MPI_C_FLOAT_COMPLEX) { ((float *)p)[0] = (float)v; ((float *)p)[1] = (float)(v % 3); }
    else if (t == MPI_C_DOUBLE_COMPLEX) { ((double *)p)[0] = (double)v; ((double *)p)[1] = (double)(v % 3); }
    else if (t == MPI_C_LONG_DOUBLE_COMPLEX) {
        memset(p, 0, 2 * sizeof(long double));
        ((long double *)p)[0] = v;
        ((long double *)p)[1] = v % 3;
    } else if (t == MPI_FLOAT_INT) { struct { float f; int i; } *x = p; memset(x, 0, sizeof(*x)); x->f = (float)(v % 5); x->i = (int)v; }
    else if (t == MPI_DOUBLE_INT) { struct { double f; int i; } *x = p; memset(x, 0, sizeof(*x)); x->f = (double)(v % 5); x->i = (int)v; }
    else if (t == MPI_LONG_INT) { struct { long f; int i; } *x = p; memset(x, 0, sizeof(*x)); x->f = v % 5; x->i = (int)v; }
    else if (t == MPI_2INT) { int *x = p; x[0] = (int)(v % 5); x[1] = (int)v; }
    else if (t == MPI_SHORT_INT) { struct { short f; int i; } *x = p; memset(x, 0, sizeof(*x)); x->f = (short)(v % 5); x->i = (int)v; }
    else if (t == MPI_LONG_DOUBLE_INT) { struct { long double f; int i; } *x = p; memset(x, 0, sizeof(*x)); x->f = v % 5; x->i = (int)v; }
}

/* Equal values: floating point compared as values (their padding is not data, and -0 == 0:
 * the sign of a zero may follow the order of the combinations). */
static int same_elem(MPI_Datatype t, const void *a, const void *b, size_t ext)
{
    if (t == MPI_FLOAT)
        return *(const float *)a == *(const float *)b;
    if (t == MPI_DOUBLE)
        return *(const double *)a == *(const double *)b;
    if (t == MPI_C_FLOAT_COMPLEX)
        return ((const float *)a)[0] == ((const float *)b)[0] &&
               ((const float *)a)[1] == ((const float *)b)[1];
    if (t == MPI_C_DOUBLE_COMPLEX)
        return ((const double *)a)[0] == ((const double *)b)[0] &&
               ((const double *)a)[1] == ((const double *)b)[1];
    if (t == MPI_LONG_DOUBLE)
        return *(const long double *)a == *(const long double *)b;
    if (t == MPI_C_LONG_DOUBLE_COMPLEX)
        return ((const long double *)a)[0] == ((const long double *)b)[0] &&
               ((const long double *)a)[1] == ((const long double *)b)[1];
    if (t == MPI_LONG_DOUBLE_INT) {
        const struct { long double f; int i; } *x = a, *y = b;
        return x->f == y->f && x->i == y->i;
    }
    if (t == MPI_C_BOOL)
        return (*(const _Bool *)a != 0) == (*(const _Bool *)b != 0);
    return !memcmp(a, b, ext);
}

/* Inputs that stay exact (small magnitudes, products of few small factors). */
static long op_value(int r, int i, MPI_Op op)
{
    if (op == MPI_PROD)
        return 1 + (r + i) % 2;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (r * 3 + i) % 3 == 0;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return (r * 37 + i * 11) % 127;
    return (r * 13 + i * 7) % 23 + 1;
}

static void test_op_type(MPI_Comm comm, const named_t *t, MPI_Op op, const char *opname)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    const int count = 5;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t->dt, &lb, &ext);
    size_t bytes = (size_t)ext * count;
    char *in = xmalloc(bytes * n), *out = xmalloc(bytes * n), *ref = xmalloc(bytes * n);
    char *x = xmalloc((size_t)ext);
    /* The reference: prefix reductions of every rank's input, by MPI_Reduce_local. */
    char *pre = xmalloc(bytes * n);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < count; i++) {
            char *p = pre + bytes * k + (size_t)ext * i;
            memset(p, 0, (size_t)ext);
            set_elem(t->dt, p, op_value(k, i, op));
            if (k > 0) {
                CHECK_MPI(MPI_Reduce_local(pre + bytes * (k - 1) + (size_t)ext * i, p, 1, t->dt,
                                           op));
            }
        }
    for (int rep = 0; rep < n; rep++)
        for (int i = 0; i < count; i++) {
            char *p = in + bytes * rep + (size_t)ext * i;
            memset(p, 0, (size_t)ext);
            set_elem(t->dt, p, op_value(r, i, op));
        }
    const char *all = pre + bytes * (n - 1);
    snprintf(cur, sizeof(cur), "MPI_Allreduce %s on %s", opname, t->name);
    memset(out, 0, bytes);
    CHECK_MPI(Allreduce_(in, out, count, t->dt, op, comm));
    for (int i = 0; i < count; i++)
        if (!same_elem(t->dt, out + ext * i, all + ext * i, (size_t)ext))
            FAIL("item %d differs from the reference", i);
    /* The same bits everywhere. */
    memcpy(ref, out, bytes);
    CHECK_MPI(MPI_Bcast(ref, (int)bytes, MPI_BYTE, 0, comm));
    if (memcmp(ref, out, bytes) && t->dt != MPI_LONG_DOUBLE && t->dt != MPI_C_LONG_DOUBLE_COMPLEX &&
        t->dt != MPI_LONG_DOUBLE_INT && t->dt != MPI_C_BOOL)
        FAIL("the result differs from rank 0's");

    snprintf(cur, sizeof(cur), "MPI_Reduce %s on %s", opname, t->name);
    memset(out, 0, bytes);
    CHECK_MPI(Reduce_(in, out, count, t->dt, op, n - 1, comm));
    for (int i = 0; r == n - 1 && i < count; i++)
        if (!same_elem(t->dt, out + ext * i, all + ext * i, (size_t)ext))
            FAIL("item %d differs from the reference", i);

    snprintf(cur, sizeof(cur), "MPI_Scan %s on %s", opname, t->name);
    CHECK_MPI(Scan_(in, out, count, t->dt, op, comm));
    for (int i = 0; i < count; i++)
        if (!same_elem(t->dt, out + ext * i, pre + bytes * r + ext * i, (size_t)ext))
            FAIL("item %d differs from the reference", i);

    snprintf(cur, sizeof(cur), "MPI_Exscan %s on %s", opname, t->name);
    CHECK_MPI(Exscan_(in, out, count, t->dt, op, comm));
    for (int i = 0; r > 0 && i < count; i++)
        if (!same_elem(t->dt, out + ext * i, pre + bytes * (r - 1) + ext * i, (size_t)ext))
            FAIL("item %d differs from the reference", i);

    snprintf(cur, sizeof(cur), "MPI_Reduce_scatter_block %s on %s", opname, t->name);
    CHECK_MPI(Reduce_scatter_block_(in, out, count, t->dt, op, comm));
    for (int i = 0; i < count; i++)
        if (!same_elem(t->dt, out + ext * i, all + ext * i, (size_t)ext))
            FAIL("item %d differs from the reference", i);
    free(in);
    free(out);
    free(ref);
    free(x);
    free(pre);
}

static void test_all_ops(MPI_Comm comm)
{
    static const named_t types[] = {
#define T(x) { #x, x }
        T(MPI_CHAR), T(MPI_SIGNED_CHAR), T(MPI_UNSIGNED_CHAR), T(MPI_BYTE), T(MPI_SHORT),
        T(MPI_UNSIGNED_SHORT), T(MPI_INT), T(MPI_UNSIGNED), T(MPI_LONG), T(MPI_UNSIGNED_LONG),
        T(MPI_LONG_LONG), T(MPI_UNSIGNED_LONG_LONG), T(MPI_FLOAT), T(MPI_DOUBLE),
        T(MPI_LONG_DOUBLE), T(MPI_WCHAR), T(MPI_C_BOOL), T(MPI_INT8_T), T(MPI_INT16_T),
        T(MPI_INT32_T), T(MPI_INT64_T), T(MPI_UINT8_T), T(MPI_UINT16_T), T(MPI_UINT32_T),
        T(MPI_UINT64_T), T(MPI_AINT), T(MPI_OFFSET), T(MPI_COUNT), T(MPI_C_FLOAT_COMPLEX),
        T(MPI_C_DOUBLE_COMPLEX), T(MPI_C_LONG_DOUBLE_COMPLEX), T(MPI_FLOAT_INT),
        T(MPI_DOUBLE_INT), T(MPI_LONG_INT), T(MPI_2INT), T(MPI_SHORT_INT),
        T(MPI_LONG_DOUBLE_INT),
    };
    static const struct { const char *name; MPI_Op op; } ops[] = {
        T(MPI_MAX), T(MPI_MIN), T(MPI_SUM), T(MPI_PROD), T(MPI_LAND), T(MPI_BAND), T(MPI_LOR),
        T(MPI_BOR), T(MPI_LXOR), T(MPI_BXOR), T(MPI_MINLOC), T(MPI_MAXLOC),
#undef T
    };
    int pairs = 0;
    /* MPI_Reduce_local reports an operation not defined for a type: skip those pairs. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
        for (size_t oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++) {
            _Alignas(32) char a[64] = { 0 }, b[64] = { 0 };
            int valid = MPI_Reduce_local(a, b, 1, types[ti].dt, ops[oi].op) == MPI_SUCCESS;
            if (!valid)
                continue;
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            test_op_type(comm, &types[ti], ops[oi].op, ops[oi].name);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            pairs++;
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (pairs < 200)
        FAIL("only %d (type, operation) pairs are valid", pairs);
}

/* ---- driver ------------------------------------------------------------------------ */

static void run(MPI_Comm comm, const char *cname)
{
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int count = counts[ci];
        for (int c = 0; c < C_NCASES; c++) {
            if (count >= 40000 && c != C_DBL_SUM && c != C_AFFINE)
                continue;
            for (int ip = 0; ip < 2; ip++) {
                const char *how = ip ? ", in place" : "";
                snprintf(cur, sizeof(cur), "MPI_Reduce_scatter on %s, %s, count %d%s", cname,
                         cnames[c], count, how);
                test_reduce_scatter(comm, c, count, 0, ip);
                snprintf(cur, sizeof(cur), "MPI_Reduce_scatter_block on %s, %s, count %d%s",
                         cname, cnames[c], count, how);
                test_reduce_scatter(comm, c, count, 1, ip);
                snprintf(cur, sizeof(cur), "MPI_Scan on %s, %s, count %d%s", cname, cnames[c],
                         count, how);
                test_scan(comm, c, count, 0, ip);
                snprintf(cur, sizeof(cur), "MPI_Exscan on %s, %s, count %d%s", cname, cnames[c],
                         count, how);
                test_scan(comm, c, count, 1, ip);
            }
        }
        for (int ip = 0; ip < 2; ip++) {
            snprintf(cur, sizeof(cur), "MPI_Alltoallw on %s, count %d%s", cname, count,
                     ip ? ", in place" : "");
            test_alltoallw(comm, count, ip);
        }
    }
}

static const struct {
    const char *env;
    const char *algs[2];
} algos[] = {
    { "RDMPI_COLL_REDUCE_SCATTER", { "recursive_halving", "pairwise" } },
    { "RDMPI_COLL_REDUCE_SCATTER_BLOCK", { "recursive_halving", "pairwise" } },
    { "RDMPI_COLL_SCAN", { "recursive_doubling", "linear" } },
    { "RDMPI_COLL_EXSCAN", { "recursive_doubling", "linear" } },
    { "RDMPI_COLL_ALLTOALLW", { "pairwise", "linear" } },
    { "RDMPI_COLL_REDUCE", { "binomial", "reduce_scatter_gather" } },
    { "RDMPI_COLL_ALLREDUCE", { "recursive_doubling", "rabenseifner" } },
};

int main(int argc, char **argv)
{
    char desc[512] = "selection table";
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "set=", 4)) {
            int k = atoi(argv[a] + 4) ? 1 : 0;
            size_t used = 0;
            for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
                setenv(algos[i].env, algos[i].algs[k], 1);
                used += (size_t)snprintf(desc + used, sizeof(desc) - used, "%s%s=%s",
                                         i ? " " : "", algos[i].env + 11, algos[i].algs[k]);
            }
        } else if (!strcmp(argv[a], "nb")) {
            nb_mode = 1;
        } else if (strcmp(argv[a], "auto")) {
            fprintf(stderr, "usage: coll_more [set=K | auto] [nb]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double t0 = MPI_Wtime();
    CHECK_MPI(MPI_Op_create(affine_op, 0, &op_affine));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    CHECK_MPI(MPI_Type_commit(&pair_t));

    run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm rev;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, n - wrank, &rev));
    run(rev, "reversed world");
    test_all_ops(rev);
    CHECK_MPI(MPI_Comm_free(&rev));

    CHECK_MPI(MPI_Type_free(&pair_t));
    CHECK_MPI(MPI_Op_free(&op_affine));
    snprintf(cur, sizeof(cur), "final barrier");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_more: %d ranks, %s%s: all passed in %.2f s\n", n, desc,
               nb_mode ? ", nonblocking forms" : "", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
