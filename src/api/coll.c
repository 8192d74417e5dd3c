/*
 * MPI entry points of the blocking collectives and of user reduction
 * operations: argument checks (roots, counts, datatypes, buffers, the uses
 * of MPI_IN_PLACE that MPI allows, operations valid for the datatype), one
 * call down to collectives/, and the error-handler dispatch of api_error.
 * Arguments MPI calls "significant only at root" are checked only there.
 */
#include <stdlib.h>
#include "api/api.h"
#include "collectives/coll.h"
#include "core/datatype.h"
#include "core/op.h"

/* ---- checks ------------------------------------------------------------- */

static int done(MPI_Comm comm, int rc, const char *fn)
{
    return rc ? api_error(comm, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
}

static int check_root(MPI_Comm comm, int root, const char *fn)
{
    if (root < 0 || root >= comm->size)
        return api_error(comm, CORE_EROOT, fn, "root %d is not a rank of %s (size %d)", root,
                         core_comm_label(comm), comm->size);
    return 0;
}

/* A send or receive buffer with its count and datatype. */
static int check_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, const char *fn)
{
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    return api_check_buf(comm, buf, count, dt, fn);
}

static int check_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn)
{
    if (op == MPI_OP_NULL)
        return api_error(comm, CORE_EOP, fn, "the operation is MPI_OP_NULL");
    if (!core_op_valid(op, dt))
        return api_error(comm, CORE_EOP, fn, "%s is not defined for datatype %s",
                         op->name ? op->name : "the operation", dt->name);
    return 0;
}

static int inplace_error(MPI_Comm comm, const char *what, const char *fn)
{
    return api_error(comm, CORE_EBUFFER, fn, "MPI_IN_PLACE is not allowed as %s", what);
}

/* The same buffer passed twice (instead of MPI_IN_PLACE) with data in it. */
static int check_alias(MPI_Comm comm, const void *sbuf, const void *rbuf, int nonempty,
                       const char *fn)
{
    if (sbuf == rbuf && sbuf != MPI_BOTTOM && nonempty)
        return api_error(comm, CORE_EBUFFER, fn,
                         "the send and receive buffers are the same (use MPI_IN_PLACE)");
    return 0;
}

/* counts[0..n) >= 0, with the arrays present; displs may be NULL when not needed. */
static int check_counts(MPI_Comm comm, const int *counts, const int *displs, int need_displs,
                        int n, const char *fn)
{
    if (!counts || (need_displs && !displs))
        return api_error(comm, CORE_EINVAL, fn, "a count or displacement array is NULL");
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return api_error(comm, CORE_ECOUNT, fn, "count %d for rank %d is negative",
                             counts[i], i);
    return 0;
}

static int any_nonzero(const int *counts, int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i])
            return 1;
    return 0;
}

#define ENTER(fn, comm)                       \
    API_CHECK(api_check_init(fn));            \
    API_CHECK(api_check_comm((comm), (fn)))

/* ---- barrier, broadcast, reductions ------------------------------------ */

RDMPI_API int PMPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    ENTER(fn, comm);
    return done(comm, coll_barrier(comm), fn);
}
RDMPI_API int MPI_Barrier(MPI_Comm comm) API_ALIAS(MPI_Barrier);

RDMPI_API int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    if (buf == MPI_IN_PLACE)
        return inplace_error(comm, "the buffer of MPI_Bcast", fn);
    API_CHECK(check_data(comm, buf, count, dt, fn));
    return done(comm, coll_bcast(buf, count, dt, root, comm), fn);
}
RDMPI_API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
    API_ALIAS(MPI_Bcast);

RDMPI_API int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    API_CHECK(check_op(comm, op, dt, fn));
    int is_root = comm->rank == root;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return inplace_error(comm, "the send buffer away from the root", fn);
    if (rbuf == MPI_IN_PLACE && is_root)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_check_buf(comm, sbuf, count, dt, fn));
    if (is_root) {
        API_CHECK(api_check_buf(comm, rbuf, count, dt, fn));
        API_CHECK(check_alias(comm, sbuf, rbuf, count > 0, fn));
    }
    return done(comm, coll_reduce(sbuf, rbuf, count, dt, op, root, comm), fn);
}
RDMPI_API int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, MPI_Comm comm) API_ALIAS(MPI_Reduce);

RDMPI_API int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    ENTER(fn, comm);
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    API_CHECK(check_op(comm, op, dt, fn));
    if (rbuf == MPI_IN_PLACE)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_check_buf(comm, sbuf, count, dt, fn));
    API_CHECK(api_check_buf(comm, rbuf, count, dt, fn));
    API_CHECK(check_alias(comm, sbuf, rbuf, count > 0, fn));
    return done(comm, coll_allreduce(sbuf, rbuf, count, dt, op, comm), fn);
}
RDMPI_API int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm) API_ALIAS(MPI_Allreduce);

RDMPI_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                                MPI_Op op)
{
    static const char fn[] = "MPI_Reduce_local";
    API_CHECK(api_check_init(fn));
    MPI_Comm c = MPI_COMM_NULL;
    API_CHECK(api_check_count(c, count, fn));
    API_CHECK(api_check_type(c, dt, fn));
    API_CHECK(check_op(c, op, dt, fn));
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return inplace_error(c, "a buffer of MPI_Reduce_local", fn);
    API_CHECK(api_check_buf(c, inbuf, count, dt, fn));
    API_CHECK(api_check_buf(c, inoutbuf, count, dt, fn));
    if (count == 0)
        return MPI_SUCCESS;
    return done(c, core_op_apply(op, inbuf, inoutbuf, count, dt), fn);
}
RDMPI_API int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                               MPI_Op op) API_ALIAS(MPI_Reduce_local);

/* ---- gather and scatter -------------------------------------------------- */

RDMPI_API int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gather";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    int is_root = comm->rank == root;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return inplace_error(comm, "the send buffer away from the root", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
    if (is_root) {
        if (rbuf == MPI_IN_PLACE)
            return inplace_error(comm, "the receive buffer", fn);
        API_CHECK(check_data(comm, rbuf, rcount, rdt, fn));
        API_CHECK(check_alias(comm, sbuf, rbuf, rcount > 0, fn));
    }
    return done(comm, coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm), fn);
}
RDMPI_API int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm) API_ALIAS(MPI_Gather);

RDMPI_API int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                           MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    int is_root = comm->rank == root;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return inplace_error(comm, "the send buffer away from the root", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
    if (is_root) {
        if (rbuf == MPI_IN_PLACE)
            return inplace_error(comm, "the receive buffer", fn);
        API_CHECK(check_counts(comm, rcounts, displs, 1, comm->size, fn));
        API_CHECK(api_check_type(comm, rdt, fn));
        int nonempty = any_nonzero(rcounts, comm->size);
        API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
        API_CHECK(check_alias(comm, sbuf, rbuf, nonempty, fn));
    }
    return done(comm,
                coll_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm), fn);
}
RDMPI_API int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                          MPI_Comm comm) API_ALIAS(MPI_Gatherv);

RDMPI_API int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatter";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    int is_root = comm->rank == root;
    if (rbuf == MPI_IN_PLACE && !is_root)
        return inplace_error(comm, "the receive buffer away from the root", fn);
    if (rbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, rbuf, rcount, rdt, fn));
    if (is_root) {
        if (sbuf == MPI_IN_PLACE)
            return inplace_error(comm, "the send buffer", fn);
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
        API_CHECK(check_alias(comm, sbuf, rbuf, scount > 0, fn));
    }
    return done(comm, coll_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm), fn);
}
RDMPI_API int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm) API_ALIAS(MPI_Scatter);

RDMPI_API int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                            MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                            MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    ENTER(fn, comm);
    API_CHECK(check_root(comm, root, fn));
    int is_root = comm->rank == root;
    if (rbuf == MPI_IN_PLACE && !is_root)
        return inplace_error(comm, "the receive buffer away from the root", fn);
    if (rbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, rbuf, rcount, rdt, fn));
    if (is_root) {
        if (sbuf == MPI_IN_PLACE)
            return inplace_error(comm, "the send buffer", fn);
        API_CHECK(check_counts(comm, scounts, displs, 1, comm->size, fn));
        API_CHECK(api_check_type(comm, sdt, fn));
        int nonempty = any_nonzero(scounts, comm->size);
        API_CHECK(api_check_buf(comm, sbuf, nonempty, sdt, fn));
        API_CHECK(check_alias(comm, sbuf, rbuf, nonempty, fn));
    }
    return done(comm,
                coll_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm), fn);
}
RDMPI_API int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                           MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                           MPI_Comm comm) API_ALIAS(MPI_Scatterv);

/* ---- allgather and alltoall ------------------------------------------- */

RDMPI_API int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
    ENTER(fn, comm);
    if (rbuf == MPI_IN_PLACE)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
    API_CHECK(check_data(comm, rbuf, rcount, rdt, fn));
    API_CHECK(check_alias(comm, sbuf, rbuf, rcount > 0, fn));
    return done(comm, coll_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm), fn);
}
RDMPI_API int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm) API_ALIAS(MPI_Allgather);

RDMPI_API int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rdt,
                              MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    ENTER(fn, comm);
    if (rbuf == MPI_IN_PLACE)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
    API_CHECK(check_counts(comm, rcounts, displs, 1, comm->size, fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    int nonempty = any_nonzero(rcounts, comm->size);
    API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
    API_CHECK(check_alias(comm, sbuf, rbuf, nonempty, fn));
    return done(comm, coll_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm), fn);
}
RDMPI_API int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rdt,
                             MPI_Comm comm) API_ALIAS(MPI_Allgatherv);

RDMPI_API int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    ENTER(fn, comm);
    if (rbuf == MPI_IN_PLACE)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(check_data(comm, sbuf, scount, sdt, fn));
    API_CHECK(check_data(comm, rbuf, rcount, rdt, fn));
    API_CHECK(check_alias(comm, sbuf, rbuf, rcount > 0, fn));
    return done(comm, coll_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm), fn);
}
RDMPI_API int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm) API_ALIAS(MPI_Alltoall);

RDMPI_API int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype sdt, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    ENTER(fn, comm);
    if (rbuf == MPI_IN_PLACE)
        return inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE) {
        API_CHECK(check_counts(comm, scounts, sdispls, 1, comm->size, fn));
        API_CHECK(api_check_type(comm, sdt, fn));
        API_CHECK(api_check_buf(comm, sbuf, any_nonzero(scounts, comm->size), sdt, fn));
    }
    API_CHECK(check_counts(comm, rcounts, rdispls, 1, comm->size, fn));
    API_CHECK(api_check_type(comm, rdt, fn));
    int nonempty = any_nonzero(rcounts, comm->size);
    API_CHECK(api_check_buf(comm, rbuf, nonempty, rdt, fn));
    API_CHECK(check_alias(comm, sbuf, rbuf, nonempty, fn));
    return done(comm,
                coll_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm),
                fn);
}
RDMPI_API int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype sdt, void *rbuf, const int rcounts[],
                            const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
    API_ALIAS(MPI_Alltoallv);

/* ---- user operations ------------------------------------------------------ */

RDMPI_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char fn[] = "MPI_Op_create";
    API_CHECK(api_check_init(fn));
    if (!user_fn || !op)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL",
                         user_fn ? "the handle pointer" : "the function");
    MPI_Op o = calloc(1, sizeof(*o));
    if (!o)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    o->refcount = 1;
    o->kind = CORE_OP_USER;
    o->commute = commute != 0;
    o->fn = user_fn;
    o->name = "a user-defined operation";
    *op = o;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
    API_ALIAS(MPI_Op_create);

RDMPI_API int PMPI_Op_free(MPI_Op *op)
{
    static const char fn[] = "MPI_Op_free";
    API_CHECK(api_check_init(fn));
    if (!op || *op == MPI_OP_NULL)
        return api_error(MPI_COMM_NULL, CORE_EOP, fn, "the operation is MPI_OP_NULL");
    if ((*op)->predefined)
        return api_error(MPI_COMM_NULL, CORE_EOP, fn, "%s is predefined and cannot be freed",
                         (*op)->name ? (*op)->name : "the operation");
    if (--(*op)->refcount == 0)
        free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_free(MPI_Op *op) API_ALIAS(MPI_Op_free);

RDMPI_API int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char fn[] = "MPI_Op_commutative";
    API_CHECK(api_check_init(fn));
    if (op == MPI_OP_NULL)
        return api_error(MPI_COMM_NULL, CORE_EOP, fn, "the operation is MPI_OP_NULL");
    if (!commute)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "commute is NULL");
    *commute = op->commute;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_commutative(MPI_Op op, int *commute) API_ALIAS(MPI_Op_commutative);
