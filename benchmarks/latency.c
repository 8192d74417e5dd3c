/*
 * rdmpi_latency: ping-pong between two ranks. Rank 0 sends, rank 1 answers with a message of the
 * same size; the one-way latency is half the round trip, averaged over the timed iterations.
 * Measured as OSU 7.4's osu_latency: sizes from 0, both buffers written before each size, a
 * barrier, warm-up round trips, then each timed round trip clocked on its own (MPI_Wtime before
 * the send and after the receive) and the times summed; output in its format. With -t rank 0 also prints half
 * the median of those round trips, as perftest's t_typical: one descheduled iteration then moves
 * the figure by nothing rather than by its whole delay over the count.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdlib.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_latency",
    .title = "Latency Test",
    .columns = "# Size          Latency (us)",
    .ranks = BENCH_RANKS_TWO,
    .has_median = 1,
    .from_zero = 1,
    .iters_small = 10000, .warmup_small = 100,
    .iters_large = 1000, .warmup_large = 10,
};

/* One-way latency in microseconds, as measured by rank 0: the mean, and when lap is not NULL (an
 * array of the size's iteration count) the median, in *median. */
static double pingpong(const struct bench_opts *o, char *sbuf, char *rbuf, size_t size,
                       double *lap, double *median)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size);
    int count = (int)size, peer = 1 - o->rank;
    double total = 0;

    for (int i = 0; i < warmup + iters; i++) {
        if (o->rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            double t = MPI_Wtime() - t0;
            if (i >= warmup) {
                total += t;
                if (lap)
                    lap[i - warmup] = t;
            }
        } else {
            MPI_Recv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD);
        }
    }
    if (lap)
        *median = bench_median(lap, iters) * 1e6 / 2.0;
    return total * 1e6 / (2.0 * iters);
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_start(&argc, &argv, &spec, &o);
    char *sbuf = bench_alloc(&o, o.max_size);
    char *rbuf = bench_alloc(&o, o.max_size);
    double *lap = NULL;

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        double mean, median;

        if (o.median && o.rank == 0) {
            free(lap);
            lap = bench_alloc(&o, (size_t)bench_iters(&o, size) * sizeof(*lap));
        }
        bench_touch(sbuf, rbuf, size);
        MPI_Barrier(MPI_COMM_WORLD);
        mean = pingpong(&o, sbuf, rbuf, size, lap, &median);
        if (lap)
            bench_row2(&o, size, mean, median);
        else
            bench_row(&o, size, mean);
    }
    free(lap);
    free(sbuf);
    free(rbuf);
    return bench_finish();
}
