/*
 * The receive calls, and send-receive.
 */
#include <stdlib.h>
#include "api/api.h"
#include "core/datatype.h"
#include "core/progress.h"
#include "p2p/p2p.h"

CORE_INLINE int check_recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                           MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_buf(comm, buf, count, dt, fn));
    API_CHECK(api_check_rank(comm, src, 1, fn));
    API_CHECK(api_check_tag(comm, tag, 1, fn));
    return 0;
}

/* Reports a failed receive through comm's error handler: truncated, or its sender (a
 * process of another job) left before sending it. */
int api_recv_error(MPI_Comm comm, const MPI_Status *st, size_t cap, const char *fn)
{
    if (st->MPI_ERROR != MPI_ERR_TRUNCATE)
        return api_error(comm, CORE_EPEER, fn,
                         "the sender (rank %d of the communicator, a process of another job) "
                         "has left: it finalized or died before sending the message",
                         st->MPI_SOURCE);
    return api_error(comm, CORE_ETRUNC, fn,
                     "message from rank %d with tag %d is longer than the %zu-byte receive "
                     "buffer (truncated)", st->MPI_SOURCE, st->MPI_TAG, cap);
}

static int recv_blocking(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                         MPI_Status *status, int outside);

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    /* Under MULTIPLE, on a communicator whose receives were posted outside G already
     * (MPI_Irecv from threads: p2p_ctx_outside): posted as MPI_Irecv does, outside G; a
     * receive that completed at once (the message was there) is handed out without G, any
     * other waits inside it. On any other communicator the whole receive runs inside G as
     * before: posting outside G makes the context's arrivals take its matching lock from then
     * on (p2p_mq_t.outside), two lock pairs per receive instead of one in a ping-pong. Once a
     * second thread made such a call (core_cs_note_thread), every communicator's receives
     * post outside G, and the wait drives the engine outside it too (core_wait_req_outside):
     * threads on different communicators no longer serialize on G. */
    API_ENTER_P2P;
    int outside = api_outside();
    int enter = outside && (comm == MPI_COMM_NULL || !core_handle_valid(&core_handles.comm, comm) ||
                            (!p2p_ctx_outside(comm->ctx) &&
                             (!core_progress_outside_ok(core_rt) ||
                              core_cs_note_thread(&core_rt->cs) < 2)));
    if (enter)
        core_cs_enter(&core_rt->cs);
    int rc = recv_blocking(buf, count, dt, src, tag, comm, status, outside && !enter);
    if (enter)
        core_cs_exit(&core_rt->cs);
    return rc;
}
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *status) API_ALIAS(MPI_Recv);

/* MPI_Recv's work; outside: called outside G (it enters G to wait). */
static int recv_blocking(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                         MPI_Status *status, int outside)
{
    API_CHECK(check_recv(buf, count, dt, src, tag, comm, "MPI_Recv"));
    MPI_Request r;
    int rc = p2p_irecv(buf, (size_t)count, dt, src, tag, comm, comm->ctx, &r);
    if (rc)
        return api_error(comm, rc, "MPI_Recv", "%s", core_strerror(rc));
    int enter = outside && !api_req_done_plain(r) &&
                !(core_wait_req_outside(r, "MPI_Recv") && api_req_done_plain(r));
    if (enter)
        core_cs_enter(&core_rt->cs);
    core_wait_req(r, "MPI_Recv");
    core_req_status(r, status);
    int err = r->status.MPI_ERROR;
    MPI_Status st = r->status;
    core_req_free(r);
    if (enter)
        core_cs_exit(&core_rt->cs);
    if (err != MPI_SUCCESS)
        return api_recv_error(comm, &st, (size_t)count * dt->size, "MPI_Recv");
    return MPI_SUCCESS;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    API_ENTER_P2P;
    API_CHECK(check_recv(buf, count, dt, src, tag, comm, "MPI_Irecv"));
    if (!req)
        return api_error(comm, CORE_EREQUEST, "MPI_Irecv", "the request argument is NULL");
    int rc = p2p_irecv(buf, (size_t)count, dt, src, tag, comm, comm->ctx, req);
    if (rc)
        return api_error(comm, rc, "MPI_Irecv", "%s", core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req) API_ALIAS(MPI_Irecv);

/* Waits for a send and a receive issued together; reports the receive's status. */
static int sendrecv_wait(MPI_Request s, MPI_Request r, MPI_Comm comm, MPI_Status *status,
                         size_t cap, const char *fn)
{
    core_wait_req(s, fn);
    core_wait_req(r, fn);
    core_req_status(r, status);
    MPI_Status st = r->status;
    int serr = s->status.MPI_ERROR;
    core_req_free(s);
    core_req_free(r);
    if (st.MPI_ERROR != MPI_SUCCESS)
        return api_recv_error(comm, &st, cap, fn);
    if (serr != MPI_SUCCESS)
        return api_error(comm, CORE_EPEER, fn, "the send part failed");
    return MPI_SUCCESS;
}

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                  int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                  MPI_Status *status)
{
    API_ENTER;
    const char *fn = "MPI_Sendrecv";
    API_CHECK(check_recv(rbuf, rcount, rdt, src, rtag, comm, fn));
    API_CHECK(api_check_buf(comm, sbuf, scount, sdt, fn));
    API_CHECK(api_check_rank(comm, dest, 0, fn));
    API_CHECK(api_check_tag(comm, stag, 0, fn));
    MPI_Request r, s;
    int rc = p2p_irecv(rbuf, (size_t)rcount, rdt, src, rtag, comm, comm->ctx, &r);
    if (rc)
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    rc = p2p_isend(sbuf, (size_t)scount, sdt, dest, stag, comm, comm->ctx, CORE_MODE_STANDARD, &s);
    if (rc)
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    return sendrecv_wait(s, r, comm, status, (size_t)rcount * rdt->size, fn);
}
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status) API_ALIAS(MPI_Sendrecv);

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
                          int rtag, MPI_Comm comm, MPI_Status *status)
{
    API_ENTER;
    const char *fn = "MPI_Sendrecv_replace";
    API_CHECK(check_recv(buf, count, dt, src, rtag, comm, fn));
    API_CHECK(api_check_rank(comm, dest, 0, fn));
    API_CHECK(api_check_tag(comm, stag, 0, fn));
    size_t len = (size_t)count * dt->size;
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return api_error(comm, CORE_ENOMEM, fn, "cannot allocate %zu bytes", len);
    core_dt_pack(copy, buf, (size_t)count, dt);
    MPI_Request r, s;
    int rc = p2p_irecv(buf, (size_t)count, dt, src, rtag, comm, comm->ctx, &r);
    if (rc == 0)
        rc = p2p_isend(copy, len, MPI_BYTE, dest, stag, comm, comm->ctx, CORE_MODE_STANDARD, &s);
    if (rc) {
        free(copy);
        return api_error(comm, rc, fn, "%s", core_strerror(rc));
    }
    rc = sendrecv_wait(s, r, comm, status, len, fn);
    free(copy);
    return rc;
}
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
    API_ALIAS(MPI_Sendrecv_replace);
