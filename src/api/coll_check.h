/*
 * Argument checks shared by the collective entry points (coll.c,
 * coll_move.c, neighbor.c): roots, buffers with their counts and datatypes,
 * count arrays, operations valid for a datatype, the uses of MPI_IN_PLACE
 * MPI allows, and the request pointer of the nonblocking forms. Each
 * returns 0 or the result of api_error.
 */
#ifndef RDMPI_API_COLL_CHECK_H
#define RDMPI_API_COLL_CHECK_H

#include "api/api.h"

/* 0, or the MPI error class of a failed collective (rc a CORE_* code). */
int api_coll_done(MPI_Comm comm, int rc, const char *fn);
int api_coll_enter(MPI_Comm comm, const char *fn);
/* A root: a rank of comm, or on an intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of
 * the remote group. */
int api_coll_root(MPI_Comm comm, int root, const char *fn);
/* Whether this rank is the root (on an intercommunicator: root is MPI_ROOT). */
static inline int api_coll_is_root(MPI_Comm comm, int root)
{
    return comm->remote ? root == MPI_ROOT : comm->rank == root;
}
/* On an intercommunicator, the ranks of the root's group other than the root take no part. */
static inline int api_coll_idle(MPI_Comm comm, int root)
{
    return comm->remote && root == MPI_PROC_NULL;
}
/* The number of blocks of a per-rank array (counts, displacements, datatypes): the remote
 * group's size on an intercommunicator. */
static inline int api_coll_nranks(MPI_Comm comm)
{
    return core_comm_peer_size(comm);
}
/* MPI_ERR_COMM for calls only defined on intracommunicators. */
int api_coll_intra(MPI_Comm comm, const char *fn);
/* A buffer with its count and datatype. */
int api_coll_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, const char *fn);
int api_coll_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn);
int api_coll_inplace_error(MPI_Comm comm, const char *what, const char *fn);
/* MPI_IN_PLACE is not allowed on intercommunicators. */
int api_coll_inplace_inter(MPI_Comm comm, const void *sbuf, const void *rbuf, const char *fn);
/* The same buffer passed twice (instead of MPI_IN_PLACE) with data in it. */
int api_coll_alias(MPI_Comm comm, const void *sbuf, const void *rbuf, int nonempty,
                   const char *fn);
/* counts[0..n) >= 0, with the arrays present; displs may be NULL unless need_displs. */
int api_coll_counts(MPI_Comm comm, const int *counts, const void *displs, int need_displs, int n,
                    const char *fn);
/* types[0..n) valid and committed, where counts[i] > 0. */
int api_coll_types(MPI_Comm comm, const MPI_Datatype *types, const int *counts, int n,
                   const char *fn);
int api_coll_any(const int *counts, int n);
int api_coll_req(MPI_Comm comm, MPI_Request *req, const char *fn);

#endif
