/*
 * The request table (see request.h). Requests are recycled through a free
 * list so the hot path of a nonblocking call never reaches malloc after
 * warm-up; the table only grows when the free list is empty.
 */
#include <stdlib.h>
#include <string.h>
#include "core/request.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/runtime.h"

#define TABLE_MIN 64
#define TABLE_MAX ((uint32_t)1 << 31) /* slot numbers stay far from wrapping */

/* Adds one request to the table (the free list was empty). Out of line: core_req_alloc's
 * common case stays a leaf. */
static __attribute__((noinline, cold)) MPI_Request table_grow(core_req_table_t *t)
{
    if (t->nslots == t->cap) {
        if (t->cap >= TABLE_MAX)
            return NULL;
        uint32_t cap = t->cap ? t->cap * 2 : TABLE_MIN;
        MPI_Request *slots = realloc(t->slots, (size_t)cap * sizeof(*slots));
        if (!slots)
            return NULL;
        t->slots = slots;
        t->cap = cap;
    }
    /* From the request handle pool: its memory stays mapped, so core_req_valid can look
     * at a freed or made-up handle without reading freed memory. A table slot is live in
     * the pool for good; its generation says whether a request is in use. */
    MPI_Request req = core_handle_alloc(&core_handles.req, sizeof(*req));
    if (!req)
        return NULL;
    req->id = t->nslots; /* generation 0: free */
    t->slots[t->nslots++] = req;
    return req;
}

MPI_Request core_req_alloc(int kind)
{
    core_req_table_t *t = &core_rt->reqs;
    MPI_Request req = t->free_list;
    if (req)
        t->free_list = req->next;
    else if (!(req = table_grow(t)))
        return NULL;
    memset(req, 0, offsetof(struct rdmpi_request, id));
    req->id += CORE_REQ_GEN_ONE; /* odd: in use */
    req->kind = (uint8_t)kind;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    return req;
}

void core_req_free(MPI_Request req)
{
    core_req_table_t *t = &core_rt->reqs;
    if (req->hook)
        req->hook(req->hook_arg, CORE_REQ_HOOK_FREE);
    if (req->free_fn)
        req->free_fn(req);
    if (req->dt_held || (req->persistent && req->dt))
        core_dt_release(req->dt);
    if (req->persistent) {
        if (req->comm)
            core_comm_release(req->comm);
    }
    req->id += CORE_REQ_GEN_ONE; /* even: free; every id of it is stale now */
    req->next = t->free_list;
    t->free_list = req;
}

void core_req_complete(MPI_Request req)
{
    /* A persistent request stays active until Wait/Test hands out its status. The hook
     * (a binding's copy-back) runs first. Release: under MULTIPLE, the thread waiting for
     * req reads the flag outside the critical section (core_cs_pause) and then the status
     * and the buffer the hook wrote. */
    if (req->hook)
        req->hook(req->hook_arg, CORE_REQ_HOOK_DONE);
    __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    if (req->freed)
        core_req_free(req);
}

void core_req_table_fini(core_req_table_t *t)
{
    for (uint32_t i = 0; i < t->nslots; i++)
        core_handle_free(&core_handles.req, t->slots[i]);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}
