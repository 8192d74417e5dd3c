/*
 * Rooted collectives on intercommunicators: broadcast, reduce, gather(v)
 * and scatter(v) between the root and the other group.
 *
 * Broadcast: the root sends to remote rank 0, which broadcasts in its group
 * with the selected intracommunicator algorithm: one message crosses
 * between the groups, then log(n) steps. Reduce mirrors it: the other group
 * reduces to its rank 0 (selected algorithm, MPI's rank order kept for
 * operations that do not commute), which sends the result to the root.
 * Gather and scatter are linear at the root (it exchanges one block with
 * every remote rank, as the flat intracommunicator algorithm does): the
 * root's link carries all the data either way, and no block is copied
 * twice.
 */
#include "collectives/coll_impl.h"
#include "collectives/inter.h"


int coll_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                     MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, COLL_BCAST, req, dt, NULL, NULL);
    if (!s)
        return CORE_ENOMEM;
    if (root == MPI_ROOT) {
        coll_sched_send(s, buf, (size_t)count, dt, 0);
    } else if (root != MPI_PROC_NULL) {
        if (comm->rank == 0)
            coll_sched_recv(s, buf, (size_t)count, dt, root);
        coll_sched_fence(s);
        coll_sched_use(s, comm->local);
        coll_grp_t g = { comm->size, comm->rank, NULL };
        coll_build_bcast(s, &g, buf, count, dt, 0);
    }
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

int coll_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, COLL_REDUCE, req, dt, NULL, op);
    if (!s)
        return CORE_ENOMEM;
    if (root == MPI_ROOT) {
        coll_sched_recv(s, rbuf, (size_t)count, dt, 0);
    } else if (root != MPI_PROC_NULL) {
        void *tmp = coll_sched_tmp(s, (size_t)count, dt);
        coll_sched_use(s, comm->local);
        coll_grp_t g = { comm->size, comm->rank, NULL };
        coll_build_reduce(s, &g, sbuf, tmp, count, dt, op, 0);
        coll_sched_use(s, comm);
        if (comm->rank == 0)
            coll_sched_send(s, tmp, (size_t)count, dt, root);
    }
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

int coll_inter_gather(int id, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      int rcount, const int *rcounts, const int *displs, MPI_Datatype rdt,
                      int root, MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, id, req, sdt, rdt, NULL);
    if (!s)
        return CORE_ENOMEM;
    if (root == MPI_ROOT) {
        int n = core_comm_peer_size(comm);
        for (int i = 0; i < n; i++) {
            MPI_Aint d = displs ? displs[i] : (MPI_Aint)i * rcount;
            int c = rcounts ? rcounts[i] : rcount;
            coll_sched_recv(s, (char *)rbuf + d * rdt->extent, (size_t)c, rdt, i);
        }
    } else if (root != MPI_PROC_NULL) {
        coll_sched_send(s, sbuf, (size_t)scount, sdt, root);
    }
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

int coll_inter_scatter(int id, const void *sbuf, int scount, const int *scounts,
                       const int *displs, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, id, req, sdt, rdt, NULL);
    if (!s)
        return CORE_ENOMEM;
    if (root == MPI_ROOT) {
        int n = core_comm_peer_size(comm);
        for (int i = 0; i < n; i++) {
            MPI_Aint d = displs ? displs[i] : (MPI_Aint)i * scount;
            int c = scounts ? scounts[i] : scount;
            coll_sched_send(s, (const char *)sbuf + d * sdt->extent, (size_t)c, sdt, i);
        }
    } else if (root != MPI_PROC_NULL) {
        coll_sched_recv(s, rbuf, (size_t)rcount, rdt, root);
    }
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}
