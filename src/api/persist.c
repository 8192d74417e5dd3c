/*
 * Persistent requests: *_init builds an inactive request holding the
 * arguments; MPI_Start runs it, and completion makes it inactive again.
 */
#include "api/api.h"
#include "core/datatype.h"
#include "core/request.h"
#include "p2p/p2p.h"

int api_bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              const char *fn);

static int make(void *buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                int kind, int mode, MPI_Request *req, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_buf(comm, buf, count, dt, fn));
    API_CHECK(api_check_rank(comm, peer, kind == CORE_REQ_RECV, fn));
    API_CHECK(api_check_tag(comm, tag, kind == CORE_REQ_RECV, fn));
    if (!req)
        return api_error(comm, CORE_EREQUEST, fn, "the request argument is NULL");
    MPI_Request r = core_req_alloc(kind);
    if (!r)
        return api_error(comm, CORE_ENOMEM, fn, "out of memory");
    r->persistent = 1;
    r->buf = buf;
    r->count = (size_t)count;
    r->dt = dt;
    r->peer = peer;
    r->tag = tag;
    r->comm = comm;
    r->ctx = comm->ctx;
    r->mode = (uint8_t)mode;
    r->len = (size_t)count * dt->size;
    r->complete = 1;
    core_comm_retain(comm);
    core_dt_retain(dt);
    *req = r;
    return MPI_SUCCESS;
}

#define SEND_INIT(NAME, MODE)                                                                  \
    int P##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, \
                MPI_Request *req)                                                              \
    {                                                                                          \
        return make((void *)buf, count, dt, dest, tag, comm, CORE_REQ_SEND, MODE, req, #NAME); \
    }                                                                                          \
    int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,    \
             MPI_Request *req) API_ALIAS(NAME);

SEND_INIT(MPI_Send_init, CORE_MODE_STANDARD)
SEND_INIT(MPI_Ssend_init, CORE_MODE_SYNC)
SEND_INIT(MPI_Rsend_init, CORE_MODE_READY)
SEND_INIT(MPI_Bsend_init, CORE_MODE_BUFFERED)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                   MPI_Request *req)
{
    API_ENTER;
    return make(buf, count, dt, src, tag, comm, CORE_REQ_RECV, 0, req, "MPI_Recv_init");
}
int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                  MPI_Request *req) API_ALIAS(MPI_Recv_init);

static int start(MPI_Request r, const char *fn)
{
    API_CHECK(api_check_req(r, 0, fn));
    if (!r->persistent)
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn, "not a persistent request");
    if (r->active)
        return api_error(r->comm, CORE_EREQUEST, fn, "the request is already active");
    core_req_restart(r); /* its last round's completer may still be ringing its waiter */
    if (r->hook)
        r->hook(r->hook_arg, CORE_REQ_HOOK_START);
    if (r->mode == CORE_MODE_BUFFERED && r->kind == CORE_REQ_SEND) {
        int rc = api_bsend(r->buf, (int)r->count, r->dt, r->peer, r->tag, r->comm, fn);
        if (rc == MPI_SUCCESS) {
            r->active = 1;
            r->status.MPI_ERROR = MPI_SUCCESS;
            core_req_complete(r);
        }
        return rc;
    }
    int rc = p2p_start(r);
    if (rc)
        return api_error(r->comm, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *req)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Start"));
    if (!req)
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, "MPI_Start", "the request pointer is NULL");
    return start(*req, "MPI_Start");
}
int MPI_Start(MPI_Request *req) API_ALIAS(MPI_Start);

int PMPI_Startall(int n, MPI_Request reqs[])
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Startall"));
    API_CHECK(api_check_count(MPI_COMM_NULL, n, "MPI_Startall"));
    if (n > 0)
        API_CHECK(api_check_ptr(MPI_COMM_NULL, reqs, "array_of_requests", "MPI_Startall"));
    /* every request is checked before any starts */
    for (int i = 0; i < n; i++) {
        API_CHECK(api_check_req(reqs[i], 0, "MPI_Startall"));
        if (!reqs[i]->persistent || reqs[i]->active)
            return api_error(MPI_COMM_NULL, CORE_EREQUEST, "MPI_Startall",
                             "array_of_requests[%d] is not an inactive persistent request", i);
    }
    for (int i = 0; i < n; i++)
        API_CHECK(start(reqs[i], "MPI_Startall"));
    return MPI_SUCCESS;
}
int MPI_Startall(int n, MPI_Request reqs[]) API_ALIAS(MPI_Startall);
