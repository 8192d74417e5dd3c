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
int api_coll_root(MPI_Comm comm, int root, const char *fn);
/* A buffer with its count and datatype. */
int api_coll_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, const char *fn);
int api_coll_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn);
int api_coll_inplace_error(MPI_Comm comm, const char *what, const char *fn);
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
