/*
 * rdmpi_allgather and rdmpi_iallgather (built with -DCOLL_BENCH_NONBLOCKING): MPI_Allgather of size bytes per rank, as the OSU
 * micro-benchmarks' osu_allgather and osu_iallgather measure it. See coll_util.h.
 */
#include "coll_util.h"

static void run(struct coll_bufs *b, size_t size)
{
    (void)b;
    (void)size;
    MPI_Allgather(b->sbuf, (int)size, MPI_CHAR, b->rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}

static void start(struct coll_bufs *b, size_t size, MPI_Request *req)
{
    (void)b;
    (void)size;
    MPI_Iallgather(b->sbuf, (int)size, MPI_CHAR, b->rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD, req);
}

static const struct coll_bench bench = { "Allgather", 1, 0, run, start };

int main(int argc, char **argv)
{
    return coll_bench_main(argc, argv, &bench, COLL_BENCH_NONBLOCKING);
}
