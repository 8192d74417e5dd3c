/*
 * rdmpi_mbw_mr: bandwidth and message rate of N/2 pairs at once. Rank i (first half) streams
 * windows of W messages to rank i + N/2 (second half), which acks each window with 4 bytes, as in
 * rdmpi_bw. All pairs start together after a barrier; the run's time is the slowest rank's.
 * Reports the aggregate MB/s (MB = 10^6 bytes) and messages/s. Output as OSU's osu_mbw_mr.
 */
#include "bench_util.h"

#include <mpi.h>
#include <stdlib.h>

static const struct bench_spec spec = {
    .prog = "rdmpi_mbw_mr",
    .title = "Multiple Bandwidth / Message Rate Test",
    .columns = "# Size                  MB/s        Messages/s",
    .ranks = BENCH_RANKS_EVEN,
    .has_window = 1,
    .iters_small = 100, .warmup_small = 10,
    .iters_large = 20, .warmup_large = 2,
};

static void stream(const struct bench_opts *o, char *buf, MPI_Request *reqs, int count, int n)
{
    int pairs = o->nranks / 2;
    int sender = o->rank < pairs;
    int peer = sender ? o->rank + pairs : o->rank - pairs;
    char ack[4] = {0};

    for (int i = 0; i < n; i++) {
        if (sender) {
            for (int w = 0; w < o->window; w++)
                MPI_Isend(buf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(ack, 4, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < o->window; w++)
                MPI_Irecv(buf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(ack, 4, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD);
        }
    }
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
        int iters = bench_iters(&o, size);
        double elapsed, slowest;

        MPI_Barrier(MPI_COMM_WORLD);
        stream(&o, buf, reqs, (int)size, bench_warmup(&o, size));
        MPI_Barrier(MPI_COMM_WORLD);
        elapsed = MPI_Wtime();
        stream(&o, buf, reqs, (int)size, iters);
        elapsed = MPI_Wtime() - elapsed;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

        double messages = (double)(o.nranks / 2) * o.window * iters;
        bench_row2(&o, size, messages * (double)size / slowest / 1e6, messages / slowest);
    }
    free(reqs);
    free(buf);
    return bench_finish();
}
