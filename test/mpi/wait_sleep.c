/*
 * Oversubscribed waiting: run with more ranks than cores and
 * RDMPI_WAIT_SLEEP forcing blocked calls to sleep almost at once, so most
 * messages find their receiver asleep and must wake it (the shm doorbell,
 * the verbs completion channel). Ping-pong in pairs, bcast, allreduce and
 * barriers, all checked; a lost wake-up shows up as a hang (the test's
 * timeout) long before the rounds finish. Then one rank holds back a
 * message for a while: its receiver must have slept (used little CPU)
 * rather than polled, when sleeping is allowed here.
 */
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>
#include "check.h"

#define ROUNDS 300

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void pingpong(int rank, int size)
{
    t_begin("ping-pong");
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    int slow = 0; /* round trips as long as a sleep's bound (10 ms): a wake lost each time */
    for (int i = 0; i < ROUNDS; i++) {
        int64_t v = rank < peer ? i : -1;
        if (rank < peer) {
            double t0 = MPI_Wtime();
            MPI_OK(MPI_Send(&v, 1, MPI_INT64_T, peer, i, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(&v, 1, MPI_INT64_T, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == 2 * i + 1, "round %d: got %lld back", i, (long long)v);
            slow += MPI_Wtime() - t0 >= 0.009;
        } else {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT64_T, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == i, "round %d: got %lld", i, (long long)v);
            v = 2 * v + 1;
            MPI_OK(MPI_Send(&v, 1, MPI_INT64_T, peer, i, MPI_COMM_WORLD));
        }
    }
    /* Senders ring without a fence when the node is not oversubscribed (shm_bell.h): a
     * sleeper that missed their records would wait out its bound every round. */
    CHECK(slow < ROUNDS / 2, "%d of %d round trips took 9 ms or more: wakes lost", slow, ROUNDS);
}

static void collectives(int rank, int size)
{
    static unsigned char big[65536];
    for (int i = 0; i < ROUNDS / 3; i++) {
        t_begin("bcast");
        int root = i % size;
        int v = rank == root ? 1000 + i : -1;
        MPI_OK(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
        CHECK(v == 1000 + i, "round %d: bcast from %d gave %d", i, root, v);
        if (i % 10 == 0) {
            if (rank == root)
                t_fill(big, root, sizeof(big));
            else
                memset(big, 0, sizeof(big));
            MPI_OK(MPI_Bcast(big, sizeof(big), MPI_BYTE, root, MPI_COMM_WORLD));
            CHECK(t_verify(big, root, sizeof(big)) == sizeof(big), "round %d: 64 KiB bcast", i);
        }
        t_begin("allreduce");
        long s = rank + i, sum = 0;
        MPI_OK(MPI_Allreduce(&s, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * i, "round %d: sum %ld", i, sum);
        t_begin("barrier");
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* Whether rank 1 can sleep here: RDMPI_WAIT_SLEEP asks for it and every transport in use can
 * wake a sleeper (all ranks on this node, and tcp, which cannot, not asked for). Collective. */
static int sleep_expected(void)
{
    const char *ws = getenv("RDMPI_WAIT_SLEEP");
    const char *tps = getenv("RDMPI_TRANSPORTS");
    MPI_Comm node;
    int nsize, wsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_free(&node);
    return ws && atof(ws) > 0 && nsize == wsize && !(tps && strstr(tps, "tcp"));
}

/* Rank 0 sends to rank 1 after 0.3 s; rank 1 waits in MPI_Recv meanwhile. */
static void held_back(int rank, int expect_sleep)
{
    t_begin("held-back message");
    const double hold = 0.3;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        usleep((useconds_t)(hold * 1e6));
        int v = 42;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int v = 0;
        double c0 = cpu_seconds(), t0 = MPI_Wtime();
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        double cpu = cpu_seconds() - c0, wall = MPI_Wtime() - t0;
        CHECK(v == 42, "got %d", v);
        /* Asleep, the receiver uses well under a millisecond per wake-up (at most one per
         * 10 ms without a message); polling, it takes whatever CPU the scheduler gives. */
        if (expect_sleep)
            CHECK(cpu < 0.25 * wall, "the receiver used %.3f s of CPU in %.3f s asleep", cpu,
                  wall);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    pingpong(t_rank, t_size);
    collectives(t_rank, t_size);
    int expect_sleep = sleep_expected(); /* collective */
    if (t_size > 1)
        held_back(t_rank, expect_sleep);
    t_finish();
    if (t_rank == 0)
        printf("PASS: wait_sleep (%d ranks)\n", t_size);
    return 0;
}
