/*
 * MPI_Type_create_darray: argument checks and the record for
 * MPI_Type_get_contents (MPI_COMBINER_DARRAY: size, rank, ndims, gsizes,
 * distribs, dargs, psizes, order; one datatype). The layout is core's
 * (core/darray.c).
 */
#include <stdlib.h>
#include "api/api.h"
#include "core/darray.h"

/* One dimension's arguments: the checks MPI-3.1 4.1.4 asks for. */
static int check_dim(int d, const core_darray_dim_t *x, const char *fn)
{
    if (x->gsize <= 0 || x->psize <= 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "dimension %d: gsize %d and psize %d must be positive", d, x->gsize,
                         x->psize);
    switch (x->distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (x->psize != 1) /* what it would mean is not defined (MPICH refuses it too) */
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                             "dimension %d is MPI_DISTRIBUTE_NONE over %d processes (must be 1)",
                             d, x->psize);
        return 0;
    case MPI_DISTRIBUTE_BLOCK:
        if (x->darg != MPI_DISTRIBUTE_DFLT_DARG &&
            (x->darg <= 0 || (long)x->darg * x->psize < x->gsize))
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                             "dimension %d: blocks of %d over %d processes cannot hold %d items",
                             d, x->darg, x->psize, x->gsize);
        return 0;
    case MPI_DISTRIBUTE_CYCLIC:
        if (x->darg != MPI_DISTRIBUTE_DFLT_DARG && x->darg <= 0)
            return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "dimension %d: darg %d", d,
                             x->darg);
        return 0;
    default:
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "dimension %d: distribution %d is not an MPI_DISTRIBUTE_* value", d,
                         x->distrib);
    }
}

RDMPI_API int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                                      const int distribs[], const int dargs[],
                                      const int psizes[], int order, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_create_darray";
    API_CHECK(api_check_init(fn));
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "size %d, rank %d, ndims %d", size,
                         rank, ndims);
    if (!gsizes || !distribs || !dargs || !psizes)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "an array argument is NULL");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    API_CHECK(api_check_dt(MPI_COMM_NULL, oldtype, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, newtype, "newtype", fn));
    core_darray_dim_t *dims = malloc(sizeof(*dims) * (size_t)ndims);
    if (!dims)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    long procs = 1;
    for (int d = 0; d < ndims; d++) {
        dims[d] = (core_darray_dim_t){ gsizes[d], distribs[d], dargs[d], psizes[d] };
        int rc = check_dim(d, &dims[d], fn);
        if (rc) {
            free(dims);
            return rc;
        }
        if (procs <= size)
            procs *= psizes[d];
    }
    if (procs != size) {
        free(dims);
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "the process grid's sizes do not multiply to size %d", size);
    }
    int rc = core_dt_darray(rank, ndims, dims, order == MPI_ORDER_C, oldtype, newtype);
    free(dims);
    if (rc)
        return api_error(MPI_COMM_NULL, rc, fn,
                         rc == CORE_ENOMEM ? "out of memory building the type"
                                           : "the array's extent overflows MPI_Aint");
    int ni = 4 * ndims + 4;
    int *ints = malloc(sizeof(int) * (size_t)ni);
    if (ints) {
        ints[0] = size;
        ints[1] = rank;
        ints[2] = ndims;
        for (int d = 0; d < ndims; d++) {
            ints[3 + d] = gsizes[d];
            ints[3 + ndims + d] = distribs[d];
            ints[3 + 2 * ndims + d] = dargs[d];
            ints[3 + 3 * ndims + d] = psizes[d];
        }
        ints[3 + 4 * ndims] = order;
        rc = core_dt_set_args(*newtype, MPI_COMBINER_DARRAY, ni, ints, 0, NULL, 1, &oldtype);
        free(ints);
    }
    if (!ints || rc) {
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                                     const int distribs[], const int dargs[], const int psizes[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_create_darray);

/* ---- MPI_Type_match_size --------------------------------------------------------------- */

/*
 * The first predefined C type of the class whose size is size. MPI asks for
 * a named type matching a variable of that class and size; rdmpi answers
 * with C types (the Fortran ones, MPI_INTEGERn and MPI_REALn, belong to the
 * Fortran bindings). The returned handle is predefined: not to be freed.
 */
RDMPI_API int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_match_size";
    static const MPI_Datatype ints[] = { MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG,
                                         MPI_LONG_LONG };
    static const MPI_Datatype reals[] = { MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE };
    static const MPI_Datatype cplx[] = { MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                         MPI_C_LONG_DOUBLE_COMPLEX };
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, datatype, "datatype", fn));
    const MPI_Datatype *list;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        list = ints, n = sizeof(ints) / sizeof(ints[0]);
        break;
    case MPI_TYPECLASS_REAL:
        list = reals, n = sizeof(reals) / sizeof(reals[0]);
        break;
    case MPI_TYPECLASS_COMPLEX:
        list = cplx, n = sizeof(cplx) / sizeof(cplx[0]);
        break;
    default:
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn,
                         "typeclass %d is not an MPI_TYPECLASS_* value", typeclass);
    }
    for (size_t i = 0; i < n; i++)
        if (list[i]->size == (size_t)size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "no %s type of %d bytes",
                     typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                     : typeclass == MPI_TYPECLASS_REAL  ? "real"
                                                        : "complex",
                     size);
}
RDMPI_API int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
    API_ALIAS(MPI_Type_match_size);
