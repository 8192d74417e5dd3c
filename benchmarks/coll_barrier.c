/*
 * rdmpi_barrier and rdmpi_ibarrier (built with -DCOLL_BENCH_NONBLOCKING): MPI_Barrier, as the OSU
 * micro-benchmarks' osu_barrier and osu_ibarrier measure it. See coll_util.h.
 */
#include "coll_util.h"

static void run(struct coll_bufs *b, size_t size)
{
    (void)b;
    (void)size;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void start(struct coll_bufs *b, size_t size, MPI_Request *req)
{
    (void)b;
    (void)size;
    MPI_Ibarrier(MPI_COMM_WORLD, req);
}

static const struct coll_bench bench = { "Barrier", 0, 0, run, start };

int main(int argc, char **argv)
{
    return coll_bench_main(argc, argv, &bench, COLL_BENCH_NONBLOCKING);
}
