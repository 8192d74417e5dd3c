/*
 * MPI-1's calls that MPI-3 removed (MPI_Address, MPI_Type_extent/lb/ub,
 * MPI_Type_hindexed/hvector/struct, MPI_Errhandler_create/set/get), kept
 * because old codes and test suites still call them and the other
 * implementations still ship them. Each is a thin form over its MPI-2
 * replacement; only MPI_Type_struct does more: it turns MPI-1's MPI_LB and
 * MPI_UB marker entries into explicit bounds (MPI_Type_create_resized).
 */
#include <stdlib.h>

#include "api/api.h"

int PMPI_Address(void *location, MPI_Aint *address)
{
    API_ENTER;
    return PMPI_Get_address(location, address);
}
int MPI_Address(void *location, MPI_Aint *address) API_ALIAS(MPI_Address);

/* Checks what MPI_Type_get_extent does, reporting as fn; the lower bound and the extent. */
static int bounds(MPI_Datatype t, MPI_Aint *lb, MPI_Aint *extent, void *out, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_dt(MPI_COMM_NULL, t, fn));
    if (out == NULL)
        return api_bad_ptr(MPI_COMM_NULL, "the output argument", fn);
    *lb = t->lb;
    *extent = t->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    API_ENTER;
    MPI_Aint lb, ext;
    API_CHECK(bounds(datatype, &lb, &ext, extent, "MPI_Type_extent"));
    *extent = ext;
    return MPI_SUCCESS;
}
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) API_ALIAS(MPI_Type_extent);

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    API_ENTER;
    MPI_Aint lb, ext;
    API_CHECK(bounds(datatype, &lb, &ext, displacement, "MPI_Type_lb"));
    *displacement = lb;
    return MPI_SUCCESS;
}
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) API_ALIAS(MPI_Type_lb);

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    API_ENTER;
    MPI_Aint lb, ext;
    API_CHECK(bounds(datatype, &lb, &ext, displacement, "MPI_Type_ub"));
    *displacement = lb + ext;
    return MPI_SUCCESS;
}
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) API_ALIAS(MPI_Type_ub);

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER;
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements,
                                     oldtype, newtype);
}
int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype) API_ALIAS(MPI_Type_hindexed);

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    API_ENTER;
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype) API_ALIAS(MPI_Type_hvector);

/* The struct of the entries that are not markers, resized to the markers' bounds (MPI-1
 * 3.12.3: lb is the least MPI_LB displacement if there is one, ub the greatest MPI_UB one). */
static int marked_struct(int count, const int bl[], const MPI_Aint disp[],
                         const MPI_Datatype types[], MPI_Datatype *newtype, const char *fn)
{
    int *rbl = malloc((size_t)count * sizeof(*rbl));
    MPI_Aint *rdisp = malloc((size_t)count * sizeof(*rdisp));
    MPI_Datatype *rtypes = malloc((size_t)count * sizeof(*rtypes));
    int n = 0, have_lb = 0, have_ub = 0, rc;
    MPI_Aint lb = 0, ub = 0;
    if (!rbl || !rdisp || !rtypes) {
        rc = api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
        goto out;
    }
    for (int i = 0; i < count; i++) {
        int is_lb = types[i] == MPI_LB, is_ub = types[i] == MPI_UB;
        if (!is_lb && !is_ub) {
            rbl[n] = bl[i];
            rdisp[n] = disp[i];
            rtypes[n++] = types[i];
        } else if (bl[i] < 0) {
            rc = api_error(MPI_COMM_NULL, CORE_ECOUNT, fn,
                           "array_of_blocklengths[%d] = %d is negative", i, bl[i]);
            goto out;
        } else if (bl[i] > 0 && is_lb) {  /* copies of a marker all sit at its displacement */
            lb = have_lb && lb < disp[i] ? lb : disp[i];
            have_lb = 1;
        } else if (bl[i] > 0) {
            ub = have_ub && ub > disp[i] ? ub : disp[i];
            have_ub = 1;
        }
    }
    MPI_Datatype inner;
    rc = PMPI_Type_create_struct(n, rbl, rdisp, rtypes, &inner);
    if (rc != MPI_SUCCESS)
        goto out;
    if (!have_lb)
        lb = inner->lb;
    if (!have_ub)
        ub = inner->lb + inner->extent;
    rc = PMPI_Type_create_resized(inner, lb, ub - lb, newtype);
    PMPI_Type_free(&inner);
out:
    free(rbl);
    free(rdisp);
    free(rtypes);
    return rc;
}

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_struct";
    API_CHECK(api_check_init(fn));
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "an array argument is NULL");
    if (!newtype)
        return api_bad_ptr(MPI_COMM_NULL, "newtype", fn);
    for (int i = 0; i < count; i++)
        if (array_of_types[i] == MPI_LB || array_of_types[i] == MPI_UB)
            return marked_struct(count, array_of_blocklengths, array_of_displacements,
                                 array_of_types, newtype, fn);
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}
int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_struct);

int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    API_ENTER;
    return PMPI_Comm_create_errhandler(function, errhandler);
}
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
    API_ALIAS(MPI_Errhandler_create);

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    API_ENTER;
    return PMPI_Comm_set_errhandler(comm, errhandler);
}
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) API_ALIAS(MPI_Errhandler_set);

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    API_ENTER;
    return PMPI_Comm_get_errhandler(comm, errhandler);
}
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) API_ALIAS(MPI_Errhandler_get);
