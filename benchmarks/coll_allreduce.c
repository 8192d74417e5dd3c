/*
 * rdmpi_allreduce and rdmpi_iallreduce (built with -DCOLL_BENCH_NONBLOCKING): MPI_Allreduce (MPI_SUM)
 * of size bytes of the -T type (MPI_CHAR by default), as the OSU micro-benchmarks' osu_allreduce
 * and osu_iallreduce measure it. See coll_util.h.
 */
#include "coll_util.h"

static void run(struct coll_bufs *b, size_t size)
{
    (void)b;
    (void)size;
    MPI_Allreduce(b->sbuf, b->rbuf, (int)(size / b->tsize), b->type, MPI_SUM, MPI_COMM_WORLD);
}

static void start(struct coll_bufs *b, size_t size, MPI_Request *req)
{
    (void)b;
    (void)size;
    MPI_Iallreduce(b->sbuf, b->rbuf, (int)(size / b->tsize), b->type, MPI_SUM, MPI_COMM_WORLD, req);
}

static const struct coll_bench bench = { "Allreduce", 1, 1, run, start };

int main(int argc, char **argv)
{
    return coll_bench_main(argc, argv, &bench, COLL_BENCH_NONBLOCKING);
}
