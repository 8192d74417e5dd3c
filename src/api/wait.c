/*
 * Completion calls: the Wait and Test families, request release, status
 * queries and cancel. An inactive persistent request or MPI_REQUEST_NULL
 * completes at once with an empty status.
 *
 * Arguments are checked before anything completes: a negative count is
 * MPI_ERR_COUNT; a request that is neither MPI_REQUEST_NULL nor live (freed,
 * completed and released, or not a request at all) is MPI_ERR_REQUEST, as
 * is a NULL pointer to the one request of Wait/Test/Start/Cancel/
 * Request_free (the request argument itself is unusable); a NULL array of
 * requests (count > 0) or a NULL flag, index, outcount or array of indices
 * is MPI_ERR_ARG, an argument "of some other kind" (MPI-4.1 9.4; MPICH
 * agrees, Open MPI says MPI_ERR_REQUEST for the array). MPI_STATUS_IGNORE
 * and MPI_STATUSES_IGNORE are NULL and always allowed.
 */
#include <stdio.h>
#include "api/api.h"
#include "api/file.h"
#include "api/grequest.h"
#include "core/progress.h"
#include "core/request.h"
#include "p2p/p2p.h"

/* MPI_ERROR is left alone (core_status_out says why). */
static void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->rdmpi_cancelled = 0;
    st->rdmpi_nbytes = 0;
}

/* Null or inactive persistent: nothing to wait for. */
static inline int is_inert(MPI_Request r)
{
    return r == MPI_REQUEST_NULL || (r->persistent && !r->active);
}

/* Hands out a completed request's status and releases it (persistent ones
 * become inactive). Returns the operation's MPI error code. */
static int finish(MPI_Request *rp, MPI_Status *st)
{
    MPI_Request r = *rp;
    if (is_inert(r)) {
        empty_status(st);
        return MPI_SUCCESS;
    }
    if (r->kind == CORE_REQ_GREQ)
        return api_greq_finish(rp, st); /* its query_fn makes the status */
    core_req_status(r, st);
    int err = r->status.MPI_ERROR;
    r->active = 0;
    if (!r->persistent) {
        core_req_free(r);
        *rp = MPI_REQUEST_NULL;
    }
    return err;
}

/* The request pointer of Wait/Test/...: present, and the request null or live. */
static inline int check_one(MPI_Request *req, const char *fn)
{
    if (!req)
        return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn, "the request pointer is NULL");
    return api_check_req(*req, 1, fn);
}

/* The report of check_array (out of line: the checks run on every call). */
static __attribute__((cold, noinline)) int bad_array(int n, MPI_Request reqs[], const char *fn)
{
    API_CHECK(api_check_count(MPI_COMM_NULL, n, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, reqs, "array_of_requests", fn));
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !core_req_valid(reqs[i]))
            return api_error(MPI_COMM_NULL, CORE_EREQUEST, fn,
                             "array_of_requests[%d] = %p is not a live request (freed, "
                             "completed, or not a request)", i, (void *)reqs[i]);
    return 0;
}

/* A count and an array of requests, each null or live. */
CORE_INLINE int check_array(int n, MPI_Request reqs[], const char *fn)
{
    if (n < 0 || (n > 0 && !reqs))
        return bad_array(n, reqs, fn);
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !core_req_valid(reqs[i]))
            return bad_array(n, reqs, fn);
    return 0;
}

/* Who handles a failed request's error: its file (file access) or its communicator.
 * Taken before finish releases the request. */
typedef struct owner {
    MPI_Comm comm;
    MPI_File file;
} owner_t;

static owner_t owner_of(MPI_Request r)
{
    owner_t o = { MPI_COMM_NULL, MPI_FILE_NULL };
    if (r != MPI_REQUEST_NULL) {
        o.comm = r->comm;
        o.file = r->file ? r->file : MPI_FILE_NULL;
    }
    return o;
}

/* Raises err (an MPI error code) on the owner's error handler (MPI-4.1 9.3: a file
 * operation's errors go to the file's handler, also when they surface at completion). */
static int report(owner_t o, int err, const char *fn)
{
    if (o.file != MPI_FILE_NULL) {
        const char *msg = "the file access failed";
        if (err == MPI_ERR_IN_STATUS)
            msg = "at least one operation failed (see the statuses)";
        else if (core_handle_valid(&core_handles.file, o.file) && o.file->last_error[0])
            msg = o.file->last_error;
        char m[sizeof(o.file->last_error)];
        snprintf(m, sizeof(m), "%s", msg);
        if (core_handle_valid(&core_handles.file, o.file))
            o.file->last_error[0] = 0;
        return api_file_raise(o.file, err, fn, m);
    }
    if (err == MPI_ERR_TRUNCATE)
        return api_error(o.comm, CORE_ETRUNC, fn, "a received message was truncated");
    if (err == MPI_ERR_IN_STATUS)
        return api_error(o.comm, CORE_EINSTATUS, fn,
                         "at least one operation failed (see the statuses)");
    return api_raise(o.comm, err, fn, "the operation failed");
}

static int wait_one(MPI_Request *req, MPI_Status *status);
static int test_one(MPI_Request *req, int *flag, MPI_Status *status);
static int wait_all(int n, MPI_Request reqs[], MPI_Status sts[]);

/* Finishes the completed request *rp into st, reporting its error (to the handler of the
 * request's owner, which finish may release) as fn's. */
static int finish_one_call(MPI_Request *rp, MPI_Status *st, const char *fn)
{
    owner_t o = owner_of(*rp);
    int err = finish(rp, st);
    return err == MPI_SUCCESS ? MPI_SUCCESS : report(o, err, fn);
}

/* Wait, Test and Waitall under MULTIPLE from outside G (API_ENTER_P2P): requests that are
 * inert or point-to-point and complete (api_req_done_plain) are handed out without G; Wait
 * and Waitall wait for a point-to-point one without G too, driving the progress engine P
 * outside it (core_wait_req_outside), and Test polls once outside it (core_test_req_outside); any other request, or a wait that needs G after all
 * (a message only a pass inside G may handle), makes the call enter G and run as before
 * (the wait polls there: core_wait_req). */
int PMPI_Wait(MPI_Request *req, MPI_Status *status)
{
    API_ENTER_P2P;
    if (!api_outside())
        return wait_one(req, status);
    API_CHECK(api_check_init("MPI_Wait"));
    API_CHECK(check_one(req, "MPI_Wait"));
    MPI_Request r = *req;
    if (is_inert(r) || api_req_done_plain(r) ||
        (api_req_plain(r) && core_wait_req_outside(r, "MPI_Wait") && api_req_done_plain(r)))
        return finish_one_call(req, status, "MPI_Wait");
    core_cs_enter(&core_rt->cs);
    int rc = wait_one(req, status);
    core_cs_exit(&core_rt->cs);
    return rc;
}
int MPI_Wait(MPI_Request *req, MPI_Status *status) API_ALIAS(MPI_Wait);

int PMPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    API_ENTER_P2P;
    if (!api_outside())
        return test_one(req, flag, status);
    API_CHECK(api_check_init("MPI_Test"));
    API_CHECK(check_one(req, "MPI_Test"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, flag, "flag", "MPI_Test"));
    MPI_Request r = *req;
    if (is_inert(r) || api_req_done_plain(r)) {
        *flag = 1;
        return finish_one_call(req, status, "MPI_Test");
    }
    /* A pass of the engine outside G, as MPI_Wait's, when P is free and the pass leaves
     * nothing for G (core_test_req_outside); else the test polls inside G as before. */
    if (api_req_plain(r) && core_test_req_outside()) {
        if (api_req_done_plain(r)) {
            *flag = 1;
            return finish_one_call(req, status, "MPI_Test");
        }
        *flag = 0;
        return MPI_SUCCESS;
    }
    core_cs_enter(&core_rt->cs);
    int rc = test_one(req, flag, status);
    core_cs_exit(&core_rt->cs);
    return rc;
}
int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) API_ALIAS(MPI_Test);

static int wait_one(MPI_Request *req, MPI_Status *status)
{
    API_CHECK(api_check_init("MPI_Wait"));
    API_CHECK(check_one(req, "MPI_Wait"));
    MPI_Request r = *req;
    if (!is_inert(r))
        core_wait_req(r, "MPI_Wait");
    return finish_one_call(req, status, "MPI_Wait");
}

static int test_one(MPI_Request *req, int *flag, MPI_Status *status)
{
    API_CHECK(api_check_init("MPI_Test"));
    API_CHECK(check_one(req, "MPI_Test"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, flag, "flag", "MPI_Test"));
    MPI_Request r = *req;
    if (!is_inert(r) && !core_req_is_complete(r)) {
        core_progress();
        if (!core_req_is_complete(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_one_call(req, status, "MPI_Test");
}

/* The error bookkeeping of finishing an array of requests one by one (finish_one). */
typedef struct finish_state {
    int any, first;
    owner_t failed;
} finish_state_t;

/* Finishes reqs[i] (completed) into its status: until something fails the codes are all
 * MPI_SUCCESS and stay out of the statuses; from the first failure on they go into them
 * (finish_done sets the earlier ones). */
CORE_INLINE void finish_one(int i, MPI_Request reqs[], MPI_Status sts[], finish_state_t *f)
{
    owner_t r = owner_of(reqs[i]);
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
    int err = finish(&reqs[i], st);
    if (err != MPI_SUCCESS && !f->any) {
        f->any = 1;
        f->first = i;
        f->failed = r;
    }
    if (f->any && st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = err;
}

/* 1 if any failed (the earlier statuses then get MPI_SUCCESS). */
static int finish_done(MPI_Status sts[], const finish_state_t *f)
{
    if (f->any && sts != MPI_STATUSES_IGNORE)
        for (int i = 0; i < f->first; i++)
            sts[i].MPI_ERROR = MPI_SUCCESS;
    return f->any;
}

/* Finishes every completed request of the array into statuses; 1 if any failed. */
static int finish_all(int n, MPI_Request reqs[], MPI_Status sts[], owner_t *failed)
{
    finish_state_t f = { 0, -1, { MPI_COMM_NULL, MPI_FILE_NULL } };
    for (int i = 0; i < n; i++)
        finish_one(i, reqs, sts, &f);
    *failed = f.failed;
    return finish_done(sts, &f);
}

int PMPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    API_ENTER_P2P;
    if (!api_outside())
        return wait_all(n, reqs, sts);
    API_CHECK(api_check_init("MPI_Waitall"));
    API_CHECK(check_array(n, reqs, "MPI_Waitall"));
    int i = 0;
    while (i < n && (is_inert(reqs[i]) || api_req_done_plain(reqs[i]) ||
                     (api_req_plain(reqs[i]) && core_wait_req_outside(reqs[i], "MPI_Waitall") &&
                      api_req_done_plain(reqs[i]))))
        i++;
    if (i < n) {
        core_cs_enter(&core_rt->cs);
        int rc = wait_all(n, reqs, sts);
        core_cs_exit(&core_rt->cs);
        return rc;
    }
    owner_t failed;
    if (finish_all(n, reqs, sts, &failed))
        return report(failed, MPI_ERR_IN_STATUS, "MPI_Waitall");
    return MPI_SUCCESS;
}
int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[]) API_ALIAS(MPI_Waitall);

/* Waitall's common case, before any wait (not under MULTIPLE): the leading requests that
 * completed already (a window of eager sends, receives whose messages came during the
 * posting) and succeeded, point-to-point, not persistent, with nothing to run at their
 * release, handed out and released in one tight pass: their status (but MPI_ERROR, which
 * stays the caller's until something fails) and MPI_REQUEST_NULL. The general loop's
 * bookkeeping was ~30 instructions of each request of an 8-byte window (callgrind,
 * osu_mbw_mr). Returns how many it finished. */
static int finish_plain(int n, MPI_Request reqs[], MPI_Status sts[])
{
    core_req_table_t *t = &core_rt->reqs;
    if (t->shared)
        return 0;
    int i = 0;
    for (; i < n; i++) {
        MPI_Request r = reqs[i];
        if (r == MPI_REQUEST_NULL || !core_req_is_complete(r) ||
            (r->kind != CORE_REQ_SEND && r->kind != CORE_REQ_RECV) || r->persistent ||
            r->dt_held || r->status.MPI_ERROR != MPI_SUCCESS || r->hook || r->free_fn ||
            r->file)
            break;
        if (sts != MPI_STATUSES_IGNORE)
            core_req_status(r, &sts[i]);
        core_req_put(r); /* inline: its conditions, tested above, fold away */
        reqs[i] = MPI_REQUEST_NULL;
    }
    return i;
}

static int wait_all(int n, MPI_Request reqs[], MPI_Status sts[])
{
    API_CHECK(api_check_init("MPI_Waitall"));
    API_CHECK(check_array(n, reqs, "MPI_Waitall"));
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Waitall", NULL);
    /* Each request is finished (status out, released) as soon as it completes, while the
     * later ones may still be on their way: a window of receives does that work between
     * arrivals rather than all of it after the last one. Not under MULTIPLE (the wait hands
     * the section over between requests) and not from a generalized request on (its
     * query_fn is the user's, called after the wait as before). */
    finish_state_t f = { 0, -1, { MPI_COMM_NULL, MPI_FILE_NULL } };
    int done = 0; /* reqs[0 .. done-1] finished */
    int i = 0;
    if (!w.cs)
        done = i = finish_plain(n, reqs, sts);
    for (; i < n; i++) {
        MPI_Request r = reqs[i];
        if (!is_inert(r)) {
            if (w.cs) { /* MULTIPLE: the engine or asleep, request by request (progress.c) */
                core_wait_req(r, "MPI_Waitall");
                continue;
            }
            w.req = r;
            w.done = &r->complete; /* the caller's: nothing frees it before we return */
            while (!core_req_is_complete(r))
                core_wait_idle(&w, core_progress());
        }
        if (done != i || w.cs)
            continue;
        if (r != MPI_REQUEST_NULL && !r->persistent && r->kind != CORE_REQ_GREQ &&
            r->status.MPI_ERROR == MPI_SUCCESS) {
            /* finish_one's common case: a nonpersistent request that succeeded */
            if (sts != MPI_STATUSES_IGNORE) {
                core_req_status(r, &sts[i]);
                if (f.any)
                    sts[i].MPI_ERROR = MPI_SUCCESS;
            }
            core_req_put(r);
            reqs[done++] = MPI_REQUEST_NULL;
        } else if (r == MPI_REQUEST_NULL || r->kind != CORE_REQ_GREQ) {
            finish_one(done++, reqs, sts, &f);
        }
    }
    core_wait_end(&w);
    for (int i = done; i < n; i++)
        finish_one(i, reqs, sts, &f);
    if (finish_done(sts, &f))
        return report(f.failed, MPI_ERR_IN_STATUS, "MPI_Waitall");
    return MPI_SUCCESS;
}

int PMPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Testall"));
    API_CHECK(check_array(n, reqs, "MPI_Testall"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, flag, "flag", "MPI_Testall"));
    core_progress();
    for (int i = 0; i < n; i++)
        if (!is_inert(reqs[i]) && !core_req_is_complete(reqs[i])) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    *flag = 1;
    owner_t failed;
    if (finish_all(n, reqs, sts, &failed))
        return report(failed, MPI_ERR_IN_STATUS, "MPI_Testall");
    return MPI_SUCCESS;
}
int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[]) API_ALIAS(MPI_Testall);

/* Index of a completed active request, MPI_UNDEFINED if none is active, -1 if
 * active ones remain but none completed. */
static int find_done(int n, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < n; i++) {
        if (is_inert(reqs[i]))
            continue;
        active = 1;
        if (core_req_is_complete(reqs[i]))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

int PMPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Waitany"));
    API_CHECK(check_array(n, reqs, "MPI_Waitany"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, index, "index", "MPI_Waitany"));
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Waitany", NULL);
    int i;
    while ((i = find_done(n, reqs)) == -1)
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    *index = i;
    if (i == MPI_UNDEFINED) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    return finish_one_call(&reqs[i], status, "MPI_Waitany");
}
int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status) API_ALIAS(MPI_Waitany);

int PMPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Testany"));
    API_CHECK(check_array(n, reqs, "MPI_Testany"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, index, "index", "MPI_Testany"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, flag, "flag", "MPI_Testany"));
    core_progress();
    int i = find_done(n, reqs);
    *flag = i != -1;
    *index = i == -1 ? MPI_UNDEFINED : i;
    if (i < 0 || i == MPI_UNDEFINED) {
        if (i == MPI_UNDEFINED)
            empty_status(status);
        return MPI_SUCCESS;
    }
    return finish_one_call(&reqs[i], status, "MPI_Testany");
}
int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
    API_ALIAS(MPI_Testany);

/* Finishes every completed request; *outcount MPI_UNDEFINED if none is active. */
static int collect_some(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[],
                        const char *fn)
{
    int active = 0, k = 0, failed = 0, first = 0;
    owner_t bad = { MPI_COMM_NULL, MPI_FILE_NULL };
    for (int i = 0; i < n; i++) {
        if (is_inert(reqs[i]))
            continue;
        active = 1;
        if (!core_req_is_complete(reqs[i]))
            continue;
        owner_t r = owner_of(reqs[i]);
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k];
        int err = finish(&reqs[i], st);
        if (err && !failed) {
            failed = 1;
            bad = r;
            first = k;
        }
        if (failed && st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        idx[k++] = i;
    }
    *outcount = active ? k : MPI_UNDEFINED;
    if (!failed)
        return MPI_SUCCESS;
    if (sts != MPI_STATUSES_IGNORE) /* the statuses before the first failure: see finish_all */
        for (int j = 0; j < first; j++)
            sts[j].MPI_ERROR = MPI_SUCCESS;
    return report(bad, MPI_ERR_IN_STATUS, fn);
}

static int check_some(int n, MPI_Request reqs[], int *outcount, int idx[], const char *fn)
{
    API_CHECK(check_array(n, reqs, fn));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, outcount, "outcount", fn));
    if (n > 0)
        API_CHECK(api_check_ptr(MPI_COMM_NULL, idx, "array_of_indices", fn));
    return 0;
}

int PMPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Waitsome"));
    API_CHECK(check_some(n, reqs, outcount, idx, "MPI_Waitsome"));
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Waitsome", NULL);
    while (find_done(n, reqs) == -1)
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    return collect_some(n, reqs, outcount, idx, sts, "MPI_Waitsome");
}
int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
    API_ALIAS(MPI_Waitsome);

int PMPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Testsome"));
    API_CHECK(check_some(n, reqs, outcount, idx, "MPI_Testsome"));
    core_progress();
    return collect_some(n, reqs, outcount, idx, sts, "MPI_Testsome");
}
int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
    API_ALIAS(MPI_Testsome);

int PMPI_Request_free(MPI_Request *req)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Request_free"));
    API_CHECK(check_one(req, "MPI_Request_free"));
    API_CHECK(api_check_req(*req, 0, "MPI_Request_free"));
    MPI_Request r = *req;
    *req = MPI_REQUEST_NULL;
    if (core_req_is_complete(r) || (r->persistent && !r->active))
        core_req_free(r);
    else
        r->freed = 1;   /* released when it completes */
    return MPI_SUCCESS;
}
int MPI_Request_free(MPI_Request *req) API_ALIAS(MPI_Request_free);

int PMPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Request_get_status"));
    API_CHECK(api_check_req(req, 1, "MPI_Request_get_status"));
    API_CHECK(api_check_ptr(MPI_COMM_NULL, flag, "flag", "MPI_Request_get_status"));
    if (is_inert(req)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!core_req_is_complete(req))
        core_progress();
    *flag = core_req_is_complete(req) != 0;
    if (core_req_is_complete(req) && req->kind == CORE_REQ_GREQ) {
        int err = api_greq_status(req, status);
        return err == MPI_SUCCESS ? err
                                  : api_raise(MPI_COMM_NULL, err, "MPI_Request_get_status",
                                              "the generalized request's query_fn failed");
    }
    if (core_req_is_complete(req))
        core_req_status(req, status);
    return MPI_SUCCESS;
}
int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *status)
    API_ALIAS(MPI_Request_get_status);

/* A posted receive that nothing has matched is cancelled, and so is a send whose
 * message no receive has taken (p2p_cancel: a message that reached the receiver is
 * dropped there, and the send completes once the receiver said so). Anything else
 * completes as if MPI_Cancel had not been called and MPI_Test_cancelled reports
 * false, which MPI permits (either the cancel or the operation succeeds, never
 * both). */
int PMPI_Cancel(MPI_Request *req)
{
    API_ENTER;
    API_CHECK(api_check_init("MPI_Cancel"));
    API_CHECK(check_one(req, "MPI_Cancel"));
    API_CHECK(api_check_req(*req, 0, "MPI_Cancel"));
    if ((*req)->kind == CORE_REQ_GREQ) {
        int err = api_greq_cancel(*req);
        return err == MPI_SUCCESS ? err
                                  : api_raise(MPI_COMM_NULL, err, "MPI_Cancel",
                                              "the generalized request's cancel_fn failed");
    }
    int rc = p2p_cancel(*req);
    if (rc)
        return api_error((*req)->comm, rc, "MPI_Cancel", "%s", core_strerror(rc));
    return MPI_SUCCESS;
}
int MPI_Cancel(MPI_Request *req) API_ALIAS(MPI_Cancel);
