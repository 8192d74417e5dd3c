/*
 * rdmpi_scatter and rdmpi_iscatter (built with -DCOLL_BENCH_NONBLOCKING): MPI_Scatter of size bytes per rank from rank 0, as the OSU
 * micro-benchmarks' osu_scatter and osu_iscatter measure it. See coll_util.h.
 */
#include "coll_util.h"

static void run(struct coll_bufs *b, size_t size)
{
    (void)b;
    (void)size;
    MPI_Scatter(b->sbuf, (int)size, MPI_CHAR, b->rbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void start(struct coll_bufs *b, size_t size, MPI_Request *req)
{
    (void)b;
    (void)size;
    MPI_Iscatter(b->sbuf, (int)size, MPI_CHAR, b->rbuf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD, req);
}

static const struct coll_bench bench = { "Scatter", 1, 0, run, start };

int main(int argc, char **argv)
{
    return coll_bench_main(argc, argv, &bench, COLL_BENCH_NONBLOCKING);
}
