/*
 * rdmpi_mbw_mr: bandwidth and message rate of N/2 pairs at once. Rank i (first half) streams
 * windows of W messages to rank i + N/2 (second half), which acks each window with 1 byte, as in
 * rdmpi_bw. Reports the aggregate MB/s (MB = 10^6 bytes) and messages/s. Output as OSU's
 * osu_mbw_mr.
 *
 * Measured as OSU 7.4's osu_mbw_mr: 100 iterations after 10 warm-up at every size (no smaller
 * count for large messages), every iteration (warm-up too) starting after a barrier of all ranks
 * (OSU calls two in a row; so does this, so that the ranks leave it as closely together as there),
 * each sender clocking its iterations one by one and summing; the run's time is the average of
 * the senders' sums. So a window never overlaps the previous one's tail: at small sizes this is
 * the rate of one window of W messages from a standing start, not of an endless stream.
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
    .iters_large = 100, .warmup_large = 10,
};

/* Runs warmup + iters windows; returns this rank's summed time of the timed ones (0 on a
 * receiver). */
static double stream(const struct bench_opts *o, char *sbuf, char *rbuf, MPI_Request *reqs,
                     int count, int warmup, int iters)
{
    int pairs = o->nranks / 2;
    int sender = o->rank < pairs;
    int peer = sender ? o->rank + pairs : o->rank - pairs;
    char ack = 0;
    double total = 0;

    for (int i = 0; i < warmup + iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (sender) {
            double t0 = MPI_Wtime();
            for (int w = 0; w < o->window; w++)
                MPI_Isend(sbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= warmup)
                total += MPI_Wtime() - t0;
        } else {
            for (int w = 0; w < o->window; w++)
                MPI_Irecv(rbuf, count, MPI_CHAR, peer, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[w]);
            MPI_Waitall(o->window, reqs, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, peer, BENCH_ACK_TAG, MPI_COMM_WORLD);
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_start(&argc, &argv, &spec, &o);
    char *sbuf = bench_alloc(&o, o.max_size);
    char *rbuf = bench_alloc(&o, o.max_size);
    MPI_Request *reqs = malloc(sizeof(*reqs) * (size_t)o.window);
    if (!reqs)
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (size_t size = o.min_size; size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), pairs = o.nranks / 2;
        double mine, sum;

        bench_touch(sbuf, rbuf, size);
        MPI_Barrier(MPI_COMM_WORLD);
        mine = stream(&o, sbuf, rbuf, reqs, (int)size, bench_warmup(&o, size), iters);
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

        double messages = (double)pairs * o.window * iters, avg = sum / pairs;
        bench_row2(&o, size, messages * (double)size / avg / 1e6, messages / avg);
    }
    free(reqs);
    free(rbuf);
    free(sbuf);
    return bench_finish();
}
