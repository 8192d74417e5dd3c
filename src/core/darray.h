/*
 * The layout of MPI_Type_create_darray (darray.c).
 */
#ifndef RDMPI_CORE_DARRAY_H
#define RDMPI_CORE_DARRAY_H

#include "core/datatype.h"

/* One dimension of the global array and of the process grid (checked by the caller). */
typedef struct core_darray_dim {
    int gsize;     /* items in the dimension */
    int distrib;   /* MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE */
    int darg;      /* block size, or MPI_DISTRIBUTE_DFLT_DARG */
    int psize;     /* processes of the grid along it */
} core_darray_dim_t;

/* The part of the array process rank owns, as a type of old items;
 * c_order: the last dimension varies fastest in memory. */
int core_dt_darray(int rank, int ndims, const core_darray_dim_t *dims, int c_order,
                   MPI_Datatype old, MPI_Datatype *out);

#endif
