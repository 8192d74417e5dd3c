/*
 * coll_bcast_late: broadcasts and barriers with one rank late, so the others receive while
 * they poll, yield and (on a node with more ranks than cores, where blocked calls sleep after
 * 1-30 us idle: RDMPI_WAIT_SLEEP) after falling asleep, woken by the late rank's messages:
 * the crowded node's linear barrier and broadcast (collectives/select.c) at 3 and 4 ranks on
 * a 2-core host, the tree algorithms elsewhere. Every root; counts on both sides of the fast
 * paths' limit (8 KiB) and of the shm eager limit (rendezvous); ints, strided on odd ranks (a
 * vector type whose gaps must stay untouched). The late rank busy-loops or sleeps; a barrier
 * may not let a rank leave before the late one entered. Then a receive from a late sender.
 * Results are checked element by element. Any number of ranks; exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpi.h"

static int rank, size;
static char cur[160];

#define COLL_TEST "coll_bcast_late"
#define COLL_RANK rank
#define COLL_CUR cur
#include "coll_check.h"

/* Delays the calling rank by t seconds: busy (its core stays taken) or asleep. */
static void late_by(double t, int busy)
{
    if (t <= 0)
        return;
    if (busy) {
        double s = MPI_Wtime();
        while (MPI_Wtime() - s < t)
            ;
        return;
    }
    struct timespec ts = { 0, (long)(t * 1e9) };
    nanosleep(&ts, NULL);
}

static int value(int root, int it, int i)
{
    return (root + 1) * 1000003 + it * 7919 + i;
}

/* One broadcast of count ints from root, rank late first (strided on odd ranks). */
static void bcast_case(int count, int root, int late, double t, int busy, int it)
{
    snprintf(cur, sizeof(cur), "bcast of %d ints from %d, rank %d late by %g s (%s)", count,
             root, late, t, busy ? "busy" : "asleep");
    int strided = rank % 2 == 1;
    size_t n = (size_t)count * (strided ? 2 : 1);
    int *buf = xmalloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        buf[i] = -1;
    MPI_Datatype dt = MPI_INT;
    if (strided) {
        CHECK_MPI(MPI_Type_vector(count, 1, 2, MPI_INT, &dt));
        CHECK_MPI(MPI_Type_commit(&dt));
    }
    if (rank == root)
        for (int i = 0; i < count; i++)
            buf[strided ? 2 * i : i] = value(root, it, i);
    if (rank == late)
        late_by(t, busy);
    CHECK_MPI(MPI_Bcast(buf, strided ? 1 : count, dt, root, MPI_COMM_WORLD));
    for (int i = 0; i < count; i++) {
        int got = buf[strided ? 2 * i : i];
        if (got != value(root, it, i))
            FAIL("item %d is %d, not %d", i, got, value(root, it, i));
        if (strided && buf[2 * i + 1] != -1)
            FAIL("the gap after item %d was written (%d)", i, buf[2 * i + 1]);
    }
    if (strided)
        CHECK_MPI(MPI_Type_free(&dt));
    free(buf);
}

/* A barrier with rank late: nobody leaves before it entered (ranks on one node only share
 * a clock). */
static void barrier_case(int late, double t, int busy, int leader)
{
    snprintf(cur, sizeof(cur), "barrier, rank %d late by %g s (%s)", late, t, busy ? "busy" : "asleep");
    double entered[2] = { 0, (double)leader };
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == late) {
        late_by(t, busy);
        entered[0] = MPI_Wtime();
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double left = MPI_Wtime();
    CHECK_MPI(MPI_Bcast(entered, 2, MPI_DOUBLE, late, MPI_COMM_WORLD));
    if ((int)entered[1] == leader && left < entered[0])
        FAIL("left at %.6f, before rank %d entered at %.6f", left, late, entered[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    int leader = rank;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, node));
    /* 8 KiB is the fast paths' limit; 32 KiB and more go by rendezvous over shm. */
    const int counts[] = { 0, 1, 2047, 2048, 2049, 9000, 40000 };
    const double delays[] = { 0, 0.0003, 0.004 };
    int it = 0;
    for (int root = 0; root < size; root++)
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
            for (size_t d = 0; d < sizeof(delays) / sizeof(delays[0]); d++) {
                /* The root late (receivers wait), or the last receiver late. */
                int late = (it % 2 == 0) ? root : (root + size - 1) % size;
                bcast_case(counts[c], root, late, delays[d], (it / 2) % 2, it);
                it++;
            }
    for (int late = 0; late < size; late++)
        for (size_t d = 0; d < sizeof(delays) / sizeof(delays[0]); d++)
            barrier_case(late, delays[d], (int)d % 2, leader);
    /* A plain receive after the collectives, from a sender late by more than the keep. */
    if (size > 1) {
        snprintf(cur, sizeof(cur), "receive from a late sender after the collectives");
        int v = -1;
        if (rank == 0) {
            late_by(0.004, 0);
            v = 4242;
            for (int r = 1; r < size; r++)
                CHECK_MPI(MPI_Send(&v, 1, MPI_INT, r, 7, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (v != 4242)
                FAIL("got %d, not 4242", v);
        }
    }
    CHECK_MPI(MPI_Comm_free(&node));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("coll_bcast_late: OK\n");
    MPI_Finalize();
    return 0;
}
