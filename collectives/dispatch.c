/*
 * The blocking collectives of coll.h: each describes its call to the
 * selector (coll_select) and runs the algorithm it returns. Arguments are
 * already checked by src/api.
 */
#include "collectives/coll_impl.h"
#include "core/op.h"

static size_t nbytes(int count, MPI_Datatype dt)
{
    return (size_t)count * dt->size;
}

int coll_barrier(MPI_Comm comm)
{
    coll_query_t q = { 0, comm->size, 0, 1 };
    comm->coll_seq++;
    (void)coll_select(COLL_BARRIER, &q);
    return coll_barrier_dissemination(comm);
}

int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    coll_query_t q = { nbytes(count, dt), comm->size, count, 1 };
    comm->coll_seq++;
    switch (coll_select(COLL_BCAST, &q)) {
    case COLL_ALG_SCATTER_RING: return coll_bcast_scatter_ring(buf, count, dt, root, comm);
    default: return coll_bcast_binomial(buf, count, dt, root, comm);
    }
}

int coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    coll_query_t q = { nbytes(count, dt), comm->size, count, op->commute };
    comm->coll_seq++;
    switch (coll_select(COLL_REDUCE, &q)) {
    case COLL_ALG_RSAG: return coll_reduce_rsag(sbuf, rbuf, count, dt, op, root, comm);
    default: return coll_reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
    }
}

int coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    coll_query_t q = { nbytes(count, dt), comm->size, count, op->commute };
    comm->coll_seq++;
    switch (coll_select(COLL_ALLREDUCE, &q)) {
    case COLL_ALG_RABENSEIFNER:
        return coll_allreduce_rabenseifner(sbuf, rbuf, count, dt, op, comm);
    case COLL_ALG_RING: return coll_allreduce_ring(sbuf, rbuf, count, dt, op, comm);
    case COLL_ALG_REDUCE_BCAST:
        return coll_allreduce_reduce_bcast(sbuf, rbuf, count, dt, op, comm);
    default: return coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm);
    }
}

int coll_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    /* One block's size, the same on every rank (the root may pass MPI_IN_PLACE). */
    size_t blk = comm->rank == root ? nbytes(rcount, rdt) : nbytes(scount, sdt);
    coll_query_t q = { blk, comm->size, 0, 1 };
    comm->coll_seq++;
    if (coll_select(COLL_GATHER, &q) == COLL_ALG_LINEAR) {
        coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL };
        return coll_gather_linear(sbuf, scount, sdt, &rl, root, comm);
    }
    return coll_gather_binomial(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

int coll_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                 const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    coll_query_t q = { 0, comm->size, 0, 1 };
    comm->coll_seq++;
    (void)coll_select(COLL_GATHERV, &q);
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs };
    return coll_gather_linear(sbuf, scount, sdt, &rl, root, comm);
}

int coll_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    size_t blk = comm->rank == root ? nbytes(scount, sdt) : nbytes(rcount, rdt);
    coll_query_t q = { blk, comm->size, 0, 1 };
    comm->coll_seq++;
    if (coll_select(COLL_SCATTER, &q) == COLL_ALG_LINEAR) {
        coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL };
        return coll_scatter_linear(&sl, rbuf, rcount, rdt, root, comm);
    }
    return coll_scatter_binomial(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

int coll_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    coll_query_t q = { 0, comm->size, 0, 1 };
    comm->coll_seq++;
    (void)coll_select(COLL_SCATTERV, &q);
    coll_layout_t sl = { (void *)sbuf, sdt, 0, scounts, displs };
    return coll_scatter_linear(&sl, rbuf, rcount, rdt, root, comm);
}

static int allgather_run(enum coll_id id, const void *sbuf, int scount, MPI_Datatype sdt,
                         const coll_layout_t *rl, MPI_Comm comm)
{
    size_t total = 0;
    for (int i = 0; i < comm->size; i++)
        total += lay_bytes(rl, i);
    coll_query_t q = { total, comm->size, 0, 1 };
    comm->coll_seq++;
    switch (coll_select(id, &q)) {
    case COLL_ALG_RECDBL: return coll_allgather_recdbl(sbuf, scount, sdt, rl, comm);
    case COLL_ALG_BRUCK: return coll_allgather_bruck(sbuf, scount, sdt, rl, comm);
    default: return coll_allgather_ring(sbuf, scount, sdt, rl, comm);
    }
}

int coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL };
    return allgather_run(COLL_ALLGATHER, sbuf, scount, sdt, &rl, comm);
}

int coll_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs };
    return allgather_run(COLL_ALLGATHERV, sbuf, scount, sdt, &rl, comm);
}

static int alltoall_run(enum coll_alg alg, const coll_layout_t *sl, const coll_layout_t *rl,
                        MPI_Comm comm)
{
    switch (alg) {
    case COLL_ALG_BRUCK: return coll_alltoall_bruck(sl, rl, comm);
    case COLL_ALG_LINEAR: return coll_alltoall_linear(sl, rl, comm);
    default: return coll_alltoall_pairwise(sl, rl, comm);
    }
}

int coll_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    coll_query_t q = { nbytes(rcount, rdt), comm->size, 0, 1 };
    comm->coll_seq++;
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL };
    if (sbuf == MPI_IN_PLACE)
        sl.dt = rdt;
    return alltoall_run(coll_select(COLL_ALLTOALL, &q), &sl, &rl, comm);
}

int coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                   MPI_Comm comm)
{
    coll_query_t q = { 0, comm->size, 0, 1 };
    comm->coll_seq++;
    coll_layout_t sl = { (void *)sbuf, sdt, 0, scounts, sdispls };
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, rdispls };
    enum coll_alg alg = coll_select(COLL_ALLTOALLV, &q);
    return alltoall_run(alg == COLL_ALG_BRUCK ? COLL_ALG_PAIRWISE : alg, &sl, &rl, comm);
}
