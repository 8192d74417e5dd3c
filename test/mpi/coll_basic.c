/*
 * coll_basic: every collective of MPI-1 (blocking or not) against a reference computed
 * locally, for counts 0, 1, 7, 1024 and 100000, with MPI_INT, MPI_DOUBLE,
 * MPI_DOUBLE_INT (a type with a hole) and a derived type (2 x
 * MPI_DOUBLE_INT, sent as 2n MPI_DOUBLE_INT by odd ranks: same signature,
 * different type), in place and not, at the first and last root; on
 * MPI_COMM_WORLD and on a communicator with the ranks reversed.
 * Reductions: SUM on integers and doubles, MINLOC/MAXLOC on
 * MPI_DOUBLE_INT, a user operation that does not commute (composition of
 * affine maps, which checks MPI's canonical order) and one that does;
 * allreduce results must also be bitwise the same on every rank.
 *
 * Usage: coll_basic [set=K | auto] [nb]
 *   set=K forces the K-th algorithm of every collective (the last one where
 *   a collective has fewer) through RDMPI_COLL_<NAME> before MPI_Init;
 *   auto (the default) leaves the environment and the selection table alone.
 *   nb runs every collective as its nonblocking form (MPI_Ibcast, ...).
 * Run with K = 0..4 and auto, blocking and nb, at 1 to 8 ranks (also with
 * RDMPI_COLL_SIM_PPN=2, under which the two_level algorithms run). Exit 0 on
 * success; on a mismatch, prints rank, test and the first difference, and
 * aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int wrank;
static char cur[256];   /* the test running, for failure messages */

#define COLL_TEST "coll_basic"
#define COLL_RANK wrank
#define COLL_CUR cur
#include "coll_check.h"

/* nb: every collective runs as its nonblocking form, completed by a few
 * MPI_Test calls and then MPI_Wait, against the same references. */
static int nb_mode;

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

static int Bcast_(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ibcast(b, c, t, root, comm, &q), &q)
                   : MPI_Bcast(b, c, t, root, comm);
}
static int Gather_(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                   int root, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Igather(s, sc, st, r, rc, rt, root, comm, &q), &q)
                   : MPI_Gather(s, sc, st, r, rc, rt, root, comm);
}
static int Scatter_(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                    int root, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iscatter(s, sc, st, r, rc, rt, root, comm, &q), &q)
                   : MPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}
static int Allgather_(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                      MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iallgather(s, sc, st, r, rc, rt, comm, &q), &q)
                   : MPI_Allgather(s, sc, st, r, rc, rt, comm);
}
static int Alltoall_(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                     MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ialltoall(s, sc, st, r, rc, rt, comm, &q), &q)
                   : MPI_Alltoall(s, sc, st, r, rc, rt, comm);
}
static int Gatherv_(const void *s, int sc, MPI_Datatype st, void *r, const int *rc,
                    const int *d, MPI_Datatype rt, int root, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Igatherv(s, sc, st, r, rc, d, rt, root, comm, &q), &q)
                   : MPI_Gatherv(s, sc, st, r, rc, d, rt, root, comm);
}
static int Scatterv_(const void *s, const int *sc, const int *d, MPI_Datatype st, void *r,
                     int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iscatterv(s, sc, d, st, r, rc, rt, root, comm, &q), &q)
                   : MPI_Scatterv(s, sc, d, st, r, rc, rt, root, comm);
}
static int Allgatherv_(const void *s, int sc, MPI_Datatype st, void *r, const int *rc,
                       const int *d, MPI_Datatype rt, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Iallgatherv(s, sc, st, r, rc, d, rt, comm, &q), &q)
                   : MPI_Allgatherv(s, sc, st, r, rc, d, rt, comm);
}
static int Alltoallv_(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r,
                      const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, comm, &q), &q)
                   : MPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, comm);
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
static int Barrier_(MPI_Comm comm)
{
    MPI_Request q;
    return nb_mode ? complete(MPI_Ibarrier(comm, &q), &q) : MPI_Barrier(comm);
}

/* ---- test types: arrays of "base" items, mult per MPI item ------------- */

typedef struct { double d; int i; } dint_t;

typedef struct ttype {
    const char *name;
    MPI_Datatype dt;       /* the receive (and even ranks' send) type */
    MPI_Datatype alt;      /* odd ranks send mult x count of this type instead, if set */
    int mult;              /* base items per item of dt */
    size_t ext;            /* bytes per base item */
    void (*set)(void *p, long v);
    long (*get)(const void *p);   /* -1: not a value set() writes */
} ttype_t;

static void set_int(void *p, long v) { *(int *)p = (int)v; }
static long get_int(const void *p) { return *(const int *)p; }
static void set_dbl(void *p, long v) { *(double *)p = (double)v; }
static long get_dbl(const void *p)
{
    double d = *(const double *)p;
    return d == floor(d) ? (long)d : -1;
}
static void set_dint(void *p, long v)
{
    dint_t *x = p;
    x->d = (double)v;
    x->i = (int)(v * 3 + 1);
}
static long get_dint(const void *p)
{
    const dint_t *x = p;
    return (x->d == floor(x->d) && x->i == (int)((long)x->d * 3 + 1)) ? (long)x->d : -1;
}

static ttype_t types[4];
static int ntypes;

static void types_init(void)
{
    MPI_Datatype d2;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &d2));
    CHECK_MPI(MPI_Type_commit(&d2));
    types[0] = (ttype_t){ "MPI_INT", MPI_INT, NULL, 1, sizeof(int), set_int, get_int };
    types[1] = (ttype_t){ "MPI_DOUBLE", MPI_DOUBLE, NULL, 1, sizeof(double), set_dbl, get_dbl };
    types[2] = (ttype_t){ "MPI_DOUBLE_INT", MPI_DOUBLE_INT, NULL, 1, sizeof(dint_t), set_dint,
                          get_dint };
    types[3] = (ttype_t){ "2xMPI_DOUBLE_INT", d2, MPI_DOUBLE_INT, 2, sizeof(dint_t), set_dint,
                          get_dint };
    ntypes = 4;
}

/* The send type and count this rank uses for count items of t. */
static MPI_Datatype stype(const ttype_t *t, int rank) { return t->alt && rank % 2 ? t->alt : t->dt; }
static int scnt(const ttype_t *t, int rank, int count)
{
    return t->alt && rank % 2 ? count * t->mult : count;
}

#define SENTINEL 999999L

/* The value of base item i of the data rank src contributes (salt: which test). */
static long val(long src, long i, int salt)
{
    return (src * 7919 + i * 31 + salt * 131) % 900000;
}

static void fill(const ttype_t *t, void *buf, size_t nbase, long src, int salt)
{
    for (size_t i = 0; i < nbase; i++)
        t->set((char *)buf + i * t->ext, val(src, (long)i, salt));
}
static void fill_sentinel(const ttype_t *t, void *buf, size_t nbase)
{
    for (size_t i = 0; i < nbase; i++)
        t->set((char *)buf + i * t->ext, SENTINEL);
}
static void check(const ttype_t *t, const void *buf, size_t nbase, long src, int salt,
                  const char *what)
{
    for (size_t i = 0; i < nbase; i++) {
        long got = t->get((const char *)buf + i * t->ext);
        long want = src < 0 ? SENTINEL : val(src, (long)i, salt);
        if (got != want)
            FAIL("%s: item %zu of %zu is %ld, expected %ld%s", what, i, nbase, got, want,
                 src < 0 ? " (untouched)" : "");
    }
}

/* ---- data movement ---------------------------------------------------- */

static void test_bcast(MPI_Comm comm, const ttype_t *t, int count, int root)
{
    int r;
    MPI_Comm_rank(comm, &r);
    size_t nb = (size_t)count * t->mult;
    void *buf = xmalloc(nb * t->ext);
    if (r == root)
        fill(t, buf, nb, root, 1);
    else
        fill_sentinel(t, buf, nb);
    CHECK_MPI(Bcast_(buf, count, t->dt, root, comm));
    check(t, buf, nb, root, 1, "buffer");
    free(buf);
}

static void test_gather(MPI_Comm comm, const ttype_t *t, int count, int root, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t nb = (size_t)count * t->mult;
    void *sbuf = xmalloc(nb * t->ext), *rbuf = NULL;
    fill(t, sbuf, nb, r, 2);
    if (r == root) {
        rbuf = xmalloc(nb * t->ext * n);
        fill_sentinel(t, rbuf, nb * n);
        if (inplace)
            fill(t, (char *)rbuf + nb * t->ext * r, nb, r, 2);
    }
    CHECK_MPI(Gather_(r == root && inplace ? MPI_IN_PLACE : sbuf, scnt(t, r, count),
                         stype(t, r), rbuf, count, t->dt, root, comm));
    if (r == root)
        for (int j = 0; j < n; j++) {
            char what[64];
            snprintf(what, sizeof(what), "block from rank %d", j);
            check(t, (char *)rbuf + nb * t->ext * j, nb, j, 2, what);
        }
    free(sbuf);
    free(rbuf);
}

static void test_scatter(MPI_Comm comm, const ttype_t *t, int count, int root, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t nb = (size_t)count * t->mult;
    void *sbuf = NULL, *rbuf = xmalloc(nb * t->ext);
    fill_sentinel(t, rbuf, nb);
    if (r == root) {
        sbuf = xmalloc(nb * t->ext * n);
        for (int j = 0; j < n; j++)
            fill(t, (char *)sbuf + nb * t->ext * j, nb, j, 3);
    }
    CHECK_MPI(Scatter_(sbuf, scnt(t, r, count), stype(t, r),
                          r == root && inplace ? MPI_IN_PLACE : rbuf, count, t->dt, root, comm));
    if (r == root && inplace) {
        check(t, (char *)sbuf + nb * t->ext * r, nb, r, 3, "root's own block (in place)");
        check(t, rbuf, nb, -1, 0, "unused receive buffer");
    } else {
        check(t, rbuf, nb, r, 3, "received block");
    }
    free(sbuf);
    free(rbuf);
}

static void test_allgather(MPI_Comm comm, const ttype_t *t, int count, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t nb = (size_t)count * t->mult;
    void *sbuf = xmalloc(nb * t->ext), *rbuf = xmalloc(nb * t->ext * n);
    fill(t, sbuf, nb, r, 4);
    fill_sentinel(t, rbuf, nb * n);
    if (inplace)
        fill(t, (char *)rbuf + nb * t->ext * r, nb, r, 4);
    CHECK_MPI(Allgather_(inplace ? MPI_IN_PLACE : sbuf, scnt(t, r, count), stype(t, r), rbuf,
                            count, t->dt, comm));
    for (int j = 0; j < n; j++) {
        char what[64];
        snprintf(what, sizeof(what), "block from rank %d", j);
        check(t, (char *)rbuf + nb * t->ext * j, nb, j, 4, what);
    }
    free(sbuf);
    free(rbuf);
}

static void test_alltoall(MPI_Comm comm, const ttype_t *t, int count, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t nb = (size_t)count * t->mult, bb = nb * t->ext;
    char *sbuf = xmalloc(bb * n), *rbuf = xmalloc(bb * n);
    for (int j = 0; j < n; j++) {   /* block for j: "source" r*n+j */
        fill(t, sbuf + bb * j, nb, (long)r * n + j, 5);
        if (inplace)
            fill(t, rbuf + bb * j, nb, (long)r * n + j, 5);
        else
            fill_sentinel(t, rbuf + bb * j, nb);
    }
    if (inplace)
        CHECK_MPI(Alltoall_(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, count, t->dt, comm));
    else
        CHECK_MPI(Alltoall_(sbuf, scnt(t, r, count), stype(t, r), rbuf, count, t->dt, comm));
    for (int j = 0; j < n; j++) {
        char what[64];
        snprintf(what, sizeof(what), "block from rank %d", j);
        check(t, rbuf + bb * j, nb, (long)j * n + r, 5, what);
    }
    free(sbuf);
    free(rbuf);
}

/* ---- v forms: counts vary (some zero), blocks in reverse order with gaps -- */

static int vcount(int count, int a, int b)
{
    return (a + 2 * b) % 3 == 1 ? 0 : count + (a + b) % 2;
}

/* Reverse-order displacements with a one-item gap before each block. */
static int vdispls(const int *counts, int n, int *displs)
{
    int off = 0;
    for (int j = n - 1; j >= 0; j--) {
        off += 1;
        displs[j] = off;
        off += counts[j];
    }
    return off + 1;
}

/* Checks every block and that the gaps are untouched. */
static void check_v(const ttype_t *t, const char *buf, const int *counts, const int *displs,
                    int n, int total, long (*src_of)(int j), int salt)
{
    char *seen = calloc((size_t)total, 1);
    for (int j = 0; j < n; j++) {
        char what[64];
        snprintf(what, sizeof(what), "block from rank %d", j);
        check(t, buf + (size_t)displs[j] * t->mult * t->ext, (size_t)counts[j] * t->mult,
              src_of(j), salt, what);
        memset(seen + displs[j], 1, (size_t)counts[j]);
    }
    for (int k = 0; k < total; k++)
        if (!seen[k])
            check(t, buf + (size_t)k * t->mult * t->ext, (size_t)t->mult, -1, 0, "gap");
    free(seen);
}

static int v_me, v_n;
static long src_is_j(int j) { return j; }
static long src_a2a(int j) { return (long)j * v_n + v_me; }

static void test_gatherv(MPI_Comm comm, const ttype_t *t, int count, int root, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *counts = xmalloc(sizeof(int) * n), *displs = xmalloc(sizeof(int) * n);
    for (int j = 0; j < n; j++)
        counts[j] = vcount(count, j, root);
    int total = vdispls(counts, n, displs);
    size_t ib = t->mult * t->ext;
    char *sbuf = xmalloc(ib * counts[r]), *rbuf = NULL;
    fill(t, sbuf, (size_t)counts[r] * t->mult, r, 6);
    if (r == root) {
        rbuf = xmalloc(ib * total);
        fill_sentinel(t, rbuf, (size_t)total * t->mult);
        if (inplace)
            fill(t, rbuf + ib * displs[r], (size_t)counts[r] * t->mult, r, 6);
    }
    CHECK_MPI(Gatherv_(r == root && inplace ? MPI_IN_PLACE : sbuf, scnt(t, r, counts[r]),
                          stype(t, r), rbuf, counts, displs, t->dt, root, comm));
    if (r == root)
        check_v(t, rbuf, counts, displs, n, total, src_is_j, 6);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

static void test_scatterv(MPI_Comm comm, const ttype_t *t, int count, int root, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *counts = xmalloc(sizeof(int) * n), *displs = xmalloc(sizeof(int) * n);
    for (int j = 0; j < n; j++)
        counts[j] = vcount(count, j, root);
    int total = vdispls(counts, n, displs);
    size_t ib = t->mult * t->ext;
    char *sbuf = NULL, *rbuf = xmalloc(ib * counts[r]);
    fill_sentinel(t, rbuf, (size_t)counts[r] * t->mult);
    if (r == root) {
        sbuf = xmalloc(ib * total);
        fill_sentinel(t, sbuf, (size_t)total * t->mult);
        for (int j = 0; j < n; j++)
            fill(t, sbuf + ib * displs[j], (size_t)counts[j] * t->mult, j, 7);
    }
    CHECK_MPI(Scatterv_(sbuf, counts, displs, t->dt,
                           r == root && inplace ? MPI_IN_PLACE : rbuf, scnt(t, r, counts[r]),
                           stype(t, r), root, comm));
    if (r == root && inplace)
        check_v(t, sbuf, counts, displs, n, total, src_is_j, 7);
    else
        check(t, rbuf, (size_t)counts[r] * t->mult, r, 7, "received block");
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

static void test_allgatherv(MPI_Comm comm, const ttype_t *t, int count, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *counts = xmalloc(sizeof(int) * n), *displs = xmalloc(sizeof(int) * n);
    for (int j = 0; j < n; j++)
        counts[j] = vcount(count, j, 0);
    int total = vdispls(counts, n, displs);
    size_t ib = t->mult * t->ext;
    char *sbuf = xmalloc(ib * counts[r]), *rbuf = xmalloc(ib * total);
    fill(t, sbuf, (size_t)counts[r] * t->mult, r, 8);
    fill_sentinel(t, rbuf, (size_t)total * t->mult);
    if (inplace)
        fill(t, rbuf + ib * displs[r], (size_t)counts[r] * t->mult, r, 8);
    CHECK_MPI(Allgatherv_(inplace ? MPI_IN_PLACE : sbuf, scnt(t, r, counts[r]), stype(t, r),
                             rbuf, counts, displs, t->dt, comm));
    check_v(t, rbuf, counts, displs, n, total, src_is_j, 8);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

static void test_alltoallv(MPI_Comm comm, const ttype_t *t, int count, int inplace)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int *sc = xmalloc(sizeof(int) * n), *sd = xmalloc(sizeof(int) * n);
    int *rc = xmalloc(sizeof(int) * n), *rd = xmalloc(sizeof(int) * n);
    for (int j = 0; j < n; j++) {
        sc[j] = vcount(count, r, j);   /* r sends sc[j] to j */
        rc[j] = vcount(count, j, r);   /* r receives rc[j] from j */
    }
    int stotal = vdispls(sc, n, sd), rtotal = vdispls(rc, n, rd);
    size_t ib = t->mult * t->ext;
    char *sbuf = xmalloc(ib * stotal), *rbuf = xmalloc(ib * rtotal);
    fill_sentinel(t, sbuf, (size_t)stotal * t->mult);
    for (int j = 0; j < n; j++)
        fill(t, sbuf + ib * sd[j], (size_t)sc[j] * t->mult, (long)r * n + j, 9);
    fill_sentinel(t, rbuf, (size_t)rtotal * t->mult);
    v_me = r;
    v_n = n;
    if (inplace) {
        /* In place the receive arguments describe both directions: same counts needed. */
        for (int j = 0; j < n; j++)
            rc[j] = sc[j] = vcount(count, r + j, r + j);
        rtotal = vdispls(rc, n, rd);
        free(rbuf);
        rbuf = xmalloc(ib * rtotal);
        fill_sentinel(t, rbuf, (size_t)rtotal * t->mult);
        for (int j = 0; j < n; j++)
            fill(t, rbuf + ib * rd[j], (size_t)rc[j] * t->mult, (long)r * n + j, 9);
        CHECK_MPI(Alltoallv_(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rc, rd, t->dt,
                                comm));
    } else {
        CHECK_MPI(Alltoallv_(sbuf, sc, sd, t->dt, rbuf, rc, rd, t->dt, comm));
    }
    check_v(t, rbuf, rc, rd, n, rtotal, src_a2a, 9);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* ---- reductions ---------------------------------------------------------- */

typedef struct { unsigned a, b; } affine_t;   /* x -> a x + b (mod 2^32), sent as MPI_2INT */

/* inout = in o inout: apply in first, then inout (in is the lower ranks'). */
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

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] += ((int *)in)[k];
}

enum { R_INT_SUM, R_DBL_SUM, R_MINLOC, R_MAXLOC, R_AFFINE, R_USER_SUM, R_NCASES };
static const char *const rnames[R_NCASES] = { "MPI_INT/MPI_SUM", "MPI_DOUBLE/MPI_SUM",
                                              "MPI_DOUBLE_INT/MPI_MINLOC",
                                              "MPI_DOUBLE_INT/MPI_MAXLOC",
                                              "MPI_2INT/affine (non-commutative user op)",
                                              "MPI_INT/user sum (commutative user op)" };
static MPI_Op op_affine, op_usum;

static size_t rsize(int c)
{
    return c == R_INT_SUM || c == R_USER_SUM ? sizeof(int)
         : c == R_DBL_SUM                    ? sizeof(double)
         : c == R_AFFINE                     ? sizeof(affine_t)
                                             : sizeof(dint_t);
}
static MPI_Datatype rtype(int c)
{
    return c == R_INT_SUM || c == R_USER_SUM ? MPI_INT
         : c == R_DBL_SUM                    ? MPI_DOUBLE
         : c == R_AFFINE                     ? MPI_2INT
                                             : MPI_DOUBLE_INT;
}
static MPI_Op rop(int c)
{
    switch (c) {
    case R_INT_SUM: case R_DBL_SUM: return MPI_SUM;
    case R_MINLOC: return MPI_MINLOC;
    case R_MAXLOC: return MPI_MAXLOC;
    case R_AFFINE: return op_affine;
    default: return op_usum;
    }
}

static void rinput(int c, void *p, int rank, int i)
{
    switch (c) {
    case R_INT_SUM: case R_USER_SUM: *(int *)p = (int)val(rank, i, 10) - 450000; break;
    case R_DBL_SUM: *(double *)p = (double)val(rank, i, 11) / 4; break;   /* exact sums */
    case R_MINLOC: case R_MAXLOC:
        ((dint_t *)p)->d = (double)((i * 7 + rank * 3) % 5);
        ((dint_t *)p)->i = (rank * 3 + i) % 11;
        break;
    case R_AFFINE:
        ((affine_t *)p)->a = (unsigned)(2 * rank + 3 + i);
        ((affine_t *)p)->b = (unsigned)(rank * 7 + i);
        break;
    }
}

/* Reference: inout = in op inout for one item. */
static void rcombine(int c, const void *in, void *inout)
{
    int one = 1;
    MPI_Datatype dt = rtype(c);
    switch (c) {
    case R_INT_SUM: case R_USER_SUM: *(int *)inout += *(const int *)in; break;
    case R_DBL_SUM: *(double *)inout += *(const double *)in; break;
    case R_MINLOC: case R_MAXLOC: {
        const dint_t *x = in;
        dint_t *y = inout;
        int better = c == R_MINLOC ? x->d < y->d : x->d > y->d;
        if (better)
            *y = *x;
        else if (x->d == y->d && x->i < y->i)
            y->i = x->i;
        break;
    }
    case R_AFFINE: affine_op((void *)in, inout, &one, &dt); break;
    }
}

static int rsame(int c, const void *a, const void *b)
{
    switch (c) {
    case R_INT_SUM: case R_USER_SUM: return *(const int *)a == *(const int *)b;
    case R_DBL_SUM: return *(const double *)a == *(const double *)b;
    case R_AFFINE: return !memcmp(a, b, sizeof(affine_t));
    default: {
        const dint_t *x = a, *y = b;
        return x->d == y->d && x->i == y->i;
    }
    }
}

static void rshow(int c, const void *p, char *buf, size_t len)
{
    switch (c) {
    case R_INT_SUM: case R_USER_SUM: snprintf(buf, len, "%d", *(const int *)p); break;
    case R_DBL_SUM: snprintf(buf, len, "%.17g", *(const double *)p); break;
    case R_AFFINE:
        snprintf(buf, len, "(%u,%u)", ((const affine_t *)p)->a, ((const affine_t *)p)->b);
        break;
    default: snprintf(buf, len, "(%g,%d)", ((const dint_t *)p)->d, ((const dint_t *)p)->i);
    }
}

static void rcheck(int c, const void *buf, int count, int n, const char *what)
{
    _Alignas(16) char acc[32];
    _Alignas(16) char x[32];
    size_t sz = rsize(c);
    for (int i = 0; i < count; i++) {
        rinput(c, acc, 0, i);
        for (int k = 1; k < n; k++) {
            rinput(c, x, k, i);
            rcombine(c, acc, x);   /* x = acc op x_k: canonical order */
            memcpy(acc, x, sz);
        }
        if (!rsame(c, (const char *)buf + (size_t)i * sz, acc)) {
            char got[64], want[64];
            rshow(c, (const char *)buf + (size_t)i * sz, got, sizeof(got));
            rshow(c, acc, want, sizeof(want));
            FAIL("%s: item %d of %d is %s, expected %s", what, i, count, got, want);
        }
    }
}

static void test_reduce(MPI_Comm comm, int c, int count, int root, int inplace, int all)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    size_t sz = rsize(c);
    char *sbuf = xmalloc(sz * count), *rbuf = xmalloc(sz * count);
    for (int i = 0; i < count; i++) {
        rinput(c, sbuf + sz * i, r, i);
        rinput(c, rbuf + sz * i, r, i);   /* the in-place input; garbage otherwise overwritten */
    }
    int use_inplace = inplace && (all || r == root);
    if (all)
        CHECK_MPI(Allreduce_(use_inplace ? MPI_IN_PLACE : sbuf, rbuf, count, rtype(c), rop(c),
                                comm));
    else
        CHECK_MPI(Reduce_(use_inplace ? MPI_IN_PLACE : sbuf, r == root ? rbuf : NULL, count,
                             rtype(c), rop(c), root, comm));
    if (all || r == root)
        rcheck(c, rbuf, count, n, "result");
    free(sbuf);
    free(rbuf);
}

/* Allreduce of doubles whose sum rounds: every rank must get the same bits. */
static void test_allreduce_bits(MPI_Comm comm, int count, int inplace)
{
    int r;
    MPI_Comm_rank(comm, &r);
    double *in = xmalloc(sizeof(double) * count), *out = xmalloc(sizeof(double) * count);
    double *ref = xmalloc(sizeof(double) * count);
    for (int i = 0; i < count; i++)
        out[i] = in[i] = 1.0 / (3.0 + r * 0.37 + (i % 17)) * (i % 2 ? -1e-3 : 1e5);
    CHECK_MPI(Allreduce_(inplace ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, MPI_SUM, comm));
    memcpy(ref, out, sizeof(double) * count);
    CHECK_MPI(MPI_Bcast(ref, count, MPI_DOUBLE, 0, comm));
    if (memcmp(ref, out, sizeof(double) * count)) {
        for (int i = 0; i < count; i++)
            if (memcmp(&ref[i], &out[i], sizeof(double)))
                FAIL("item %d is %.17g here, %.17g on rank 0", i, out[i], ref[i]);
    }
    free(in);
    free(out);
    free(ref);
}

/* ---- driver ---------------------------------------------------------------- */

static const int counts[] = { 0, 1, 7, 1024, 100000 };
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

static void run_all(MPI_Comm comm, const char *cname, int ncounts)
{
    int n;
    MPI_Comm_size(comm, &n);
    int roots[2] = { 0, n - 1 }, nroots = n > 1 ? 2 : 1;
    for (int ci = 0; ci < ncounts; ci++) {
        int count = counts[ci];
        for (int ti = 0; ti < ntypes; ti++) {
            const ttype_t *t = &types[ti];
            /* The largest count only with MPI_INT and MPI_DOUBLE_INT, to keep runs short. */
            if (count >= 100000 && ti != 0 && ti != 2)
                continue;
            for (int ip = 0; ip < 2; ip++) {
#define SETCUR(coll, root) \
    snprintf(cur, sizeof(cur), "%s on %s, %s, count %d%s, root %d", coll, cname, t->name, \
             count, ip ? ", in place" : "", root)
#define SETCUR_ALL(coll) \
    snprintf(cur, sizeof(cur), "%s on %s, %s, count %d%s", coll, cname, t->name, count, \
             ip ? ", in place" : "")
                for (int k = 0; k < nroots; k++) {
                    int root = roots[k];
                    if (!ip) {
                        SETCUR("MPI_Bcast", root);
                        test_bcast(comm, t, count, root);
                    }
                    SETCUR("MPI_Gather", root);
                    test_gather(comm, t, count, root, ip);
                    SETCUR("MPI_Scatter", root);
                    test_scatter(comm, t, count, root, ip);
                    SETCUR("MPI_Gatherv", root);
                    test_gatherv(comm, t, count, root, ip);
                    SETCUR("MPI_Scatterv", root);
                    test_scatterv(comm, t, count, root, ip);
                }
                SETCUR_ALL("MPI_Allgather");
                test_allgather(comm, t, count, ip);
                SETCUR_ALL("MPI_Allgatherv");
                test_allgatherv(comm, t, count, ip);
                SETCUR_ALL("MPI_Alltoall");
                test_alltoall(comm, t, count, ip);
                SETCUR_ALL("MPI_Alltoallv");
                test_alltoallv(comm, t, count, ip);
            }
        }
        for (int c = 0; c < R_NCASES; c++) {
            if (count >= 100000 && c != R_DBL_SUM && c != R_AFFINE)
                continue;
            for (int ip = 0; ip < 2; ip++) {
                for (int k = 0; k < nroots; k++) {
                    snprintf(cur, sizeof(cur), "MPI_Reduce on %s, %s, count %d%s, root %d",
                             cname, rnames[c], count, ip ? ", in place" : "", roots[k]);
                    test_reduce(comm, c, count, roots[k], ip, 0);
                }
                snprintf(cur, sizeof(cur), "MPI_Allreduce on %s, %s, count %d%s", cname,
                         rnames[c], count, ip ? ", in place" : "");
                test_reduce(comm, c, count, 0, ip, 1);
            }
        }
        for (int ip = 0; ip < 2; ip++) {
            snprintf(cur, sizeof(cur), "MPI_Allreduce bitwise identity on %s, count %d%s", cname,
                     count, ip ? ", in place" : "");
            test_allreduce_bits(comm, count, ip);
        }
        snprintf(cur, sizeof(cur), "MPI_Barrier on %s", cname);
        CHECK_MPI(Barrier_(comm));
    }
}

/* The algorithms of each collective, as RDMPI_COLL_<NAME> names them. */
#define MAX_ALGS 6
static const struct {
    const char *env;
    const char *algs[MAX_ALGS];
} algos[] = {
    { "RDMPI_COLL_BARRIER", { "dissemination", "linear", "two_level" } },
    { "RDMPI_COLL_BCAST", { "binomial", "scatter_ring", "scatter_recursive_doubling", "linear",
                              "two_level" } },
    { "RDMPI_COLL_REDUCE", { "binomial", "reduce_scatter_gather", "two_level", "linear" } },
    { "RDMPI_COLL_ALLREDUCE",
      { "recursive_doubling", "rabenseifner", "ring", "reduce_bcast", "two_level", "linear" } },
    { "RDMPI_COLL_GATHER", { "binomial", "linear" } },
    { "RDMPI_COLL_GATHERV", { "linear" } },
    { "RDMPI_COLL_SCATTER", { "binomial", "linear" } },
    { "RDMPI_COLL_SCATTERV", { "linear" } },
    { "RDMPI_COLL_ALLGATHER", { "recursive_doubling", "bruck", "ring", "linear" } },
    { "RDMPI_COLL_ALLGATHERV", { "recursive_doubling", "bruck", "ring", "linear" } },
    { "RDMPI_COLL_ALLTOALL", { "pairwise", "linear", "bruck" } },
    { "RDMPI_COLL_ALLTOALLV", { "pairwise", "linear" } },
};

static void force_set(int k, char *desc, size_t len)
{
    size_t used = 0;
    for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
        int j = 0;
        while (j < k && j + 1 < MAX_ALGS && algos[i].algs[j + 1])
            j++;
        setenv(algos[i].env, algos[i].algs[j], 1);
        used += (size_t)snprintf(desc + used, used < len ? len - used : 0, "%s%s=%s",
                                 i ? " " : "", algos[i].env + 11, algos[i].algs[j]);
    }
}

int main(int argc, char **argv)
{
    char desc[640] = "selection table";
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "set=", 4))
            force_set(atoi(argv[a] + 4), desc, sizeof(desc));
        else if (!strcmp(argv[a], "nb"))
            nb_mode = 1;
        else if (strcmp(argv[a], "auto")) {
            fprintf(stderr, "usage: coll_basic [set=K | auto] [nb]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double t0 = MPI_Wtime();
    types_init();
    snprintf(cur, sizeof(cur), "MPI_Op_create");
    CHECK_MPI(MPI_Op_create(affine_op, 0, &op_affine));
    CHECK_MPI(MPI_Op_create(user_sum, 1, &op_usum));
    int commute = -1;
    CHECK_MPI(MPI_Op_commutative(op_affine, &commute));
    if (commute != 0)
        FAIL("MPI_Op_commutative says %d for a non-commutative op", commute);
    CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
    if (commute != 1)
        FAIL("MPI_Op_commutative says %d for MPI_SUM", commute);

    snprintf(cur, sizeof(cur), "MPI_Reduce_local");
    affine_t x[2] = { { 3, 4 }, { 5, 6 } }, y[2] = { { 7, 8 }, { 9, 10 } };
    CHECK_MPI(MPI_Reduce_local(x, y, 2, MPI_2INT, op_affine));
    if (y[0].a != 21 || y[0].b != 7 * 4 + 8 || y[1].a != 45 || y[1].b != 9 * 6 + 10)
        FAIL("got (%u,%u) (%u,%u)", y[0].a, y[0].b, y[1].a, y[1].b);

    run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD", NCOUNTS);

    /* The same on a communicator whose ranks run backwards. */
    MPI_Comm rev;
    snprintf(cur, sizeof(cur), "MPI_Comm_split");
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, n - wrank, &rev));
    run_all(rev, "reversed world", 4);
    CHECK_MPI(MPI_Comm_free(&rev));

    CHECK_MPI(MPI_Op_free(&op_affine));
    CHECK_MPI(MPI_Op_free(&op_usum));
    MPI_Type_free(&types[3].dt);
    snprintf(cur, sizeof(cur), "final barrier");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_basic: %d ranks, %s%s: all passed in %.2f s\n", n, desc,
               nb_mode ? ", nonblocking forms" : "", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
