/*
 * Sending and receiving for the algorithms: thin wrappers over p2p that fix
 * the collective context (comm->ctx + 1) and the standard send mode, wait
 * where the call is blocking, and turn a request's status into a CORE_*
 * code. A blocked wait is reported under the name of the MPI call, found
 * from the tag.
 */
#include "collectives/coll_impl.h"
#include "core/progress.h"
#include "core/request.h"
#include "p2p/p2p.h"

static const char *tag_fn(int tag)
{
    static const char *const names[] = {
        [COLL_TAG_BARRIER] = "MPI_Barrier",     [COLL_TAG_BCAST] = "MPI_Bcast",
        [COLL_TAG_REDUCE] = "MPI_Reduce",       [COLL_TAG_ALLREDUCE] = "MPI_Allreduce",
        [COLL_TAG_GATHER] = "MPI_Gather(v)",    [COLL_TAG_SCATTER] = "MPI_Scatter(v)",
        [COLL_TAG_ALLGATHER] = "MPI_Allgather(v)", [COLL_TAG_ALLTOALL] = "MPI_Alltoall(v)",
    };
    if (tag > 0 && tag < (int)(sizeof(names) / sizeof(names[0])) && names[tag])
        return names[tag];
    return "a collective";
}

static int status_rc(MPI_Request r)
{
    switch (r->status.MPI_ERROR) {
    case MPI_SUCCESS: return 0;
    case MPI_ERR_TRUNCATE: return CORE_ETRUNC;
    default: return CORE_EPEER;
    }
}

int coll_send(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return p2p_send(buf, count, dt, dest, tag, comm, comm->ctx + 1, CORE_MODE_STANDARD,
                    tag_fn(tag));
}

int coll_isend(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    return p2p_isend(buf, count, dt, dest, tag, comm, comm->ctx + 1, CORE_MODE_STANDARD, req);
}

int coll_irecv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    return p2p_irecv(buf, count, dt, src, tag, comm, comm->ctx + 1, req);
}

int coll_recv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = coll_irecv(buf, count, dt, src, tag, comm, &r);
    if (rc)
        return rc;
    core_wait_req(r, tag_fn(tag));
    rc = status_rc(r);
    core_req_free(r);
    return rc;
}

int coll_waitall(MPI_Request *reqs, int n)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        core_wait_req(reqs[i], tag_fn(reqs[i]->tag));
        int r = status_rc(reqs[i]);
        if (r && !rc)
            rc = r;
        core_req_free(reqs[i]);
        reqs[i] = NULL;
    }
    return rc;
}

int coll_sendrecv(const void *sbuf, size_t scount, MPI_Datatype sdt, int dest, void *rbuf,
                  size_t rcount, MPI_Datatype rdt, int src, int tag, MPI_Comm comm)
{
    MPI_Request reqs[2] = { NULL, NULL };
    int rc = coll_irecv(rbuf, rcount, rdt, src, tag, comm, &reqs[0]);
    if (rc)
        return rc;
    rc = coll_isend(sbuf, scount, sdt, dest, tag, comm, &reqs[1]);
    if (rc) {
        /* The receive must not outlive the call: take it back out of matching. */
        reqs[1] = NULL;
        p2p_cancel(reqs[0]);
        coll_waitall(reqs, 1);
        return rc;
    }
    return coll_waitall(reqs, 2);
}
