/*
 * A nonblocking send followed by computation (no MPI call) must reach its receiver during
 * the computation, not when the sender next enters the library: the pattern of a halo
 * exchange (MPI_Isend to each neighbour, compute the interior, MPI_Waitall). Rank 0 sends
 * a small and a medium message to every other rank, then computes COMPUTE seconds; the
 * others time their MPI_Recv from the barrier they left together and must have both
 * messages well before rank 0 stops computing. Over tcp a window of sends is batched into
 * one write (transports/tcp: TCP_POST_ALONE); the first ones of a burst must go at once.
 */
#include <time.h>
#include "check.h"

#define COMPUTE 1.0  /* seconds rank 0 computes after its sends */
#define LIMIT 0.5    /* a receiver must have its messages within this (seconds) */
#define SMALL 8
#define MEDIUM 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    t_begin("isend then compute");
    static char small[SMALL], medium[MEDIUM], rs[SMALL], rm[MEDIUM];
    t_fill(small, 0, SMALL);
    t_fill(medium, 0, MEDIUM);
    /* Connections first (tcp connects on first use), outside the timed part. */
    if (t_rank == 0) {
        for (int r = 1; r < t_size; r++)
            MPI_OK(MPI_Send(small, SMALL, MPI_BYTE, r, 1, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Recv(rs, SMALL, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int round = 0; round < 2; round++) {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = now(), took = 0;
        if (t_rank == 0) {
            /* Round 0: a pause as between two steps of a solver; round 1: the sends right
             * after the barrier, whose own frames the transport may count in the burst. */
            while (round == 0 && now() - t0 < 0.02)
                ;
            MPI_Request rq[2 * 64];
            int n = 0;
            for (int r = 1; r < t_size && n < 2 * 64; r++) {
                MPI_OK(MPI_Isend(small, SMALL, MPI_BYTE, r, 2, MPI_COMM_WORLD, &rq[n++]));
                MPI_OK(MPI_Isend(medium, MEDIUM, MPI_BYTE, r, 3, MPI_COMM_WORLD, &rq[n++]));
            }
            double c0 = now();
            volatile double x = 0;
            while (now() - c0 < COMPUTE) /* computing: no MPI call */
                x += 1.0;
            MPI_OK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
        } else {
            MPI_OK(MPI_Recv(rs, SMALL, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            double t_small = now() - t0;
            MPI_OK(MPI_Recv(rm, MEDIUM, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            took = now() - t0;
            if (took >= LIMIT)
                fprintf(stderr, "rank %d: round %d: small message after %.3f s, medium after %.3f s\n",
                        t_rank, round, t_small, took);
            CHECK(t_verify(rs, 0, SMALL) == SMALL, "round %d: small message corrupted", round);
            CHECK(t_verify(rm, 0, MEDIUM) == MEDIUM, "round %d: medium message corrupted", round);
        }
        double worst = 0;
        MPI_OK(MPI_Reduce(&took, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
        if (t_rank == 0)
            CHECK(worst < LIMIT,
                  "round %d: a receiver waited %.3f s for messages sent before a %.1f s "
                  "computation (they left only at MPI_Waitall)", round, worst, COMPUTE);
    }
    t_finish();
    return 0;
}
