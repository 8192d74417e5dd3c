/*
 * rdmpi_latency: ping-pong between two ranks. Rank 0 sends, rank 1 answers with a message of the
 * same size; the one-way latency is half the round trip, averaged over the timed iterations.
 * Output as OSU's osu_latency.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdlib.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_latency",
    .title = "Latency Test",
    .columns = "# Size          Latency (us)",
    .ranks = BENCH_RANKS_TWO,
    .iters_small = 10000, .warmup_small = 100,
    .iters_large = 1000, .warmup_large = 10,
};

/* One-way latency in microseconds, as measured by rank 0. */
static double pingpong(const struct bench_opts *o, char *sbuf, char *rbuf, size_t size)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size);
    int count = (int)size, peer = 1 - o->rank;
    double t0 = MPI_Wtime();

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (o->rank == 0) {
            MPI_Send(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_start(&argc, &argv, &spec, &o);
    char *sbuf = bench_alloc(&o, o.max_size);
    char *rbuf = bench_alloc(&o, o.max_size);

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        MPI_Barrier(MPI_COMM_WORLD);
        bench_row(&o, size, pingpong(&o, sbuf, rbuf, size));
    }
    free(sbuf);
    free(rbuf);
    return bench_finish();
}
