/*
 * coll_nb: what is particular to nonblocking collectives. Overlap: a large
 * MPI_Iallreduce completes while the rank computes and calls MPI_Test (or
 * only MPI_Iprobe) now and then. Many outstanding at once: on different
 * communicators (completed in reverse order), on one communicator (100
 * small allreduces, then a mix of broadcasts from different roots, reduce,
 * scan and barrier, completed with MPI_Waitany/Testall/Waitsome in orders
 * that differ between ranks), and a blocking collective started while a
 * nonblocking one on the same communicator is still running. Objects
 * freed while in use: a derived datatype and a user operation freed right
 * after the call that uses them, and a communicator freed before its
 * collective completes. Every result is checked against a local
 * reference. Runs at any number of ranks; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int wrank, wsize;
static char cur[256];

#define COLL_TEST "coll_nb"
#define COLL_RANK wrank
#define COLL_CUR cur
#include "coll_check.h"

#define CHECK(cond, ...)       \
    do {                       \
        if (!(cond))           \
            FAIL(__VA_ARGS__); \
    } while (0)

static volatile double sink;

/* About usec microseconds of computation. */
static void compute(double usec)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while ((MPI_Wtime() - t0) * 1e6 < usec)
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Sum over ranks of (r + 1) * (i + 1): exact in doubles. */
static double sum_ref(int i)
{
    return (double)wsize * (wsize + 1) / 2 * (i + 1);
}

static void test_overlap(int use_test)
{
    const int count = 1 << 17;
    double *in = xmalloc(sizeof(double) * count), *out = xmalloc(sizeof(double) * count);
    for (int i = 0; i < count; i++)
        in[i] = (double)(wrank + 1) * (i + 1);
    snprintf(cur, sizeof(cur), "overlap of MPI_Iallreduce with computation (%s)",
             use_test ? "MPI_Test" : "MPI_Iprobe");
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));
    int done = 0, polls = 0;
    double t0 = MPI_Wtime();
    while (!done) {
        compute(50);
        polls++;
        if (use_test) {
            CHECK_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        } else {
            int flag;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag,
                                 MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_get_status(req, &done, MPI_STATUS_IGNORE));
            if (done)
                CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        CHECK(MPI_Wtime() - t0 < 30, "no completion after %d polls in 30 s", polls);
    }
    CHECK(req == MPI_REQUEST_NULL, "the request was not released");
    for (int i = 0; i < count; i++)
        CHECK(out[i] == sum_ref(i), "item %d is %g, expected %g", i, out[i], sum_ref(i));
    free(in);
    free(out);
}

static void test_many_comms(void)
{
    enum { NC = 5 };
    MPI_Comm c[NC];
    MPI_Request req[NC];
    snprintf(cur, sizeof(cur), "outstanding collectives on %d communicators", NC);
    for (int k = 0; k < NC; k++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[k]));
    int n = wsize, r = wrank;
    int bc[64], red[64], *a2a_s = xmalloc(sizeof(int) * n * 3), *a2a_r = xmalloc(sizeof(int) * n * 3);
    int *gat = xmalloc(sizeof(int) * n * 2), mine[2] = { r, -r };
    for (int i = 0; i < 64; i++) {
        bc[i] = r == n - 1 ? i * 3 : -1;
        red[i] = r + i;
    }
    for (int j = 0; j < n * 3; j++)
        a2a_s[j] = r * 1000 + j;
    CHECK_MPI(MPI_Ibcast(bc, 64, MPI_INT, n - 1, c[0], &req[0]));
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, red, 64, MPI_INT, MPI_SUM, c[1], &req[1]));
    CHECK_MPI(MPI_Ialltoall(a2a_s, 3, MPI_INT, a2a_r, 3, MPI_INT, c[2], &req[2]));
    CHECK_MPI(MPI_Ibarrier(c[3], &req[3]));
    CHECK_MPI(MPI_Iallgather(mine, 2, MPI_INT, gat, 2, MPI_INT, c[4], &req[4]));
    for (int k = NC - 1; k >= 0; k--)
        CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int i = 0; i < 64; i++) {
        CHECK(bc[i] == i * 3, "bcast item %d is %d", i, bc[i]);
        CHECK(red[i] == n * (n - 1) / 2 + n * i, "allreduce item %d is %d", i, red[i]);
    }
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < 3; k++)
            CHECK(a2a_r[j * 3 + k] == j * 1000 + r * 3 + k, "alltoall from %d item %d", j, k);
        CHECK(gat[2 * j] == j && gat[2 * j + 1] == -j, "allgather block %d", j);
    }
    for (int k = 0; k < NC; k++)
        CHECK_MPI(MPI_Comm_free(&c[k]));
    free(a2a_s), free(a2a_r), free(gat);
}

static void test_same_comm(void)
{
    enum { NR = 100 };
    int n = wsize, r = wrank;
    MPI_Request req[NR];
    int v[NR];
    snprintf(cur, sizeof(cur), "%d outstanding MPI_Iallreduce on one communicator", NR);
    for (int k = 0; k < NR; k++) {
        v[k] = r * k + 1;
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &v[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                 &req[k]));
    }
    /* Odd ranks complete them backwards. */
    if (r % 2) {
        for (int k = NR - 1; k >= 0; k--)
            CHECK_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Waitall(NR, req, MPI_STATUSES_IGNORE));
    }
    for (int k = 0; k < NR; k++)
        CHECK(v[k] == k * n * (n - 1) / 2 + n, "allreduce %d gave %d", k, v[k]);

    snprintf(cur, sizeof(cur), "a mix of outstanding collectives on one communicator");
    enum { NM = 6 };
    MPI_Request m[NM];
    int b0[10], b1[10], sum[10], scan[10], mx = r;
    for (int i = 0; i < 10; i++) {
        b0[i] = r == 0 ? 100 + i : -1;
        b1[i] = r == n - 1 ? 200 + i : -1;
        sum[i] = i;
        scan[i] = r + i;
    }
    int maxv = -1;
    CHECK_MPI(MPI_Ibcast(b0, 10, MPI_INT, 0, MPI_COMM_WORLD, &m[0]));
    CHECK_MPI(MPI_Ibcast(b1, 10, MPI_INT, n - 1, MPI_COMM_WORLD, &m[1]));
    CHECK_MPI(MPI_Ireduce(r == 0 ? MPI_IN_PLACE : sum, sum, 10, MPI_INT, MPI_SUM, 0,
                          MPI_COMM_WORLD, &m[2]));
    CHECK_MPI(MPI_Iscan(MPI_IN_PLACE, scan, 10, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &m[3]));
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &m[4]));
    CHECK_MPI(MPI_Iallreduce(&mx, &maxv, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &m[5]));
    /* A blocking collective while those run. */
    int token = r == 0 ? 77 : 0;
    CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(token == 77, "blocking bcast gave %d", token);
    int left = NM;
    if (r % 3 == 0) {
        while (left) {
            int idx;
            CHECK_MPI(MPI_Waitany(NM, m, &idx, MPI_STATUS_IGNORE));
            CHECK(idx != MPI_UNDEFINED, "MPI_Waitany found nothing to wait for");
            left--;
        }
    } else if (r % 3 == 1) {
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Testall(NM, m, &flag, MPI_STATUSES_IGNORE));
    } else {
        while (left) {
            int outc, idx[NM];
            CHECK_MPI(MPI_Waitsome(NM, m, &outc, idx, MPI_STATUSES_IGNORE));
            left -= outc;
        }
    }
    for (int i = 0; i < 10; i++) {
        CHECK(b0[i] == 100 + i && b1[i] == 200 + i, "bcast item %d: %d %d", i, b0[i], b1[i]);
        CHECK(r != 0 || sum[i] == n * i, "reduce item %d is %d", i, sum[i]);
        CHECK(scan[i] == r * (r + 1) / 2 + (r + 1) * i, "scan item %d is %d", i, scan[i]);
    }
    CHECK(maxv == n - 1, "allreduce max is %d", maxv);
}

static void rev_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len * 2; i++)   /* items are pairs of ints */
        ((int *)inout)[i] += ((int *)in)[i];
}

static void test_freed_objects(void)
{
    int n = wsize, r = wrank;
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Comm c;
    MPI_Request req[2];
    snprintf(cur, sizeof(cur), "datatype, operation and communicator freed while in use");
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    CHECK_MPI(MPI_Op_create(rev_sum, 1, &op));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int v[2000], g[2000];
    for (int i = 0; i < 2000; i++)
        v[i] = r + i;
    int *all = xmalloc(sizeof(int) * 4 * n);
    int mine[4] = { r, r + 1, r + 2, r + 3 };
    CHECK_MPI(MPI_Iallreduce(v, g, 1000, pair, op, c, &req[0]));
    CHECK_MPI(MPI_Iallgather(mine, 2, pair, all, 2, pair, c, &req[1]));
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2000; i++)
        CHECK(g[i] == n * (n - 1) / 2 + n * i, "allreduce item %d is %d", i, g[i]);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 4; k++)
            CHECK(all[4 * j + k] == j + k, "allgather item %d of %d", k, j);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    double t0 = MPI_Wtime();
    test_overlap(1);
    test_overlap(0);
    test_many_comms();
    test_same_comm();
    test_freed_objects();
    snprintf(cur, sizeof(cur), "final barrier");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_nb: %d ranks: all passed in %.2f s\n", wsize, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
