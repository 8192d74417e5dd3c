/*
 * The argument checks of the collective entry points (see coll_check.h).
 * Arguments MPI calls "significant only at root" are checked only there,
 * by the callers.
 */
#include "api/coll_check.h"
#include "core/datatype.h"
#include "core/op.h"

int api_coll_done(MPI_Comm comm, int rc, const char *fn)
{
    return rc ? api_error(comm, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
}

int api_coll_enter(MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    return api_check_comm(comm, fn);
}

int api_coll_root(MPI_Comm comm, int root, const char *fn)
{
    if (comm->remote) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote->size))
            return 0;
        return api_error(comm, CORE_EROOT, fn,
                         "root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote "
                         "group of %s (size %d)", root, core_comm_label(comm), comm->remote->size);
    }
    if (root < 0 || root >= comm->size)
        return api_error(comm, CORE_EROOT, fn, "root %d is not a rank of %s (size %d)", root,
                         core_comm_label(comm), comm->size);
    return 0;
}

int api_coll_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, const char *fn)
{
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    return api_check_buf(comm, buf, count, dt, fn);
}

int api_coll_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn)
{
    API_CHECK(api_check_op(comm, op, fn));
    if (!core_op_valid(op, dt))
        return api_error(comm, CORE_EOP, fn, "%s is not defined for datatype %s",
                         op->name ? op->name : "the operation", dt->name);
    return 0;
}

int api_coll_inplace_error(MPI_Comm comm, const char *what, const char *fn)
{
    return api_error(comm, CORE_EBUFFER, fn, "MPI_IN_PLACE is not allowed as %s", what);
}

int api_coll_intra(MPI_Comm comm, const char *fn)
{
    if (comm->remote)
        return api_error(comm, CORE_ECOMM, fn, "%s is an intercommunicator", core_comm_label(comm));
    return 0;
}

int api_coll_inplace_inter(MPI_Comm comm, const void *sbuf, const void *rbuf, const char *fn)
{
    if (comm->remote && (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE))
        return api_coll_inplace_error(comm, "a buffer on an intercommunicator", fn);
    return 0;
}

int api_coll_alias(MPI_Comm comm, const void *sbuf, const void *rbuf, int nonempty,
                   const char *fn)
{
    if (sbuf == rbuf && sbuf != MPI_BOTTOM && nonempty && !comm->remote)
        return api_error(comm, CORE_EBUFFER, fn,
                         "the send and receive buffers are the same (use MPI_IN_PLACE)");
    return 0;
}

int api_coll_counts(MPI_Comm comm, const int *counts, const void *displs, int need_displs, int n,
                    const char *fn)
{
    if ((!counts && n > 0) || (need_displs && !displs && n > 0))
        return api_error(comm, CORE_EINVAL, fn, "a count or displacement array is NULL");
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return api_error(comm, CORE_ECOUNT, fn, "count %d for rank %d is negative",
                             counts[i], i);
    return 0;
}

int api_coll_types(MPI_Comm comm, const MPI_Datatype *types, const int *counts, int n,
                   const char *fn)
{
    if (!types && n > 0)
        return api_error(comm, CORE_EINVAL, fn, "the datatype array is NULL");
    for (int i = 0; i < n; i++)
        if (counts[i] > 0)
            API_CHECK(api_check_type(comm, types[i], fn));
    return 0;
}

int api_coll_any(const int *counts, int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i])
            return 1;
    return 0;
}

int api_coll_req(MPI_Comm comm, MPI_Request *req, const char *fn)
{
    if (!req)
        return api_error(comm, CORE_EREQUEST, fn, "the request pointer is NULL");
    return 0;
}
