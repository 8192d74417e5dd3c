/*
 * The send calls: standard, synchronous and ready, blocking and not. Under MULTIPLE they
 * run outside G (API_ENTER_P2P): p2p sends an eager message under the peer's send lock and
 * enters G for every other send (p2p_isend, p2p_send).
 */
#include "api/api.h"
#include "core/progress.h"
#include "p2p/p2p.h"

CORE_INLINE int check_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_buf(comm, buf, count, dt, fn));
    API_CHECK(api_check_rank(comm, dest, 0, fn));
    API_CHECK(api_check_tag(comm, tag, 0, fn));
    return 0;
}

CORE_INLINE int send_blocking(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                              MPI_Comm comm, int mode, const char *fn)
{
    API_CHECK(check_send(buf, count, dt, dest, tag, comm, fn));
    int rc = p2p_send(buf, (size_t)count, dt, dest, tag, comm, comm->ctx, mode, fn);
    if (rc)
        return api_error(comm, rc, fn, "sending to rank %d (tag %d) failed: %s", dest, tag,
                         core_strerror(rc));
    return MPI_SUCCESS;
}

/* Inline in each nonblocking send: its call and prologue were ~25 instructions of an 8-byte
 * MPI_Isend (callgrind, osu_mbw_mr). */
CORE_INLINE int send_nonblocking(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                                 MPI_Comm comm, int mode, MPI_Request *req, const char *fn)
{
    API_CHECK(check_send(buf, count, dt, dest, tag, comm, fn));
    if (!req)
        return api_error(comm, CORE_EREQUEST, fn, "the request argument is NULL");
    int rc = p2p_isend(buf, (size_t)count, dt, dest, tag, comm, comm->ctx, mode, req);
    if (rc)
        return api_error(comm, rc, fn, "sending to rank %d (tag %d) failed: %s", dest, tag,
                         core_strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    API_ENTER_P2P;
    return send_blocking(buf, count, dt, dest, tag, comm, CORE_MODE_STANDARD, "MPI_Send");
}
int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
    API_ALIAS(MPI_Send);

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    API_ENTER_P2P;
    return send_blocking(buf, count, dt, dest, tag, comm, CORE_MODE_SYNC, "MPI_Ssend");
}
int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
    API_ALIAS(MPI_Ssend);

/* A ready send is a standard send: correct whenever the program is. */
int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    API_ENTER_P2P;
    return send_blocking(buf, count, dt, dest, tag, comm, CORE_MODE_READY, "MPI_Rsend");
}
int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
    API_ALIAS(MPI_Rsend);

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    API_ENTER_P2P;
    return send_nonblocking(buf, count, dt, dest, tag, comm, CORE_MODE_STANDARD, req, "MPI_Isend");
}
int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req) API_ALIAS(MPI_Isend);

int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    API_ENTER_P2P;
    return send_nonblocking(buf, count, dt, dest, tag, comm, CORE_MODE_SYNC, req, "MPI_Issend");
}
int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) API_ALIAS(MPI_Issend);

int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    API_ENTER_P2P;
    return send_nonblocking(buf, count, dt, dest, tag, comm, CORE_MODE_READY, req, "MPI_Irsend");
}
int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req) API_ALIAS(MPI_Irsend);
