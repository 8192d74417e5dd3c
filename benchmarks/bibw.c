/*
 * rdmpi_bibw: bidirectional bandwidth between two ranks. Each iteration both ranks post a window
 * of W receives and W sends to each other and wait for all 2W; the figure counts the bytes of both
 * directions. MB/s with MB = 10^6 bytes, as measured by rank 0. Measured as OSU 7.4's osu_bibw
 * (window 64, its iteration counts, both buffers written before each size, a barrier before each
 * size's warm-up), output in its format. OSU waits for the sends, then the receives (rank 1: the
 * other way round); one MPI_Waitall on all 2W ends at the same moment: when the last one completes.
 *
 * As in OSU, the W messages of a window share one send and one receive buffer per rank.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdlib.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_bibw",
    .title = "Bi-Directional Bandwidth Test",
    .columns = "# Size      Bandwidth (MB/s)",
    .ranks = BENCH_RANKS_TWO,
    .has_window = 1,
    .iters_small = 100, .warmup_small = 10,
    .iters_large = 20, .warmup_large = 2,
};

static double window_bibw(const struct bench_opts *o, char *sbuf, char *rbuf, MPI_Request *reqs,
                          size_t size)
{
    int iters = bench_iters(o, size), warmup = bench_warmup(o, size);
    int count = (int)size, peer = 1 - o->rank, w = o->window;
    double t0 = MPI_Wtime();

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup)
            t0 = MPI_Wtime();
        for (int k = 0; k < w; k++)
            MPI_Irecv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[k]);
        for (int k = 0; k < w; k++)
            MPI_Isend(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w + k]);
        MPI_Waitall(2 * w, reqs, MPI_STATUSES_IGNORE);
    }
    double t = MPI_Wtime() - t0;
    return 2.0 * (double)size * w * iters / t / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_start(&argc, &argv, &spec, &o);
    char *sbuf = bench_alloc(&o, o.max_size);
    char *rbuf = bench_alloc(&o, o.max_size);
    MPI_Request *reqs = malloc(sizeof(*reqs) * 2 * (size_t)o.window);
    if (!reqs)
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        bench_touch(sbuf, rbuf, size);
        MPI_Barrier(MPI_COMM_WORLD);
        bench_row(&o, size, window_bibw(&o, sbuf, rbuf, reqs, size));
    }
    free(reqs);
    free(rbuf);
    free(sbuf);
    return bench_finish();
}
