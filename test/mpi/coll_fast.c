/*
 * coll_fast: the blocking fast paths (collectives/fast.c) against the
 * schedules they stand for, mixed across the ranks of one call. Allreduce:
 * odd ranks reduce with a user operation (which takes the schedule), even
 * ones with MPI_SUM (the fast path on power-of-two communicators), some in
 * place. Allgather: half the ranks describe a block as one contiguous
 * datatype, in place and not. Bcast (every root) and alltoall at sizes on
 * both sides of the fast paths' limits, also of ints strided on some ranks.
 * Blocking collectives (fast) while
 * nonblocking ones (schedules) on the same communicator are outstanding,
 * which works only if both number their collectives alike. Allreduce with an
 * operation that does not commute (order checked), in place, and of a
 * strided datatype (gaps left alone). A barrier may
 * not let a rank leave before a late one entered. Results are checked
 * element by element. Runs at any number of ranks; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int rank, size;
static char cur[128];

#define COLL_TEST "coll_fast"
#define COLL_RANK rank
#define COLL_CUR cur
#include "coll_check.h"

/* A user-defined float sum: it sends a rank through the allreduce schedule
 * (the fast path takes predefined operations only). */
static void fsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((float *)inout)[i] += ((float *)in)[i];
}

/* Allreduce of count floats: rank r contributes (r + 1) * (i % 97 + 1).
 * Odd ranks pass the user sum, even ones MPI_SUM: not what an application
 * may do (MPI wants one operation), but the sums are exact, and it is the
 * way to make ranks of one call take the fast path and the schedule. */
static void allreduce_mixed(int count, int inplace)
{
    snprintf(cur, sizeof(cur), "allreduce of %d floats%s", count, inplace ? " (some in place)" : "");
    MPI_Op user;
    CHECK_MPI(MPI_Op_create(fsum, 1, &user));
    int me_inplace = inplace && rank % 4 < 2;
    float *s = xmalloc(sizeof(float) * (size_t)count);
    float *r = xmalloc(sizeof(float) * (size_t)count);
    float *in = me_inplace ? r : s;
    for (int i = 0; i < count; i++) {
        r[i] = -1.0f;
        in[i] = (float)((rank + 1) * (i % 97 + 1));
    }
    CHECK_MPI(MPI_Allreduce(me_inplace ? MPI_IN_PLACE : s, r, count, MPI_FLOAT,
                            rank % 2 ? user : MPI_SUM, MPI_COMM_WORLD));
    float ranks = (float)(size * (size + 1) / 2);
    for (int i = 0; i < count; i++) {
        float want = ranks * (float)(i % 97 + 1);
        if (r[i] != want)
            FAIL("element %d is %g, expected %g", i, r[i], want);
    }
    free(s);
    free(r);
    MPI_Op_free(&user);
}

/* 2x2 integer matrices (4 ints each), multiplied modulo 1009: inout = in x inout, so the
 * allreduce gives M0 x M1 x ... x Mp-1, which differs from any other order. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = { (a[0] * b[0] + a[1] * b[2]) % 1009, (a[0] * b[1] + a[1] * b[3]) % 1009,
                     (a[2] * b[0] + a[3] * b[2]) % 1009, (a[2] * b[1] + a[3] * b[3]) % 1009 };
        memcpy(b, c, sizeof(c));
    }
}

static void matrix_of(int r, int k, int m[4])
{
    m[0] = r + 1;
    m[1] = (k + 2 * r) % 7;
    m[2] = (3 * r + k) % 5;
    m[3] = k % 3 + r;
}

/* Allreduce of count matrices with an operation that does not commute: every rank must get
 * the product in rank order. The matrix is one datatype (4 contiguous ints). */
static void allreduce_noncommute(int count, int inplace)
{
    snprintf(cur, sizeof(cur), "allreduce of %d matrices, not commutative%s", count,
             inplace ? " (some in place)" : "");
    MPI_Op op;
    MPI_Datatype mat;
    CHECK_MPI(MPI_Op_create(matmul, 0, &op));
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_MPI(MPI_Type_commit(&mat));
    int me_inplace = inplace && rank % 2 == 0;
    int *s = xmalloc(sizeof(int) * 4 * (size_t)count);
    int *r = xmalloc(sizeof(int) * 4 * (size_t)count);
    for (int k = 0; k < count; k++) {
        matrix_of(rank, k, (me_inplace ? r : s) + 4 * k);
        if (!me_inplace)
            r[4 * k] = r[4 * k + 1] = r[4 * k + 2] = r[4 * k + 3] = -1;
    }
    CHECK_MPI(MPI_Allreduce(me_inplace ? MPI_IN_PLACE : s, r, count, mat, op, MPI_COMM_WORLD));
    for (int k = 0; k < count; k++) {
        int want[4], m[4], one = 1;
        matrix_of(size - 1, k, want);
        for (int q = size - 2; q >= 0; q--) {
            matrix_of(q, k, m);
            matmul(m, want, &one, NULL);
        }
        for (int e = 0; e < 4; e++)
            if (r[4 * k + e] != want[e])
                FAIL("matrix %d element %d is %d, expected %d", k, e, r[4 * k + e], want[e]);
    }
    free(s);
    free(r);
    MPI_Type_free(&mat);
    MPI_Op_free(&op);
}

/* Allreduce (MPI_SUM) of count items of a strided type (every other int): the gaps of the
 * receive buffer must stay as they were. */
static void allreduce_strided(int count, int inplace)
{
    snprintf(cur, sizeof(cur), "allreduce of %d strided ints%s", count,
             inplace ? " in place" : "");
    MPI_Datatype vec, item;
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_create_resized(vec, 0, 2 * (MPI_Aint)sizeof(int), &item));
    CHECK_MPI(MPI_Type_commit(&item));
    int *s = xmalloc(sizeof(int) * 2 * (size_t)count);
    int *r = xmalloc(sizeof(int) * 2 * (size_t)count);
    for (int i = 0; i < count; i++) {
        s[2 * i] = rank * 3 + i;
        s[2 * i + 1] = -7;
        r[2 * i] = inplace ? rank * 3 + i : -1;
        r[2 * i + 1] = -5;
    }
    CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, count, item, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < count; i++) {
        int want = 3 * size * (size - 1) / 2 + size * i;
        if (r[2 * i] != want || r[2 * i + 1] != -5)
            FAIL("item %d is %d (want %d), gap after it %d (want -5)", i, r[2 * i], want,
                 r[2 * i + 1]);
    }
    free(s);
    free(r);
    MPI_Type_free(&vec);
    MPI_Type_free(&item);
}

static void bcast_all_roots(int bytes)
{
    snprintf(cur, sizeof(cur), "bcast of %d bytes", bytes);
    unsigned char *b = xmalloc((size_t)bytes);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < bytes; i++)
            b[i] = rank == root ? (unsigned char)(i * 3 + root) : 0xee;
        CHECK_MPI(MPI_Bcast(b, bytes, MPI_BYTE, root, MPI_COMM_WORLD));
        for (int i = 0; i < bytes; i++)
            if (b[i] != (unsigned char)(i * 3 + root))
                FAIL("root %d: byte %d is %u", root, i, b[i]);
    }
    free(b);
}

/* Bcast of n ints from every root: odd ranks describe them as a strided vector (every
 * other int: the gaps must stay as they were), even ones as contiguous ints, on both sides
 * of the fast paths' limit (COLL_FAST_SERIAL_BYTES: 8 KiB) and of the eager limits, so
 * packed and contiguous messages of either protocol meet receivers of either kind. */
static void bcast_typed(int n)
{
    snprintf(cur, sizeof(cur), "bcast of %d ints, strided on odd ranks", n);
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int strided = rank % 2, *b = xmalloc(sizeof(int) * 2 * (size_t)n);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 2 * n; i++)
            b[i] = -7;
        for (int i = 0; rank == root && i < n; i++)
            b[strided ? 2 * i : i] = i * 5 + root;
        CHECK_MPI(MPI_Bcast(b, strided ? 1 : n, strided ? vec : MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            if (b[strided ? 2 * i : i] != i * 5 + root)
                FAIL("root %d: int %d is %d", root, i, b[strided ? 2 * i : i]);
        for (int i = 0; i < n; i++)
            if (b[strided ? 2 * i + 1 : n + i] != -7)
                FAIL("root %d: gap %d was written (%d)", root, i, b[strided ? 2 * i + 1 : n + i]);
    }
    free(b);
    MPI_Type_free(&vec);
}

/* Allgather of n ints per rank; odd ranks send one contiguous type of n ints. */
static void allgather_mixed(int n, int inplace)
{
    snprintf(cur, sizeof(cur), "allgather of %d ints%s", n, inplace ? " in place" : "");
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(n, MPI_INT, &blk));
    CHECK_MPI(MPI_Type_commit(&blk));
    int *s = xmalloc(sizeof(int) * (size_t)n);
    int *r = xmalloc(sizeof(int) * (size_t)n * (size_t)size);
    for (int i = 0; i < n * size; i++)
        r[i] = -1;
    for (int i = 0; i < n; i++)
        (inplace ? r + rank * n : s)[i] = rank * 100000 + i;
    if (inplace)
        CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
    else if (rank % 2)
        CHECK_MPI(MPI_Allgather(s, 1, blk, r, n, MPI_INT, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Allgather(s, n, MPI_INT, r, 1, blk, MPI_COMM_WORLD));
    for (int k = 0; k < size; k++)
        for (int i = 0; i < n; i++)
            if (r[k * n + i] != k * 100000 + i)
                FAIL("block %d item %d is %d", k, i, r[k * n + i]);
    free(s);
    free(r);
    MPI_Type_free(&blk);
}

static void alltoall_sizes(int n)
{
    snprintf(cur, sizeof(cur), "alltoall of %d ints per block", n);
    int *s = xmalloc(sizeof(int) * (size_t)n * (size_t)size);
    int *r = xmalloc(sizeof(int) * (size_t)n * (size_t)size);
    for (int k = 0; k < size; k++)
        for (int i = 0; i < n; i++) {
            s[k * n + i] = (rank * size + k) * 1000 + i % 1000;
            r[k * n + i] = -1;
        }
    CHECK_MPI(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD));
    for (int k = 0; k < size; k++)
        for (int i = 0; i < n; i++)
            if (r[k * n + i] != (k * size + rank) * 1000 + i % 1000)
                FAIL("block from %d item %d is %d", k, i, r[k * n + i]);
    free(s);
    free(r);
}

/* Blocking collectives while nonblocking ones are outstanding. */
static void interleaved(void)
{
    snprintf(cur, sizeof(cur), "blocking collectives among nonblocking ones");
    for (int it = 0; it < 50; it++) {
        double a = rank + it, asum = 0, b = 1, bsum = 0;
        int x = rank == it % size ? it : -1, got[64];
        MPI_Request req[2];
        CHECK_MPI(MPI_Iallreduce(&a, &asum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]));
        CHECK_MPI(MPI_Allreduce(&b, &bsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[1]));
        CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, it % size, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        double want = size * (double)it + size * (size - 1) / 2.0;
        if (asum != want || bsum != size || x != it)
            FAIL("round %d: iallreduce %g (want %g), allreduce %g, bcast %d", it, asum, want,
                 bsum, x);
        for (int k = 0; k < size && k < 64; k++)
            if (got[k] != k)
                FAIL("round %d: allgather block %d is %d", it, k, got[k]);
    }
}

/* One rank arrives late: nobody may leave the barrier before it entered.
 * MPI_Wtime is CLOCK_MONOTONIC, one clock for the processes of a machine
 * but not across machines: a rank compares its time with the late rank's
 * only when both are on one node (the same node leader). */
static void barrier_holds(void)
{
    MPI_Comm node;
    int leader = rank;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, node));
    for (int it = 0; it < 2 * size; it++) {
        int late = it % size;
        snprintf(cur, sizeof(cur), "barrier with rank %d late", late);
        double entered[2] = { 0, (double)leader };
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == late) {
            double t = MPI_Wtime();
            while (MPI_Wtime() - t < 0.02)
                ;
            entered[0] = MPI_Wtime();
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double left = MPI_Wtime();
        CHECK_MPI(MPI_Bcast(entered, 2, MPI_DOUBLE, late, MPI_COMM_WORLD));
        if ((int)entered[1] == leader && left < entered[0])
            FAIL("left at %.6f, before rank %d entered at %.6f", left, late, entered[0]);
    }
    CHECK_MPI(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int counts[] = { 1, 2, 3, 31, 256, 511, 4096, 16384, 262144 };
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        allreduce_mixed(counts[i], 0);
        allreduce_mixed(counts[i], 1);
        allreduce_noncommute(counts[i] > 16384 ? 16384 : counts[i], i % 2);
        allreduce_strided(counts[i], i % 2);
    }
    static const int bytes[] = { 1, 8, 1024, 8192, 8193, 65536, 1 << 20 };
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++)
        bcast_all_roots(bytes[i]);
    static const int bints[] = { 2048, 16384, 16385 };
    for (size_t i = 0; i < sizeof(bints) / sizeof(bints[0]); i++)
        bcast_typed(bints[i]);
    static const int ints[] = { 1, 2, 256, 2048, 2049, 16384 };
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        allgather_mixed(ints[i], 0);
        allgather_mixed(ints[i], 1);
        alltoall_sizes(ints[i]);
    }
    interleaved();
    barrier_holds();
    MPI_Finalize();
    if (rank == 0)
        printf("coll_fast: OK (%d ranks)\n", size);
    return 0;
}
