/*
 * rdmpi_reduce and rdmpi_ireduce (built with -DCOLL_BENCH_NONBLOCKING): MPI_Reduce (MPI_SUM) to rank 0
 * of size bytes of the -T type (MPI_CHAR by default), as the OSU micro-benchmarks' osu_reduce and
 * osu_ireduce measure it. See coll_util.h.
 */
#include "coll_util.h"

static void run(struct coll_bufs *b, size_t size)
{
    (void)b;
    (void)size;
    MPI_Reduce(b->sbuf, b->rbuf, (int)(size / b->tsize), b->type, MPI_SUM, 0, MPI_COMM_WORLD);
}

static void start(struct coll_bufs *b, size_t size, MPI_Request *req)
{
    (void)b;
    (void)size;
    MPI_Ireduce(b->sbuf, b->rbuf, (int)(size / b->tsize), b->type, MPI_SUM, 0, MPI_COMM_WORLD, req);
}

static const struct coll_bench bench = { "Reduce", 1, 1, run, start };

int main(int argc, char **argv)
{
    return coll_bench_main(argc, argv, &bench, COLL_BENCH_NONBLOCKING);
}
