/*
 * What the communicator calls of comm.c do on an intercommunicator
 * (intercomm.c). Each returns 0 or a CORE_* code (the caller reports it).
 */
#ifndef RDMPI_API_INTERCOMM_H
#define RDMPI_API_INTERCOMM_H

#include "mpi.h"
#include "core/attr.h"

int api_intercomm_dup(MPI_Comm comm, MPI_Comm *newcomm);
/* *newcomm gets attrs (copies made by the caller). */
int api_intercomm_idup(MPI_Comm comm, core_attr_t *attrs, MPI_Comm *newcomm, MPI_Request *req);
int api_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
/* group: a subgroup of comm's local group (checked by the caller). */
int api_intercomm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
/* MPI_Comm_compare's result for two communicators, one of them an intercommunicator. */
int api_intercomm_compare(MPI_Comm c1, MPI_Comm c2);

/* MPI_Intercomm_create below its checks, also used by spawn and connect/accept (dynamic.c):
 * peer_comm and remote_leader matter at local_leader only (peer_comm NULL elsewhere). The
 * remote group may hold processes of the remote leader's job, which are added to this
 * process's table (core/procs.h). On failure *what names the step that failed. */
int api_intercomm_make(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                       int remote_leader, int tag, MPI_Comm *newintercomm, const char **what);
/* Its second half, when both groups already know each other's processes (rranks: the
 * remote group as process indices, in its order), as after an accept/connect across runs.
 * limit: seconds the leader waits for the other leader's first word (0: unbounded), for
 * leaders that have already met (rt_ctx_bridge_t). */
int api_intercomm_make_known(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                             int remote_leader, int tag, const int *rranks, int rn,
                             double limit, MPI_Comm *newintercomm, const char **what);

#endif
