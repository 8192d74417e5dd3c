/*
 * The request pool. Requests are recycled through a free list so the hot
 * path of a nonblocking call never reaches malloc after warm-up.
 */
#include <stdlib.h>
#include <string.h>
#include "core/request.h"
#include "core/comm.h"
#include "core/datatype.h"

static MPI_Request req_free_list;

MPI_Request core_req_alloc(int kind)
{
    MPI_Request req = req_free_list;
    if (req)
        req_free_list = req->next;
    else if (!(req = core_handle_alloc(&core_handles.req, sizeof(*req))))
        return NULL;   /* memory that stays mapped: see core_req_valid */
    memset(req, 0, sizeof(*req));
    req->kind = (uint8_t)kind;
    req->live = 1;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    return req;
}

void core_req_free(MPI_Request req)
{
    if (req->free_fn)
        req->free_fn(req);
    if (req->dt_held || (req->persistent && req->dt))
        core_dt_release(req->dt);
    if (req->persistent) {
        if (req->comm)
            core_comm_release(req->comm);
    }
    req->live = 0;
    req->next = req_free_list;
    req_free_list = req;
}

void core_req_complete(MPI_Request req)
{
    /* A persistent request stays active until Wait/Test hands out its status. */
    req->complete = 1;
    if (req->freed)
        core_req_free(req);
}
