/*
 * MPI entry points for datatypes: sizes and extents, the contiguous and dup
 * constructors, commit/free, names; the status queries that depend on a
 * datatype (Get_count, Get_elements, Status_set_elements, cancellation);
 * and address arithmetic.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "api/api.h"
#include "api/attr.h"
#include "core/datatype.h"

/* Checks a datatype argument that only has to exist (not be committed). */
static int check_dt(MPI_Datatype dt, const char *fn)
{
    return api_check_dt(MPI_COMM_NULL, dt, fn);
}

static int check_ptr(const void *p, const char *what, const char *fn)
{
    if (p == NULL)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL", what);
    return 0;
}

/* A count for an int out-parameter: MPI_UNDEFINED when it does not fit. */
static int count_to_int(MPI_Count c)
{
    return c > INT_MAX ? MPI_UNDEFINED : (int)c;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_size"));
    API_CHECK(check_dt(datatype, "MPI_Type_size"));
    API_CHECK(check_ptr(size, "size", "MPI_Type_size"));
    *size = count_to_int((MPI_Count)datatype->size);
    return MPI_SUCCESS;
}
int MPI_Type_size(MPI_Datatype datatype, int *size) API_ALIAS(MPI_Type_size);

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_size_x"));
    API_CHECK(check_dt(datatype, "MPI_Type_size_x"));
    API_CHECK(check_ptr(size, "size", "MPI_Type_size_x"));
    *size = (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) API_ALIAS(MPI_Type_size_x);

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_get_extent"));
    API_CHECK(check_dt(datatype, "MPI_Type_get_extent"));
    API_CHECK(check_ptr(lb, "lb", "MPI_Type_get_extent"));
    API_CHECK(check_ptr(extent, "extent", "MPI_Type_get_extent"));
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
    API_ALIAS(MPI_Type_get_extent);

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_get_extent_x"));
    API_CHECK(check_dt(datatype, "MPI_Type_get_extent_x"));
    API_CHECK(check_ptr(lb, "lb", "MPI_Type_get_extent_x"));
    API_CHECK(check_ptr(extent, "extent", "MPI_Type_get_extent_x"));
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
    API_ALIAS(MPI_Type_get_extent_x);

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_get_true_extent"));
    API_CHECK(check_dt(datatype, "MPI_Type_get_true_extent"));
    API_CHECK(check_ptr(true_lb, "true_lb", "MPI_Type_get_true_extent"));
    API_CHECK(check_ptr(true_extent, "true_extent", "MPI_Type_get_true_extent"));
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
    API_ALIAS(MPI_Type_get_true_extent);

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_get_true_extent_x"));
    API_CHECK(check_dt(datatype, "MPI_Type_get_true_extent_x"));
    API_CHECK(check_ptr(true_lb, "true_lb", "MPI_Type_get_true_extent_x"));
    API_CHECK(check_ptr(true_extent, "true_extent", "MPI_Type_get_true_extent_x"));
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
    API_ALIAS(MPI_Type_get_true_extent_x);

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER;
    static const char fn[] = "MPI_Type_contiguous";
    API_CHECK(api_check_init(fn));
    if (count < 0)
        return api_error(MPI_COMM_NULL, CORE_ECOUNT, fn, "count %d is negative", count);
    API_CHECK(check_dt(oldtype, fn));
    API_CHECK(check_ptr(newtype, "newtype", fn));
    int rc = core_dt_contiguous(count, oldtype, newtype);
    if (rc == 0 && (rc = core_dt_set_args(*newtype, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1,
                                          &oldtype)) != 0) {
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
    }
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, fn, "cannot build %d copies of the type", count);
    return MPI_SUCCESS;
}
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
    API_ALIAS(MPI_Type_contiguous);

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_commit"));
    API_CHECK(check_ptr(datatype, "datatype", "MPI_Type_commit"));
    API_CHECK(check_dt(*datatype, "MPI_Type_commit"));
    (*datatype)->flags |= CORE_DT_COMMITTED;
    return MPI_SUCCESS;
}
int MPI_Type_commit(MPI_Datatype *datatype) API_ALIAS(MPI_Type_commit);

int PMPI_Type_free(MPI_Datatype *datatype)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_free"));
    API_CHECK(check_ptr(datatype, "datatype", "MPI_Type_free"));
    API_CHECK(check_dt(*datatype, "MPI_Type_free"));
    if ((*datatype)->flags & CORE_DT_PREDEFINED)
        return api_error(MPI_COMM_NULL, CORE_ETYPE, "MPI_Type_free",
                         "%s is predefined and cannot be freed", (*datatype)->name);
    int rc = api_attr_type_delete_all(*datatype, "MPI_Type_free");
    core_dt_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return rc;
}
int MPI_Type_free(MPI_Datatype *datatype) API_ALIAS(MPI_Type_free);

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_dup"));
    API_CHECK(check_dt(oldtype, "MPI_Type_dup"));
    API_CHECK(check_ptr(newtype, "newtype", "MPI_Type_dup"));
    int rc = core_dt_dup(oldtype, newtype);
    if (rc == 0 && (rc = core_dt_set_args(*newtype, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1,
                                          &oldtype)) != 0) {
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
    }
    if (rc != 0)
        return api_error(MPI_COMM_NULL, rc, "MPI_Type_dup", "cannot duplicate the type");
    if ((rc = api_attr_type_copy(oldtype, *newtype, "MPI_Type_dup")) != MPI_SUCCESS) {
        api_attr_type_delete_all(*newtype, "MPI_Type_dup");
        core_dt_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
    }
    return rc;
}
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) API_ALIAS(MPI_Type_dup);

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_get_name"));
    /* MPI-1's markers are no handles (src/api/mpi1.c) but have their names, as the others. */
    if (datatype != MPI_LB && datatype != MPI_UB)
        API_CHECK(check_dt(datatype, "MPI_Type_get_name"));
    API_CHECK(check_ptr(type_name, "type_name", "MPI_Type_get_name"));
    API_CHECK(check_ptr(resultlen, "resultlen", "MPI_Type_get_name"));
    size_t len = strnlen(datatype->name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, datatype->name, len);
    type_name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
    API_ALIAS(MPI_Type_get_name);

/* Names longer than MPI_MAX_OBJECT_NAME - 1 characters are truncated, as MPI allows. */
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Type_set_name"));
    API_CHECK(check_dt(datatype, "MPI_Type_set_name"));
    API_CHECK(check_ptr(type_name, "type_name", "MPI_Type_set_name"));
    size_t len = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(datatype->name, type_name, len);
    datatype->name[len] = '\0';
    return MPI_SUCCESS;
}
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name) API_ALIAS(MPI_Type_set_name);

/* ---- Status queries ---------------------------------------------------- */

/* Common checks of the calls that read or write a status through a datatype. */
static int check_status_dt(const MPI_Status *status, MPI_Datatype dt, const char *fn)
{
    if (status == MPI_STATUS_IGNORE)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "status is MPI_STATUS_IGNORE");
    return check_dt(dt, fn);
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Get_count"));
    API_CHECK(check_status_dt(status, datatype, "MPI_Get_count"));
    API_CHECK(check_ptr(count, "count", "MPI_Get_count"));
    MPI_Count nbytes = status->rdmpi_nbytes;
    MPI_Count size = (MPI_Count)datatype->size;
    if (size == 0)
        *count = 0;
    else if (nbytes % size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = count_to_int(nbytes / size);
    return MPI_SUCCESS;
}
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
    API_ALIAS(MPI_Get_count);

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Get_elements_x"));
    API_CHECK(check_status_dt(status, datatype, "MPI_Get_elements_x"));
    API_CHECK(check_ptr(count, "count", "MPI_Get_elements_x"));
    *count = core_dt_elements(datatype, (size_t)status->rdmpi_nbytes);
    return MPI_SUCCESS;
}
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
    API_ALIAS(MPI_Get_elements_x);

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Get_elements"));
    API_CHECK(check_status_dt(status, datatype, "MPI_Get_elements"));
    API_CHECK(check_ptr(count, "count", "MPI_Get_elements"));
    *count = count_to_int(core_dt_elements(datatype, (size_t)status->rdmpi_nbytes));
    return MPI_SUCCESS;
}
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
    API_ALIAS(MPI_Get_elements);

/*
 * The bytes that hold the first count predefined elements of dt's type
 * signature: whole items, then whole elements of the next item. Within an
 * item the elements are copies of one unit of the basic kind, a pair (value,
 * index) or a single element, so they alternate between two sizes e1 and e2
 * (equal for single elements). The sizes are found by asking core_dt_elements
 * where the first and second elements end: a few probes within one unit.
 */
static MPI_Count elements_to_bytes(MPI_Datatype dt, MPI_Count count)
{
    if (dt->nbasic == 0)
        return 0;
    MPI_Count per_item = (MPI_Count)dt->nbasic;
    MPI_Count nbytes = count / per_item * (MPI_Count)dt->size;
    MPI_Count rest = count % per_item;
    if (rest == 0 || dt->basic == CORE_DT_NONE)
        return nbytes;
    size_t end1 = 1, end2;
    while (core_dt_elements(dt, end1) != 1)
        end1++;
    end2 = end1 + 1;
    while (core_dt_elements(dt, end2) != 2)
        end2++;
    return nbytes + rest / 2 * (MPI_Count)end2 + rest % 2 * (MPI_Count)end1;
}

static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                        const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(check_status_dt(status, datatype, fn));
    if (count < 0)
        return api_error(MPI_COMM_NULL, CORE_ECOUNT, fn, "count %lld is negative", count);
    status->rdmpi_nbytes = elements_to_bytes(datatype, count);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    API_ENTER;
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
    API_ALIAS(MPI_Status_set_elements);

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    API_ENTER;
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
    API_ALIAS(MPI_Status_set_elements_x);

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Status_set_cancelled"));
    if (status == MPI_STATUS_IGNORE)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Status_set_cancelled",
                         "status is MPI_STATUS_IGNORE");
    status->rdmpi_cancelled = flag != 0;
    return MPI_SUCCESS;
}
int MPI_Status_set_cancelled(MPI_Status *status, int flag) API_ALIAS(MPI_Status_set_cancelled);

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Test_cancelled"));
    if (status == MPI_STATUS_IGNORE)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, "MPI_Test_cancelled",
                         "status is MPI_STATUS_IGNORE");
    API_CHECK(check_ptr(flag, "flag", "MPI_Test_cancelled"));
    *flag = status->rdmpi_cancelled != 0;
    return MPI_SUCCESS;
}
int MPI_Test_cancelled(const MPI_Status *status, int *flag) API_ALIAS(MPI_Test_cancelled);

/* ---- Addresses --------------------------------------------------------- */

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Get_address"));
    API_CHECK(check_ptr(address, "address", "MPI_Get_address"));
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
int MPI_Get_address(const void *location, MPI_Aint *address) API_ALIAS(MPI_Get_address);

/* Address arithmetic is done in unsigned so it wraps like the machine's, never undefined. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    API_ENTER;
    return (MPI_Aint)((unsigned long)base + (unsigned long)disp);
}
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) API_ALIAS(MPI_Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    API_ENTER;
    return (MPI_Aint)((unsigned long)addr1 - (unsigned long)addr2);
}
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) API_ALIAS(MPI_Aint_diff);
