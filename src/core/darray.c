/*
 * MPI_Type_create_darray's layout (MPI-3.1 4.1.4): the part of a global
 * array of gsizes[] items of old that one process of a process grid owns,
 * HPF-style. The process grid is row-major whatever the array's order
 * (MPI says so), so rank gives coordinates with the last dimension fastest.
 * In each dimension a process owns a set of global indices:
 * - BLOCK(b): indices [c*b, c*b + b) clipped to the dimension, b defaulting
 *   to ceil(gsize / psize);
 * - CYCLIC(b): blocks of b indices dealt round-robin, the block j*psize + c
 *   being ours, b defaulting to 1;
 * - NONE: every index (the grid has one process in that dimension).
 * The type's elements are the owned elements of the array in its storage
 * order (C: last dimension fastest; Fortran: first), each at its place in
 * the global array; its lower bound is 0 and its extent the whole array's.
 * Built one dimension at a time, fastest first, like a subarray, with one
 * piece per owned index.
 */
#include <stdlib.h>
#include "core/darray.h"
#include "core/errors.h"

/* The indices of one dimension this process owns, ascending, into idx
 * (room for gsize); their number. */
static int owned(const core_darray_dim_t *d, int coord, int *idx)
{
    int n = 0, g = d->gsize, p = d->psize, b = d->darg;
    switch (d->distrib) {
    case MPI_DISTRIBUTE_NONE:
        for (int i = 0; i < g; i++)
            idx[n++] = i;
        break;
    case MPI_DISTRIBUTE_BLOCK: {
        if (b == MPI_DISTRIBUTE_DFLT_DARG)
            b = (g + p - 1) / p;
        long first = (long)coord * b;
        for (long i = first; i < first + b && i < g; i++)
            idx[n++] = (int)i;
        break;
    }
    default: /* MPI_DISTRIBUTE_CYCLIC */
        if (b == MPI_DISTRIBUTE_DFLT_DARG)
            b = 1;
        for (long start = (long)coord * b; start < g; start += (long)p * b)
            for (long i = start; i < start + b && i < g; i++)
                idx[n++] = (int)i;
        break;
    }
    return n;
}

int core_dt_darray(int rank, int ndims, const core_darray_dim_t *dims, int c_order,
                   MPI_Datatype old, MPI_Datatype *out)
{
    int coords[ndims];
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
        coords[d] = r % dims[d].psize;
        r /= dims[d].psize;
    }
    MPI_Datatype t = old, next;
    MPI_Aint stride = old->extent;
    int rc = 0;
    for (int k = 0; k < ndims && rc == 0; k++) {
        int d = c_order ? ndims - 1 - k : k;
        int *idx = malloc(sizeof(int) * (size_t)dims[d].gsize);
        core_dt_piece_t *p = malloc(sizeof(*p) * (size_t)dims[d].gsize);
        if (!idx || !p) {
            free(idx);
            free(p);
            rc = CORE_ENOMEM;
            break;
        }
        int n = owned(&dims[d], coords[d], idx);
        for (int j = 0; j < n; j++)
            p[j] = (core_dt_piece_t){1, (MPI_Aint)idx[j] * stride, t};
        rc = core_dt_pieces((size_t)n, p, 0, &next);
        free(idx);
        free(p);
        if (rc == 0) {
            if (n == 0) /* no data: keep old's element kind, like an empty contiguous type */
                next->basic = old->basic;
            if (t != old)
                core_dt_release(t);
            t = next;
            if (__builtin_mul_overflow(stride, (MPI_Aint)dims[d].gsize, &stride))
                rc = CORE_EINVAL;
        }
    }
    if (rc == 0)
        rc = core_dt_resized(t, 0, stride, out);
    if (t != old)
        core_dt_release(t);
    return rc;
}
