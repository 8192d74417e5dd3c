/*
 * Generalized requests (MPI-3.1 12.2): MPI_Grequest_start and
 * MPI_Grequest_complete. The request is an ordinary one of kind
 * CORE_REQ_GREQ, so every completion call accepts it; its state (the three
 * callbacks and extra_state) hangs off req->sched and is freed by the
 * request's free_fn, which core_req_free always runs. The callbacks fire
 * where the standard says:
 * - query_fn: in the Wait/Test call that completes the request
 *   (api_greq_finish, from wait.c's finish), and in MPI_Request_get_status
 *   once the request is complete;
 * - free_fn: right after query_fn in that Wait/Test call; or, for a
 *   request given up with MPI_Request_free, in MPI_Request_free or in
 *   MPI_Grequest_complete, whichever comes last (core_req_free then runs
 *   free_hook). It runs exactly once either way;
 * - cancel_fn: in MPI_Cancel, with complete telling whether
 *   MPI_Grequest_complete has been called.
 * No progress is made on the user's behalf: the request completes only when
 * the user calls MPI_Grequest_complete (from another thread, or before
 * waiting).
 */
#include <stdlib.h>
#include "api/api.h"
#include "api/grequest.h"

typedef struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int freed;   /* free_fn has run */
} greq_t;

static int run_free(greq_t *g)
{
    if (g->freed)
        return MPI_SUCCESS;
    g->freed = 1;
    return g->free ? g->free(g->extra) : MPI_SUCCESS;
}

/* free_fn of the request (core_req_free): the user's free_fn if it has not
 * run yet (MPI_Request_free came first), then the state. */
static void free_hook(MPI_Request r)
{
    greq_t *g = r->sched;
    if (!g)
        return;
    run_free(g);
    free(g);
    r->sched = NULL;
}

/* The status query_fn fills: empty, as after a receive of nothing. */
static void blank(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->rdmpi_cancelled = 0;
    st->rdmpi_nbytes = 0;
}

/* MPI_ERROR is the caller's (core_status_out): the query_fn's result is returned, and
 * the multiple-completion calls put it in the status when they fail. */
static int run_query(greq_t *g, MPI_Status *st)
{
    blank(st);
    return g->query ? g->query(g->extra, st) : MPI_SUCCESS;
}

int api_greq_finish(MPI_Request *rp, MPI_Status *st)
{
    MPI_Request r = *rp;
    greq_t *g = r->sched;
    MPI_Status scratch;
    int err = run_query(g, st != MPI_STATUS_IGNORE ? st : &scratch);
    int ferr = run_free(g);
    core_req_free(r);
    *rp = MPI_REQUEST_NULL;
    return err != MPI_SUCCESS ? err : ferr;
}

int api_greq_status(MPI_Request r, MPI_Status *st)
{
    MPI_Status scratch;
    return run_query(r->sched, st != MPI_STATUS_IGNORE ? st : &scratch);
}

int api_greq_cancel(MPI_Request r)
{
    greq_t *g = r->sched;
    return g->cancel ? g->cancel(g->extra, core_req_is_complete(r) != 0) : MPI_SUCCESS;
}

RDMPI_API int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                                  MPI_Grequest_free_function *free_fn,
                                  MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                  MPI_Request *request)
{
    API_ENTER;
    static const char fn[] = "MPI_Grequest_start";
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, request, "request", fn));
    greq_t *g = calloc(1, sizeof(*g));
    MPI_Request r = g ? core_req_alloc(CORE_REQ_GREQ) : NULL;
    if (!r) {
        free(g);
        return api_error(MPI_COMM_NULL, CORE_ENOMEM, fn, "out of memory");
    }
    *g = (greq_t){ query_fn, free_fn, cancel_fn, extra_state, 0 };
    r->sched = g;
    r->free_fn = free_hook;
    *request = r;
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                                 MPI_Grequest_free_function *free_fn,
                                 MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                 MPI_Request *request) API_ALIAS(MPI_Grequest_start);

/* A generalized request not yet released: live, or given up with
 * MPI_Request_free and waiting for this call (core_req_valid refuses those,
 * but the user may still complete them). Never reads *r unless r is a slot
 * of the request memory. */
static int greq_pending(MPI_Request r)
{
    return core_handle_in_slabs(&core_handles.req, (uintptr_t)r) &&
           (r->id & CORE_REQ_GEN_ONE) && r->kind == CORE_REQ_GREQ && !core_req_is_complete(r);
}

RDMPI_API int PMPI_Grequest_complete(MPI_Request request)
{
    API_ENTER;
    static const char fn[] = "MPI_Grequest_complete";
    API_CHECK(api_check_init(fn));
    if (!greq_pending(request))
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn,
                         "%p is not a generalized request that is still incomplete",
                         (void *)request);
    core_req_complete(request); /* runs free_fn now if MPI_Request_free came first */
    return MPI_SUCCESS;
}
RDMPI_API int MPI_Grequest_complete(MPI_Request request) API_ALIAS(MPI_Grequest_complete);
