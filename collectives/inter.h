/*
 * Collectives on intercommunicators (MPI 5.2.2): the rooted ones move data
 * from the root's group to the other one (root is MPI_ROOT at the root,
 * MPI_PROC_NULL at the rest of its group, and the root's rank in the remote
 * group on the other side); the all-to-all family, barrier, allreduce and
 * reduce-scatter give each group the contributions of the other.
 *
 * Each is a schedule on the intercommunicator: its sends and receives
 * address remote ranks, and its local phases run the intracommunicator
 * algorithms on comm->local (coll_sched_use). The dispatchers (dispatch*.c)
 * send every collective on an intercommunicator here; req NULL: blocking.
 * Arguments are checked by src/api. Return 0 or a CORE_* code.
 */
#ifndef RDMPI_COLL_INTER_H
#define RDMPI_COLL_INTER_H

#include "mpi.h"

/* inter_rooted.c */
int coll_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                     MPI_Request *req);
int coll_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Request *req);
/* rcounts NULL: every block is rcount (gather); the same for scatter's scounts. id
 * (COLL_GATHER or COLL_GATHERV, COLL_SCATTER or COLL_SCATTERV) is the call made, not read
 * from the counts: the group that is not the root's passes none to the v-variants (MPI
 * ignores them there), and both groups must take the same tag. */
int coll_inter_gather(int id, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      int rcount, const int *rcounts, const int *displs, MPI_Datatype rdt,
                      int root, MPI_Comm comm, MPI_Request *req);
int coll_inter_scatter(int id, const void *sbuf, int scount, const int *scounts,
                       const int *displs, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req);

/* inter_exchange.c: through the two group leaders */
int coll_inter_barrier(MPI_Comm comm, MPI_Request *req);
int coll_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req);
/* rcounts NULL: every block of the result is rcount (reduce_scatter_block). */
int coll_inter_reduce_scatter(const void *sbuf, void *rbuf, int rcount, const int *rcounts,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req);
int coll_inter_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);

/* inter_pairwise.c: every rank with every remote rank */
int coll_inter_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int *rcounts, const int *displs, MPI_Datatype rdt,
                          MPI_Comm comm, MPI_Request *req);
/* Alltoall (counts NULL), v (dts NULL, displacements in extents) and w
 * (displacements in bytes) forms. */
int coll_inter_alltoall(const void *sbuf, int scount, const int *scounts, const int *sdispls,
                        const MPI_Datatype *sdts, MPI_Datatype sdt, void *rbuf, int rcount,
                        const int *rcounts, const int *rdispls, const MPI_Datatype *rdts,
                        MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);

/* A schedule on comm for collective id; a nonblocking one (req) keeps its types and op
 * alive until it ends. */
static inline coll_sched_t *coll_inter_create(MPI_Comm comm, int id, MPI_Request *req,
                                              MPI_Datatype dt, MPI_Datatype dt2, MPI_Op op)
{
    coll_sched_t *s = coll_sched_create(comm, id);
    if (s && req) {
        coll_sched_hold_dt(s, dt);
        coll_sched_hold_dt(s, dt2);
        coll_sched_hold_op(s, op);
    }
    return s;
}

/* Runs s to its end (blocking) or starts it as *req (nonblocking). */
static inline int coll_inter_go(coll_sched_t *s, MPI_Request *req)
{
    return req ? coll_sched_start(s, req) : coll_sched_run(s);
}

#endif
