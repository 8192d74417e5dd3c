/*
 * rdmpi_bw: unidirectional bandwidth between two ranks. Each iteration rank 0 has a window of
 * W messages in flight (MPI_Isend, then MPI_Waitall) to rank 1's W posted receives, and rank 1
 * answers with a 1-byte ack, so an iteration ends only when all its data has arrived.
 * MB/s with MB = 10^6 bytes, as measured by rank 0. Measured as OSU 7.4's osu_bw (window 64,
 * 100 iterations and 10 warm-up up to 8 KiB, 20 and 2 above; both buffers written before each size;
 * a barrier before each size's warm-up), output in its format. OSU clocks each iteration and sums;
 * one clock around the timed iterations measures the same time, as nothing runs between them.
 *
 * As in OSU, all W messages of a window share one buffer on each side: the footprint, and so the
 * cache behaviour, stays one message, which keeps the figures comparable with osu_bw's.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdlib.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_bw",
    .title = "Bandwidth Test",
    .columns = "# Size      Bandwidth (MB/s)",
    .ranks = BENCH_RANKS_TWO,
    .has_window = 1,
    .iters_small = 100, .warmup_small = 10,
    .iters_large = 20, .warmup_large = 2,
};

static double window_bw(const struct bench_opts *o, char *buf, MPI_Request *reqs, size_t size)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size);
    int count = (int)size, peer = 1 - o->rank;
    char ack = 0;
    double t0 = MPI_Wtime();

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        if (o->rank == 0) {
            for (int w = 0; w < o->window; w++)
                MPI_Isend(buf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < o->window; w++)
                MPI_Irecv(buf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return (double)size * o->window * iters / t / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_start(&argc, &argv, &spec, &o);
    char *buf = bench_alloc(&o, o.max_size);
    MPI_Request *reqs = malloc(sizeof(*reqs) * (size_t)o.window);
    if (!reqs)
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        bench_touch(buf, NULL, size);
        MPI_Barrier(MPI_COMM_WORLD);
        bench_row(&o, size, window_bw(&o, buf, reqs, size));
    }
    free(reqs);
    free(buf);
    return bench_finish();
}
