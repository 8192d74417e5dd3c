/*
 * Neighborhood collectives over a communicator's topology (core/topo.h):
 * every rank receives one block from each source and sends one block to
 * each destination, all in a single round (indegree + outdegree messages in
 * flight). The blocking and nonblocking forms share the schedule.
 *
 * On a grid a rank may be the same neighbor in both directions of a
 * dimension (a periodic dimension of size 1 or 2), so messages carry the
 * receiver's slot as sub-tag: a block sent down dimension d arrives in the
 * receiver's "up" slot of d, and the other way round. Graph edges between
 * the same two ranks pair up in the order they are listed, as MPI says.
 */
#include "collectives/coll_impl.h"
#include "core/topo.h"

/* one: every destination gets the same block (the allgather forms). */
static int neighbor(int id, const coll_layout_t *sl, int one, const coll_layout_t *rl,
                    MPI_Comm comm, MPI_Request *req)
{
    const core_topo_t *t = comm->topo;
    coll_sched_t *s = coll_sched_create(comm, id);
    if (!s)
        return CORE_ENOMEM;
    if (req) {
        coll_sched_hold_dt(s, sl->dt);
        coll_sched_hold_dt(s, rl->dt);
        for (int k = 0; sl->dts && k < t->outdegree; k++)
            coll_sched_hold_dt(s, sl->dts[k]);
        for (int k = 0; rl->dts && k < t->indegree; k++)
            coll_sched_hold_dt(s, rl->dts[k]);
    }
    int cart = t->kind == CORE_TOPO_CART;
    for (int k = 0; k < t->indegree; k++)
        coll_sched_recv_sub(s, lay_ptr(rl, k), (size_t)lay_count(rl, k), lay_dt(rl, k),
                            t->sources[k], cart ? k & COLL_SUBTAG_MAX : 0);
    for (int k = 0; k < t->outdegree; k++) {
        int b = one ? 0 : k;
        coll_sched_send_sub(s, lay_ptr(sl, b), (size_t)lay_count(sl, b), lay_dt(sl, b), t->dests[k],
                            cart ? (k ^ 1) & COLL_SUBTAG_MAX : 0);
    }
    coll_sched_fence(s);
    return req ? coll_sched_start(s, req) : coll_sched_run(s);
}

int coll_neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    return neighbor(COLL_NEIGHBOR_ALLGATHER, &sl, 1, &rl, comm, req);
}

int coll_neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int *rcounts, const int *displs, MPI_Datatype rdt,
                             MPI_Comm comm, MPI_Request *req)
{
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, displs, NULL, NULL };
    return neighbor(COLL_NEIGHBOR_ALLGATHERV, &sl, 1, &rl, comm, req);
}

int coll_neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    coll_layout_t sl = { (void *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    return neighbor(COLL_NEIGHBOR_ALLTOALL, &sl, 0, &rl, comm, req);
}

int coll_neighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            MPI_Datatype sdt, void *rbuf, const int *rcounts,
                            const int *rdispls, MPI_Datatype rdt, MPI_Comm comm,
                            MPI_Request *req)
{
    coll_layout_t sl = { (void *)sbuf, sdt, 0, scounts, sdispls, NULL, NULL };
    coll_layout_t rl = { rbuf, rdt, 0, rcounts, rdispls, NULL, NULL };
    return neighbor(COLL_NEIGHBOR_ALLTOALLV, &sl, 0, &rl, comm, req);
}

int coll_neighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                            const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                            const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                            MPI_Request *req)
{
    coll_layout_t sl = { (void *)sbuf, MPI_BYTE, 0, scounts, NULL, sdts, sdispls };
    coll_layout_t rl = { rbuf, MPI_BYTE, 0, rcounts, NULL, rdts, rdispls };
    return neighbor(COLL_NEIGHBOR_ALLTOALLW, &sl, 0, &rl, comm, req);
}
