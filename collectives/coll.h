/*
 * Collectives over point-to-point. Every collective, blocking or not, is a
 * schedule of rounds (sched.h) built by an algorithm the selection table
 * chooses (message size, communicator size, node layout), which
 * RDMPI_COLL_<NAME>=<algorithm> overrides. Schedules send and receive with
 * p2p on the communicator's collective context (comm->ctx + 1), so
 * collective traffic never matches user messages. A blocking collective
 * runs its schedule to the end; a nonblocking one (coll_i*) returns a
 * request (kind CORE_REQ_COLL) that completes when the schedule has, moved
 * on by the progress engine inside any MPI call.
 *
 * Buffers and counts follow MPI's argument conventions, including
 * MPI_IN_PLACE where MPI allows it. Arguments are checked by src/api.
 * Return 0 or a CORE_* code.
 */
#ifndef RDMPI_COLL_H
#define RDMPI_COLL_H

#include "mpi.h"
#include "core/config.h"

struct core_runtime;
int coll_init(struct core_runtime *rt);
/* The settings (coll_config.c). */
extern const core_config_group_t coll_config_group;
/* Takes the algorithm settings (RDMPI_COLL_<NAME>) again after they changed in the registry
 * (MPI_T: rt_config_changed); a collective started before keeps its algorithm. */
void coll_config_apply(struct core_runtime *rt);
void coll_fini(void);

int coll_barrier(MPI_Comm comm);
int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm);
int coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm);
int coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm);
int coll_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm);
int coll_scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm);
int coll_exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm);
int coll_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                 const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm);
int coll_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);
int coll_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm);
int coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                   MPI_Comm comm);
int coll_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                   const MPI_Datatype *sdts, void *rbuf, const int *rcounts, const int *rdispls,
                   const MPI_Datatype *rdts, MPI_Comm comm);

/* Nonblocking forms: the same arguments, and *req completes the call. */
int coll_ibarrier(MPI_Comm comm, MPI_Request *req);
int coll_ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *req);
int coll_ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *req);
int coll_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *req);
int coll_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *req);
int coll_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *req);
int coll_iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm, MPI_Request *req);
int coll_iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *req);
int coll_igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req);
int coll_igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                  const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                  MPI_Comm comm, MPI_Request *req);
int coll_iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req);
int coll_iscatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *req);
int coll_iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);
int coll_iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm,
                     MPI_Request *req);
int coll_ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);
int coll_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype sdt,
                    void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                    MPI_Comm comm, MPI_Request *req);
int coll_ialltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                    const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                    const int *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                    MPI_Request *req);

/* Neighborhood collectives over comm's topology (comm->topo, which must be
 * set); req NULL: blocking. Displacements of the w form are in bytes. */
int coll_neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);
int coll_neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int *rcounts, const int *displs, MPI_Datatype rdt,
                             MPI_Comm comm, MPI_Request *req);
int coll_neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);
int coll_neighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            MPI_Datatype sdt, void *rbuf, const int *rcounts,
                            const int *rdispls, MPI_Datatype rdt, MPI_Comm comm,
                            MPI_Request *req);
int coll_neighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                            const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                            const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm,
                            MPI_Request *req);

#endif
