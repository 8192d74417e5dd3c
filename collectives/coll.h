/*
 * Collectives over point-to-point. Every algorithm sends and receives with
 * p2p on the communicator's collective context (comm->ctx + 1), so
 * collective traffic never matches user messages. The blocking entry points
 * below choose an algorithm from the selection table (message size,
 * communicator size), which RDMPI_COLL_<NAME>=<algorithm> overrides.
 *
 * Buffers and counts follow MPI's argument conventions, including
 * MPI_IN_PLACE where MPI allows it. Return 0 or a CORE_* code.
 */
#ifndef RDMPI_COLL_H
#define RDMPI_COLL_H

#include "mpi.h"

int coll_init(void);
void coll_fini(void);

int coll_barrier(MPI_Comm comm);
int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm);
int coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
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

#endif
