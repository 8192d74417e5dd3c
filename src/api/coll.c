/*
 * MPI entry points of the barrier, broadcast and reductions, blocking and
 * nonblocking, and of user reduction operations: argument checks (shared by
 * the blocking and nonblocking form of each call), one call down to
 * collectives/, and the error-handler dispatch of api_error.
 */
#include "api/coll_check.h"
#include "collectives/coll.h"
#include "core/datatype.h"
#include "core/op.h"

/* ---- barrier and broadcast -------------------------------------------------- */

RDMPI_API int PMPI_Barrier(MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Barrier";
    API_CHECK(api_coll_enter(comm, fn));
    return api_coll_done(comm, coll_barrier(comm), fn);
}
RDMPI_API int MPI_Barrier(MPI_Comm comm) API_ALIAS(MPI_Barrier);

RDMPI_API int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ibarrier";
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_ibarrier(comm, req), fn);
}
RDMPI_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Ibarrier);

static int check_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                       const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    if (buf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the buffer of a broadcast", fn);
    return api_coll_data(comm, buf, count, dt, fn);
}

RDMPI_API int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Bcast";
    API_CHECK(check_bcast(buf, count, dt, root, comm, fn));
    return api_coll_done(comm, coll_bcast(buf, count, dt, root, comm), fn);
}
RDMPI_API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
    API_ALIAS(MPI_Bcast);

RDMPI_API int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                          MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ibcast";
    API_CHECK(check_bcast(buf, count, dt, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_ibcast(buf, count, dt, root, comm, req), fn);
}
RDMPI_API int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                         MPI_Request *req) API_ALIAS(MPI_Ibcast);

/* ---- reduce and allreduce ------------------------------------------------------ */

/* The count, datatype and operation of a reduction. */
static int check_red(int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_check_count(comm, count, fn));
    API_CHECK(api_check_type(comm, dt, fn));
    return api_coll_op(comm, op, dt, fn);
}

static int check_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        int root, MPI_Comm comm, const char *fn)
{
    API_CHECK(check_red(count, dt, op, comm, fn));
    API_CHECK(api_coll_root(comm, root, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    int is_root = api_coll_is_root(comm, root);
    if (api_coll_idle(comm, root))
        return 0;
    if (sbuf == MPI_IN_PLACE && !is_root)
        return api_coll_inplace_error(comm, "the send buffer away from the root", fn);
    if (rbuf == MPI_IN_PLACE && is_root)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (comm->remote && is_root) /* an intercommunicator's root only receives */
        return api_check_buf(comm, rbuf, count, dt, fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_check_buf(comm, sbuf, count, dt, fn));
    if (is_root) {
        API_CHECK(api_check_buf(comm, rbuf, count, dt, fn));
        API_CHECK(api_coll_alias(comm, sbuf, rbuf, count > 0, fn));
    }
    return 0;
}

RDMPI_API int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          int root, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Reduce";
    API_CHECK(check_reduce(sbuf, rbuf, count, dt, op, root, comm, fn));
    return api_coll_done(comm, coll_reduce(sbuf, rbuf, count, dt, op, root, comm), fn);
}
RDMPI_API int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, MPI_Comm comm) API_ALIAS(MPI_Reduce);

RDMPI_API int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           int root, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ireduce";
    API_CHECK(check_reduce(sbuf, rbuf, count, dt, op, root, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_ireduce(sbuf, rbuf, count, dt, op, root, comm, req), fn);
}
RDMPI_API int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          int root, MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Ireduce);

/* Allreduce, scan and exscan: every rank has both buffers; sbuf may be MPI_IN_PLACE. */
static int check_allred(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, const char *fn)
{
    API_CHECK(check_red(count, dt, op, comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_check_buf(comm, sbuf, count, dt, fn));
    API_CHECK(api_check_buf(comm, rbuf, count, dt, fn));
    return api_coll_alias(comm, sbuf, rbuf, count > 0, fn);
}

RDMPI_API int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Allreduce";
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    return api_coll_done(comm, coll_allreduce(sbuf, rbuf, count, dt, op, comm), fn);
}
RDMPI_API int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm) API_ALIAS(MPI_Allreduce);

RDMPI_API int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iallreduce";
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_iallreduce(sbuf, rbuf, count, dt, op, comm, req), fn);
}
RDMPI_API int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Iallreduce);

RDMPI_API int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Scan";
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    return api_coll_done(comm, coll_scan(sbuf, rbuf, count, dt, op, comm), fn);
}
RDMPI_API int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) API_ALIAS(MPI_Scan);

RDMPI_API int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iscan";
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_iscan(sbuf, rbuf, count, dt, op, comm, req), fn);
}
RDMPI_API int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Iscan);

RDMPI_API int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Exscan";
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    return api_coll_done(comm, coll_exscan(sbuf, rbuf, count, dt, op, comm), fn);
}
RDMPI_API int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm) API_ALIAS(MPI_Exscan);

RDMPI_API int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Iexscan";
    API_CHECK(api_coll_enter(comm, fn));
    API_CHECK(api_coll_intra(comm, fn));
    API_CHECK(check_allred(sbuf, rbuf, count, dt, op, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_iexscan(sbuf, rbuf, count, dt, op, comm, req), fn);
}
RDMPI_API int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm, MPI_Request *req) API_ALIAS(MPI_Iexscan);

/* ---- reduce_scatter ------------------------------------------------------------ */

/* counts: every rank's block (reduce_scatter), or NULL and count (the block form). */
static int check_rs(const void *sbuf, void *rbuf, const int *counts, int count, MPI_Datatype dt,
                    MPI_Op op, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_coll_enter(comm, fn));
    int n = comm->size;   /* an intercommunicator's group scatters by its own counts */
    long total = 0;
    if (counts) {
        API_CHECK(api_coll_counts(comm, counts, NULL, 0, n, fn));
        for (int i = 0; i < n; i++)
            total += counts[i];
        count = counts[comm->rank];
    } else {
        API_CHECK(api_check_count(comm, count, fn));
        total = (long)count * n;
    }
    if (total > 0x7fffffffL)
        return api_error(comm, CORE_ECOUNT, fn, "the vector has %ld items (more than an int)",
                         total);
    API_CHECK(check_red(count, dt, op, comm, fn));
    API_CHECK(api_coll_inplace_inter(comm, sbuf, rbuf, fn));
    if (rbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(comm, "the receive buffer", fn);
    if (sbuf != MPI_IN_PLACE)
        API_CHECK(api_check_buf(comm, sbuf, (int)total, dt, fn));
    API_CHECK(api_check_buf(comm, rbuf, sbuf == MPI_IN_PLACE ? (int)total : count, dt, fn));
    return api_coll_alias(comm, sbuf, rbuf, total > 0, fn);
}

RDMPI_API int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Reduce_scatter";
    API_CHECK(check_rs(sbuf, rbuf, rcounts, 0, dt, op, comm, fn));
    return api_coll_done(comm, coll_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm), fn);
}
RDMPI_API int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
    API_ALIAS(MPI_Reduce_scatter);

RDMPI_API int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                   MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ireduce_scatter";
    API_CHECK(check_rs(sbuf, rbuf, rcounts, 0, dt, op, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(comm, coll_ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, req),
                         fn);
}
RDMPI_API int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
    API_ALIAS(MPI_Ireduce_scatter);

RDMPI_API int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    API_ENTER;
    static const char fn[] = "MPI_Reduce_scatter_block";
    API_CHECK(check_rs(sbuf, rbuf, NULL, rcount, dt, op, comm, fn));
    return api_coll_done(comm, coll_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm), fn);
}
RDMPI_API int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
    API_ALIAS(MPI_Reduce_scatter_block);

RDMPI_API int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                         MPI_Request *req)
{
    API_ENTER;
    static const char fn[] = "MPI_Ireduce_scatter_block";
    API_CHECK(check_rs(sbuf, rbuf, NULL, rcount, dt, op, comm, fn));
    API_CHECK(api_coll_req(comm, req, fn));
    return api_coll_done(
        comm, coll_ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm, req), fn);
}
RDMPI_API int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *req) API_ALIAS(MPI_Ireduce_scatter_block);

/* ---- local reduction and user operations ------------------------------------------- */

RDMPI_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                                MPI_Op op)
{
    API_ENTER;
    static const char fn[] = "MPI_Reduce_local";
    API_CHECK(api_check_init(fn));
    MPI_Comm c = MPI_COMM_NULL;
    API_CHECK(api_check_count(c, count, fn));
    API_CHECK(api_check_type(c, dt, fn));
    API_CHECK(api_coll_op(c, op, dt, fn));
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return api_coll_inplace_error(c, "a buffer of MPI_Reduce_local", fn);
    API_CHECK(api_check_buf(c, inbuf, count, dt, fn));
    API_CHECK(api_check_buf(c, inoutbuf, count, dt, fn));
    if (count == 0)
        return MPI_SUCCESS;
    return api_coll_done(c, core_op_apply(op, inbuf, inoutbuf, count, dt), fn);
}
RDMPI_API int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt,
                               MPI_Op op) API_ALIAS(MPI_Reduce_local);

RDMPI_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    API_ENTER;
    static const char fn[] = "MPI_Op_create";
    API_CHECK(api_check_init(fn));
    if (!user_fn || !op)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "%s is NULL",
                         user_fn ? "the handle pointer" : "the function");
    if (core_op_create(user_fn, commute, op) != 0)
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
    API_ALIAS(MPI_Op_create);

/* A nonblocking reduction still running keeps its operation (it holds a reference). */
RDMPI_API int PMPI_Op_free(MPI_Op *op)
{
    API_ENTER;
    static const char fn[] = "MPI_Op_free";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, op, "op", fn));
    API_CHECK(api_check_op(MPI_COMM_NULL, *op, fn));
    if ((*op)->predefined)
        return api_error(MPI_COMM_NULL, CORE_EOP, fn, "%s is predefined and cannot be freed",
                         (*op)->name ? (*op)->name : "the operation");
    core_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_free(MPI_Op *op) API_ALIAS(MPI_Op_free);

RDMPI_API int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    API_ENTER;
    static const char fn[] = "MPI_Op_commutative";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_op(MPI_COMM_NULL, op, fn));
    if (!commute)
        return api_error(MPI_COMM_NULL, CORE_EINVAL, fn, "commute is NULL");
    *commute = op->commute;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Op_commutative(MPI_Op op, int *commute) API_ALIAS(MPI_Op_commutative);
