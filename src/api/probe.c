/*
 * Probes and matched receives (MPI_Mprobe/MPI_Mrecv): a matched probe takes
 * the message out of matching, so no other receive can steal it. Message
 * handles come from their own pool (core_handles.msg), so a message already
 * received is refused (MPI_ERR_REQUEST) without reading freed memory.
 */
#include <stdlib.h>
#include "api/api.h"
#include "core/datatype.h"
#include "core/progress.h"
#include "p2p/match.h"
#include "p2p/p2p.h"

struct rdmpi_message {
    p2p_unexp_t *msg;
    MPI_Comm comm;
};

static void proc_null_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->rdmpi_cancelled = 0;
    st->rdmpi_nbytes = 0;
}

static int check_probe(int src, int tag, MPI_Comm comm, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_comm(comm, fn));
    API_CHECK(api_check_rank(comm, src, 1, fn));
    API_CHECK(api_check_tag(comm, tag, 1, fn));
    return 0;
}

/* Probes, blocking or not; with msg set, takes the message (matched probe). */
static int probe(int src, int tag, MPI_Comm comm, int block, int *flag, MPI_Status *st,
                 MPI_Message *msg, const char *fn)
{
    API_CHECK(check_probe(src, tag, comm, fn));
    API_CHECK(api_check_ptr(comm, flag, "flag", fn));
    if (msg)
        API_CHECK(api_check_ptr(comm, msg, "message", fn));
    if (src == MPI_PROC_NULL) {
        proc_null_status(st);
        *flag = 1;
        if (msg)
            *msg = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    p2p_unexp_t *u = NULL;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, NULL);
    int events = core_progress(), lost = 0;
    for (;;) {
        p2p_iprobe(src, tag, comm, comm->ctx, flag, st, msg ? &u : NULL);
        if (*flag || !block || (lost = p2p_src_lost(comm, comm->ctx, src)) != 0)
            break;
        core_wait_idle(&w, events);
        events = core_progress();
    }
    core_wait_end(&w);
    if (lost) {
        if (msg)
            *msg = MPI_MESSAGE_NULL;
        return api_error(comm, CORE_EPEER, fn,
                         "nothing can come from %s any more: %s a process of another job that "
                         "has left (finalized or died)",
                         src == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : "the source",
                         src == MPI_ANY_SOURCE ? "every sender is" : "it is");
    }
    if (msg && *flag) {
        MPI_Message m = core_handle_alloc(&core_handles.msg, sizeof(*m));
        if (!m)
            return api_error(comm, CORE_ENOMEM, fn, "out of memory");
        m->msg = u;
        m->comm = comm;
        *msg = m;
    } else if (msg) {
        *msg = MPI_MESSAGE_NULL;
    }
    return MPI_SUCCESS;
}

int PMPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    API_ENTER;
    int flag;
    return probe(src, tag, comm, 1, &flag, status, NULL, "MPI_Probe");
}
int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status) API_ALIAS(MPI_Probe);

int PMPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    API_ENTER;
    return probe(src, tag, comm, 0, flag, status, NULL, "MPI_Iprobe");
}
int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
    API_ALIAS(MPI_Iprobe);

int PMPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    API_ENTER;
    int flag;
    return probe(src, tag, comm, 1, &flag, status, message, "MPI_Mprobe");
}
int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
    API_ALIAS(MPI_Mprobe);

int PMPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    API_ENTER;
    return probe(src, tag, comm, 0, flag, status, message, "MPI_Improbe");
}
int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status) API_ALIAS(MPI_Improbe);

int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *req)
{
    API_ENTER;
    const char *fn = "MPI_Imrecv";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, message, "message", fn));
    if (*message == MPI_MESSAGE_NULL)
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn, "the message is MPI_MESSAGE_NULL");
    if (*message != MPI_MESSAGE_NO_PROC && !core_handle_valid(&core_handles.msg, *message))
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn,
                         "%p is not a message handle (already received?)", (void *)*message);
    if (*message == MPI_MESSAGE_NO_PROC) {
        int rc = p2p_irecv(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, 0, req);
        *message = MPI_MESSAGE_NULL;
        return rc ? api_error(MPI_COMM_NULL, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
    }
    MPI_Message m = *message;
    API_CHECK(api_check_buf(m->comm, buf, count, dt, fn));
    API_CHECK(api_check_ptr(m->comm, req, "request", fn));
    int rc = p2p_imrecv(buf, (size_t)count, dt, m->comm, m->msg, req);
    if (rc)
        return api_error(m->comm, rc, fn, "%s", core_strerror(rc));
    core_handle_free(&core_handles.msg, m);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}
int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *req)
    API_ALIAS(MPI_Imrecv);

int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    API_ENTER;
    MPI_Request r;
    MPI_Comm comm = message && core_handle_valid(&core_handles.msg, *message) ? (*message)->comm
                                                                              : MPI_COMM_NULL;
    int rc = PMPI_Imrecv(buf, count, dt, message, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    core_wait_req(r, "MPI_Mrecv");
    core_req_status(r, status);
    MPI_Status st = r->status;
    core_req_free(r);
    if (st.MPI_ERROR != MPI_SUCCESS)
        return api_recv_error(comm, &st, (size_t)count * dt->size, "MPI_Mrecv");
    return MPI_SUCCESS;
}
int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
    API_ALIAS(MPI_Mrecv);
