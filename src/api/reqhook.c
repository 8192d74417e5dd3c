/*
 * A binding's hook on a request (core/request.h: core_req_hook_fn). The Fortran glue gives
 * one to a nonblocking or persistent operation whose buffer it copied out of a strided array
 * section: the hook copies the data back when the operation completes and frees the copy
 * with the request.
 */
#include "api/api.h"

int api_req_hook(MPI_Request req, core_req_hook_fn fn, void *arg)
{
    API_ENTER;
    if (!core_req_valid(req) || req->hook)
        return MPI_ERR_REQUEST;
    req->hook = fn;
    req->hook_arg = arg;
    /* done before the hook came (a collective of one rank, or another thread's progress):
     * the caller has not handed the request out yet, so the data goes back now */
    if (!req->persistent && core_req_is_complete(req))
        fn(arg, CORE_REQ_HOOK_DONE);
    return MPI_SUCCESS;
}
