/*
 * coll_pair: the blocking paths of 2-rank communicators (collectives/fast2.c)
 * and the 2-rank reduce (fast.c) against values computed locally. Reduce
 * at eager and rendezvous sizes, odd counts, either root, in place at the
 * root, MPI_SUM on ints, MPI_MAX on doubles, MINLOC on MPI_2INT, a
 * contiguous derived type and a vector type, and a user operation that does
 * not commute (MPI's order: root 1 gets a0 op a1 too). Allreduce in place
 * and not, short and long (scratch), a non-commuting user operation.
 * Allgather(v) and alltoall(v) with the ranks describing a block differently
 * (one contiguous datatype against items), in place, short and
 * rendezvous-sized; scatter(v) and gather(v) with either root, in place at
 * the root or not. The barrier may not let a rank leave before the late one
 * entered. Runs on 2 ranks (other sizes: on the pairs of MPI_Comm_split, the
 * odd rank out sits out); exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi.h"

static int wrank;
static char cur[160];

#define COLL_TEST "coll_pair"
#define COLL_RANK wrank
#define COLL_CUR cur
#include "coll_check.h"

static MPI_Comm pc; /* the pair */
static int me;      /* rank in the pair */

static int val(int rank, int i)
{
    return (rank + 1) * 1000 + i % 977 - (i % 3) * 7;
}

/* a op b for the non-commuting user operation, on ints: 3a - b (so the order shows). */
static void ncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = 3 * a[i] - b[i];
}

static void reduce_ints(int count, int root, int inplace, MPI_Op op, int ncm)
{
    snprintf(cur, sizeof(cur), "reduce count=%d root=%d inplace=%d %s", count, root, inplace,
             ncm ? "noncommuting" : "sum");
    int *s = xmalloc(sizeof(int) * (size_t)count), *r = xmalloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++) {
        s[i] = val(me, i);
        r[i] = -1;
    }
    if (inplace && me == root) {
        memcpy(r, s, sizeof(int) * (size_t)count);
        CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, r, count, MPI_INT, op, root, pc));
    } else {
        CHECK_MPI(MPI_Reduce(s, r, count, MPI_INT, op, root, pc));
    }
    if (me == root)
        for (int i = 0; i < count; i++) {
            int want = ncm ? 3 * val(0, i) - val(1, i) : val(0, i) + val(1, i);
            if (r[i] != want)
                FAIL("item %d: %d, want %d", i, r[i], want);
        }
    free(s);
    free(r);
}

static void reduce_max_double(int count, int root)
{
    snprintf(cur, sizeof(cur), "reduce MPI_MAX double count=%d root=%d", count, root);
    double *s = xmalloc(sizeof(double) * (size_t)count), *r = xmalloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count; i++)
        s[i] = (i % 2 == me) ? i + 0.5 : -i;
    CHECK_MPI(MPI_Reduce(s, r, count, MPI_DOUBLE, MPI_MAX, root, pc));
    if (me == root)
        for (int i = 0; i < count; i++)
            if (r[i] != i + 0.5)
                FAIL("item %d: %g, want %g", i, r[i], i + 0.5);
    free(s);
    free(r);
}

static void reduce_minloc(int count, int root)
{
    snprintf(cur, sizeof(cur), "reduce MINLOC 2int count=%d root=%d", count, root);
    int *s = xmalloc(sizeof(int) * 2 * (size_t)count), *r = xmalloc(sizeof(int) * 2 * (size_t)count);
    for (int i = 0; i < count; i++) {
        s[2 * i] = (i % 5 == 0) ? 7 : (i % 2 == me ? 1 : 2); /* ties at multiples of 5 */
        s[2 * i + 1] = me;
    }
    CHECK_MPI(MPI_Reduce(s, r, count, MPI_2INT, MPI_MINLOC, root, pc));
    if (me == root)
        for (int i = 0; i < count; i++) {
            int wv = i % 5 == 0 ? 7 : 1, wl = i % 5 == 0 ? 0 : i % 2;
            if (r[2 * i] != wv || r[2 * i + 1] != wl)
                FAIL("item %d: (%d, %d), want (%d, %d)", i, r[2 * i], r[2 * i + 1], wv, wl);
        }
    free(s);
    free(r);
}

/* Reduce through a derived type: 4 ints contiguous, or every other int of a vector. */
static void reduce_derived(int count, int root, int vector)
{
    snprintf(cur, sizeof(cur), "reduce derived %s count=%d root=%d", vector ? "vector" : "contig",
             count, root);
    MPI_Datatype t;
    if (vector) {
        MPI_Datatype v;
        CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
        CHECK_MPI(MPI_Type_create_resized(v, 0, 4 * sizeof(int), &t));
        CHECK_MPI(MPI_Type_free(&v));
    } else {
        CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &t));
    }
    CHECK_MPI(MPI_Type_commit(&t));
    size_t n = 4 * (size_t)count;
    int *s = xmalloc(sizeof(int) * n), *r = xmalloc(sizeof(int) * n);
    for (size_t i = 0; i < n; i++) {
        s[i] = val(me, (int)i);
        r[i] = -5;
    }
    CHECK_MPI(MPI_Reduce(s, r, count, t, MPI_SUM, root, pc));
    if (me == root)
        for (size_t i = 0; i < n; i++) {
            int want = (vector && i % 2) ? -5 : val(0, (int)i) + val(1, (int)i);
            if (r[i] != want)
                FAIL("item %zu: %d, want %d", i, r[i], want);
        }
    CHECK_MPI(MPI_Type_free(&t));
    free(s);
    free(r);
}

static void allreduce_ints(int count, int inplace, MPI_Op op, int ncm)
{
    snprintf(cur, sizeof(cur), "allreduce count=%d inplace=%d %s", count, inplace,
             ncm ? "noncommuting" : "sum");
    int *s = xmalloc(sizeof(int) * (size_t)count), *r = xmalloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++)
        s[i] = val(me, i);
    if (inplace) {
        memcpy(r, s, sizeof(int) * (size_t)count);
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, count, MPI_INT, op, pc));
    } else {
        CHECK_MPI(MPI_Allreduce(s, r, count, MPI_INT, op, pc));
    }
    for (int i = 0; i < count; i++) {
        int want = ncm ? 3 * val(0, i) - val(1, i) : val(0, i) + val(1, i);
        if (r[i] != want)
            FAIL("item %d: %d, want %d", i, r[i], want);
    }
    free(s);
    free(r);
}

/* Allgather, or allgatherv with the blocks in reverse order and a gap, of count ints per
 * rank; rank 1 sends (and with allgather receives) blocks as one contiguous datatype. */
static void allgather(int count, int v, int inplace)
{
    snprintf(cur, sizeof(cur), "allgather%s count=%d inplace=%d", v ? "v" : "", count, inplace);
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(count, MPI_INT, &blk));
    CHECK_MPI(MPI_Type_commit(&blk));
    size_t n = 2 * (size_t)count + 3;
    int *s = xmalloc(sizeof(int) * (size_t)count + 1), *r = xmalloc(sizeof(int) * n);
    int counts[2] = { count, count }, displs[2] = { count + 3, 0 };
    for (int i = 0; i < count; i++)
        s[i] = val(me, i);
    for (size_t i = 0; i < n; i++)
        r[i] = -7;
    int *mine = r + (v ? displs[me] : me * count);
    if (inplace)
        memcpy(mine, s, sizeof(int) * (size_t)count);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    int sc = me == 1 ? 1 : count;
    MPI_Datatype st = me == 1 ? blk : MPI_INT;
    if (v)
        CHECK_MPI(MPI_Allgatherv(sb, sc, st, r, counts, displs, MPI_INT, pc));
    else if (me == 1)
        CHECK_MPI(MPI_Allgather(sb, sc, st, r, 1, blk, pc));
    else
        CHECK_MPI(MPI_Allgather(sb, sc, st, r, count, MPI_INT, pc));
    for (int k = 0; k < 2; k++) {
        int *b = r + (v ? displs[k] : k * count);
        for (int i = 0; i < count; i++)
            if (b[i] != val(k, i))
                FAIL("block %d item %d: %d, want %d", k, i, b[i], val(k, i));
    }
    if (v)
        for (int i = count; i < count + 3; i++)
            if (r[i] != -7)
                FAIL("gap item %d overwritten: %d", i, r[i]);
    CHECK_MPI(MPI_Type_free(&blk));
    free(s);
    free(r);
}

/* Alltoall, or alltoallv with the blocks swapped in memory; rank 1 describes blocks as one
 * contiguous datatype (alltoall). */
static void alltoall(int count, int v)
{
    snprintf(cur, sizeof(cur), "alltoall%s count=%d", v ? "v" : "", count);
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(count, MPI_INT, &blk));
    CHECK_MPI(MPI_Type_commit(&blk));
    size_t n = 2 * (size_t)count;
    int *s = xmalloc(sizeof(int) * n), *r = xmalloc(sizeof(int) * n);
    int counts[2] = { count, count }, displs[2] = { count, 0 };
    /* block k (for rank k) at k * count, or at displs[k] with v */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < count; i++)
            s[(v ? displs[k] : k * count) + i] = val(me, i) * 3 + k;
    for (size_t i = 0; i < n; i++)
        r[i] = -9;
    if (v)
        CHECK_MPI(MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, pc));
    else if (me == 1)
        CHECK_MPI(MPI_Alltoall(s, 1, blk, r, 1, blk, pc));
    else
        CHECK_MPI(MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, pc));
    for (int k = 0; k < 2; k++) {
        const int *b = r + (v ? displs[k] : k * count);
        for (int i = 0; i < count; i++)
            if (b[i] != val(k, i) * 3 + me)
                FAIL("from %d item %d: %d, want %d", k, i, b[i], val(k, i) * 3 + me);
    }
    CHECK_MPI(MPI_Type_free(&blk));
    free(s);
    free(r);
}

/* Scatter, or scatterv with the blocks swapped in memory, of count ints per rank from root;
 * rank 1 receives one contiguous datatype; the root may keep its block in place. */
static void scatter(int count, int root, int v, int inplace)
{
    snprintf(cur, sizeof(cur), "scatter%s count=%d root=%d inplace=%d", v ? "v" : "", count,
             root, inplace);
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(count, MPI_INT, &blk));
    CHECK_MPI(MPI_Type_commit(&blk));
    int *s = xmalloc(sizeof(int) * 2 * (size_t)count), *r = xmalloc(sizeof(int) * (size_t)count);
    int counts[2] = { count, count }, displs[2] = { count, 0 };
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < count; i++)
            s[(v ? displs[k] : k * count) + i] = val(root, i) * 5 + k;
    for (int i = 0; i < count; i++)
        r[i] = -3;
    int ip = inplace && me == root;
    void *rb = ip ? MPI_IN_PLACE : r;
    int rc = me == 1 ? 1 : count;
    MPI_Datatype rt = me == 1 ? blk : MPI_INT;
    if (v)
        CHECK_MPI(MPI_Scatterv(s, counts, displs, MPI_INT, rb, rc, rt, root, pc));
    else
        CHECK_MPI(MPI_Scatter(s, count, MPI_INT, rb, rc, rt, root, pc));
    const int *got = ip ? s + (v ? displs[me] : me * count) : r;
    for (int i = 0; i < count; i++)
        if (got[i] != val(root, i) * 5 + me)
            FAIL("item %d: %d, want %d", i, got[i], val(root, i) * 5 + me);
    CHECK_MPI(MPI_Type_free(&blk));
    free(s);
    free(r);
}

/* Gather, or gatherv with the blocks swapped in memory, of count ints per rank to root;
 * rank 1 sends one contiguous datatype; the root's block may be in place. */
static void gather(int count, int root, int v, int inplace)
{
    snprintf(cur, sizeof(cur), "gather%s count=%d root=%d inplace=%d", v ? "v" : "", count,
             root, inplace);
    MPI_Datatype blk;
    CHECK_MPI(MPI_Type_contiguous(count, MPI_INT, &blk));
    CHECK_MPI(MPI_Type_commit(&blk));
    int *s = xmalloc(sizeof(int) * (size_t)count), *r = xmalloc(sizeof(int) * 2 * (size_t)count);
    int counts[2] = { count, count }, displs[2] = { count, 0 };
    for (int i = 0; i < count; i++)
        s[i] = val(me, i) * 7 + root;
    for (int i = 0; i < 2 * count; i++)
        r[i] = -4;
    int ip = inplace && me == root;
    if (ip)
        memcpy(r + (v ? displs[me] : me * count), s, sizeof(int) * (size_t)count);
    const void *sb = ip ? MPI_IN_PLACE : s;
    int sc = me == 1 ? 1 : count;
    MPI_Datatype st = me == 1 ? blk : MPI_INT;
    if (v)
        CHECK_MPI(MPI_Gatherv(sb, sc, st, r, counts, displs, MPI_INT, root, pc));
    else
        CHECK_MPI(MPI_Gather(sb, sc, st, r, count, MPI_INT, root, pc));
    for (int k = 0; me == root && k < 2; k++) {
        const int *b = r + (v ? displs[k] : k * count);
        for (int i = 0; i < count; i++)
            if (b[i] != val(k, i) * 7 + root)
                FAIL("from %d item %d: %d, want %d", k, i, b[i], val(k, i) * 7 + root);
    }
    CHECK_MPI(MPI_Type_free(&blk));
    free(s);
    free(r);
}

static void barrier(void)
{
    /* rank 0 arrives 50 ms late: rank 1 may not leave before */
    snprintf(cur, sizeof(cur), "barrier");
    for (int k = 0; k < 100; k++)
        CHECK_MPI(MPI_Barrier(pc));
    double t0 = MPI_Wtime();
    if (me == 0)
        usleep(50000);
    CHECK_MPI(MPI_Barrier(pc));
    if (me == 1 && MPI_Wtime() - t0 < 0.045)
        FAIL("left after %.3f s, before the late rank entered", MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("SKIP: needs 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    int odd_out = size % 2 && wrank == size - 1;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, odd_out ? MPI_UNDEFINED : wrank / 2, wrank, &pc));
    if (!odd_out) {
        MPI_Comm_rank(pc, &me);
        MPI_Op nc;
        CHECK_MPI(MPI_Op_create(ncomm, 0, &nc));
        const int counts[] = { 0, 1, 2, 255, 1023, 4097, 8191, 8192, 8193, 40001, 262147 };
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            int n = counts[c];
            for (int root = 0; root < 2; root++) {
                reduce_ints(n, root, 0, MPI_SUM, 0);
                reduce_ints(n, root, 1, MPI_SUM, 0);
                reduce_ints(n, root, root, nc, 1);
                reduce_max_double(n, root);
                reduce_minloc(n, root);
            }
            reduce_derived(n / 4, n % 2, 0);
            reduce_derived(n / 4, n % 2, 1);
            allreduce_ints(n, 0, MPI_SUM, 0);
            allreduce_ints(n, 1, MPI_SUM, 0);
            allreduce_ints(n, (int)c % 2, nc, 1);
            if (n > 0) {
                allgather(n, 0, 0);
                allgather(n, 0, 1);
                allgather(n, 1, 0);
                allgather(n, 1, 1);
                alltoall(n, 0);
                alltoall(n, 1);
                for (int root = 0; root < 2; root++)
                    for (int k = 0; k < 4; k++)
                        scatter(n, root, k & 1, k >> 1), gather(n, root, k & 1, k >> 1);
            }
        }
        barrier();
        CHECK_MPI(MPI_Op_free(&nc));
        CHECK_MPI(MPI_Comm_free(&pc));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("coll_pair: ok\n");
    MPI_Finalize();
    return 0;
}
