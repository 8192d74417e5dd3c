/*
 * MPI entry points of one-sided operations (Put, Get, the accumulates and
 * their request forms) and of window synchronization.
 */
#include <string.h>
#include "api/win.h"
#include "core/hot.h"

static CORE_HOT int op_checks(MPI_Win win, const void *buf, int count, MPI_Datatype dt, int target,
                     int tcount, MPI_Datatype tdt, const char *fn)
{
    API_CHECK(api_check_init(fn));
    API_CHECK(api_check_win(win, fn));
    if (count < 0 || tcount < 0)
        return api_win_error(win, CORE_ECOUNT, fn, "negative count");
    if (dt && !(core_handle_valid(&core_handles.dt, dt) && (dt->flags & CORE_DT_COMMITTED)))
        return api_win_error(win, CORE_ETYPE, fn, "invalid or uncommitted origin datatype");
    if (!(core_handle_valid(&core_handles.dt, tdt) && (tdt->flags & CORE_DT_COMMITTED)))
        return api_win_error(win, CORE_ETYPE, fn, "invalid or uncommitted target datatype");
    /* one-sided and file views walk a type's run list: a tiled type (a vector of more
     * than CORE_DT_MAX_RUNS blocks) moves only through p2p and collectives */
    if ((dt && core_dt_ntile(dt) > 1) || core_dt_ntile(tdt) > 1)
        return api_win_error(win, CORE_EUNSUPPORTED, fn, "a datatype of more than %zu separate "
                             "blocks is not supported in one-sided communication", CORE_DT_MAX_RUNS);
    (void)buf;
    return api_check_win_rank(win, target, 1, fn);
}

static int run(MPI_Win win, const rma_args_t *a, MPI_Request *req, const char *fn)
{
    int rc = rma_op_start(win, a, req);
    if (rc == CORE_ERMA_SYNC)
        return api_win_error(win, rc, fn, "no access epoch to rank %d is open", a->target);
    if (rc == CORE_ERMA_RANGE)
        return api_win_error(win, rc, fn, "target memory (displacement %ld, %d items) is outside "
                             "rank %d's window", (long)a->tdisp, a->tcount, a->target);
    if (rc)
        return api_win_error(win, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}

static CORE_HOT int put_get(int kind, const void *obuf, int ocount, MPI_Datatype odt, int target,
                   MPI_Aint tdisp, int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req,
                   const char *fn)
{
    API_CHECK(op_checks(win, obuf, ocount, odt, target, tcount, tdt, fn));
    if (req == (MPI_Request *)-1) {
        /* a Put or Get of one run within the node: one copy, no argument record (not tried
         * for an RDMA target: its fast path is next, and under Soft-RoCE every instruction
         * of the origin's is in the latency) */
        if ((target < 0 || win->peers[target].path != RMA_PATH_RDMA) &&
            rma_shm_fast(win, kind == RMA_PUT, (void *)obuf, ocount, odt, target, tdisp, tcount,
                         tdt) == 0)
            return MPI_SUCCESS;
        /* ... or one RDMA write or read started (complete at the next flush) */
        int rc = rma_rdma_fast(win, kind == RMA_PUT, (void *)obuf, ocount, odt, target, tdisp,
                               tcount, tdt);
        if (rc != CORE_EUNSUPPORTED)
            return rc ? api_win_error(win, rc, fn, "%s", core_strerror(rc)) : MPI_SUCCESS;
        req = NULL;
    } else if (!req) {
        return api_win_error(win, CORE_EINVAL, fn, "request is NULL");
    }
    rma_args_t a = { .kind = kind, .target = target, .tdisp = tdisp, .tcount = tcount,
                     .tdt = tdt };
    if (kind == RMA_PUT) {
        a.obuf = obuf;
        a.ocount = ocount;
        a.odt = odt;
    } else {
        a.rbuf = (void *)obuf;
        a.rcount = ocount;
        a.rdt = odt;
    }
    return run(win, &a, req, fn);
}

#define NOREQ ((MPI_Request *)-1)

int PMPI_Put(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
             int tcount, MPI_Datatype tdt, MPI_Win win)
{
    API_ENTER;
    return put_get(RMA_PUT, obuf, ocount, odt, target, tdisp, tcount, tdt, win, NOREQ, "MPI_Put");
}
int MPI_Put(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
            int tcount, MPI_Datatype tdt, MPI_Win win) API_ALIAS(MPI_Put);

int PMPI_Get(void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype tdt, MPI_Win win)
{
    API_ENTER;
    return put_get(RMA_GET, obuf, ocount, odt, target, tdisp, tcount, tdt, win, NOREQ, "MPI_Get");
}
int MPI_Get(void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp, int tcount,
            MPI_Datatype tdt, MPI_Win win) API_ALIAS(MPI_Get);

int PMPI_Rput(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
              int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req)
{
    API_ENTER;
    return put_get(RMA_PUT, obuf, ocount, odt, target, tdisp, tcount, tdt, win, req, "MPI_Rput");
}
int MPI_Rput(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
             int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req) API_ALIAS(MPI_Rput);

int PMPI_Rget(void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp, int tcount,
              MPI_Datatype tdt, MPI_Win win, MPI_Request *req)
{
    API_ENTER;
    return put_get(RMA_GET, obuf, ocount, odt, target, tdisp, tcount, tdt, win, req, "MPI_Rget");
}
int MPI_Rget(void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype tdt, MPI_Win win, MPI_Request *req) API_ALIAS(MPI_Rget);

static int acc(const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
               MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount, MPI_Datatype tdt,
               MPI_Op op, MPI_Win win, int fetch, MPI_Request *req, const char *fn)
{
    int no_op = op == MPI_NO_OP;
    API_CHECK(op_checks(win, obuf, ocount, fetch && no_op ? NULL : odt, target, tcount, tdt, fn));
    if (fetch && !(core_handle_valid(&core_handles.dt, rdt) && (rdt->flags & CORE_DT_COMMITTED)))
        return api_win_error(win, CORE_ETYPE, fn, "invalid or uncommitted result datatype");
    if (fetch && core_dt_ntile(rdt) > 1)
        return api_win_error(win, CORE_EUNSUPPORTED, fn, "a result datatype of more than %zu "
                             "separate blocks is not supported", CORE_DT_MAX_RUNS);
    if (fetch && rcount < 0)
        return api_win_error(win, CORE_ECOUNT, fn, "negative result count");
    if (!core_handle_valid(&core_handles.op, op))
        return api_win_error(win, CORE_EOP, fn, "invalid op");
    /* one element fetched by one device atomic (MPI_Fetch_and_op's case), complete now */
    if (req == NOREQ && fetch && ocount == 1 && rcount == 1 && tcount == 1 && rdt == tdt &&
        (no_op || odt == tdt) &&
        rma_dev_fast(win, obuf, NULL, rbuf, tdt, target, tdisp, op) == 0)
        return MPI_SUCCESS;
    /* ... or done in place on a node rank's shared window memory, complete now */
    if (req == NOREQ && rma_shm_acc_fast(win, obuf, ocount, odt, rbuf, rcount, rdt, target,
                                         tdisp, tcount, tdt, op) == 0)
        return MPI_SUCCESS;
    if (req == NOREQ)
        req = NULL;
    else if (!req)
        return api_win_error(win, CORE_EINVAL, fn, "request is NULL");
    rma_args_t a = { .kind = fetch ? RMA_GACC : RMA_ACC, .obuf = obuf, .ocount = ocount,
                     .odt = fetch && no_op ? NULL : odt, .rbuf = rbuf, .rcount = rcount,
                     .rdt = fetch ? rdt : NULL, .target = target, .tdisp = tdisp,
                     .tcount = tcount, .tdt = tdt, .op = op };
    if (!fetch && no_op)
        a.odt = odt;
    return run(win, &a, req, fn);
}

int PMPI_Accumulate(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
                    int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    API_ENTER;
    return acc(obuf, ocount, odt, NULL, 0, NULL, target, tdisp, tcount, tdt, op, win, 0, NOREQ,
               "MPI_Accumulate");
}
int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
                   int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
    API_ALIAS(MPI_Accumulate);

int PMPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
                     int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    API_ENTER;
    return acc(obuf, ocount, odt, NULL, 0, NULL, target, tdisp, tcount, tdt, op, win, 0, req,
               "MPI_Raccumulate");
}
int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
                    int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *req)
    API_ALIAS(MPI_Raccumulate);

int PMPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
                        MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                        MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    API_ENTER;
    return acc(obuf, ocount, odt, rbuf, rcount, rdt, target, tdisp, tcount, tdt, op, win, 1,
               NOREQ, "MPI_Get_accumulate");
}
int MPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
                       MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                       MPI_Datatype tdt, MPI_Op op, MPI_Win win) API_ALIAS(MPI_Get_accumulate);

int PMPI_Rget_accumulate(const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                         MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    API_ENTER;
    return acc(obuf, ocount, odt, rbuf, rcount, rdt, target, tdisp, tcount, tdt, op, win, 1, req,
               "MPI_Rget_accumulate");
}
int MPI_Rget_accumulate(const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
                        MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                        MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *req)
    API_ALIAS(MPI_Rget_accumulate);

int PMPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target, MPI_Aint tdisp,
                      MPI_Op op, MPI_Win win)
{
    API_ENTER;
    /* A device atomic needs a predefined type (valid and committed, one block) and a valid
     * op: what acc() checks, here once, so the one-word case costs one work request and
     * little more (under Soft-RoCE ~100 of its ~1300 instructions were acc's checks) */
    if (api_initialized && !api_finalized && core_handle_valid(&core_handles.win, win) &&
        target >= 0 && target < win->size && core_handle_valid(&core_handles.dt, dt) &&
        (dt->flags & CORE_DT_PREDEFINED) &&
        (op == MPI_SUM || op == MPI_NO_OP || op == MPI_REPLACE) &&
        ((op != MPI_REPLACE && rma_dev_fast(win, obuf, NULL, rbuf, dt, target, tdisp, op) == 0) ||
         rma_shm_fop_fast(win, obuf, NULL, rbuf, dt, target, tdisp, op) == 0))
        return MPI_SUCCESS;
    return acc(obuf, 1, dt, rbuf, 1, dt, target, tdisp, 1, dt, op, win, 1, NOREQ,
               "MPI_Fetch_and_op");
}
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target, MPI_Aint tdisp,
                     MPI_Op op, MPI_Win win) API_ALIAS(MPI_Fetch_and_op);

int PMPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                          int target, MPI_Aint tdisp, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Compare_and_swap";
    API_CHECK(op_checks(win, obuf, 1, dt, target, 1, dt, fn));
    if (!(dt->flags & CORE_DT_PREDEFINED))
        return api_win_error(win, CORE_ETYPE, fn, "the datatype must be predefined");
    if (rma_dev_fast(win, obuf, cbuf, rbuf, dt, target, tdisp, MPI_OP_NULL) == 0 ||
        rma_shm_fop_fast(win, obuf, cbuf, rbuf, dt, target, tdisp, MPI_OP_NULL) == 0)
        return MPI_SUCCESS;
    rma_args_t a = { .kind = RMA_CAS, .obuf = obuf, .ocount = 1, .odt = dt, .cbuf = cbuf,
                     .rbuf = rbuf, .rcount = 1, .rdt = dt, .target = target, .tdisp = tdisp,
                     .tcount = 1, .tdt = dt };
    return run(win, &a, NULL, fn);
}
int MPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                         int target, MPI_Aint tdisp, MPI_Win win) API_ALIAS(MPI_Compare_and_swap);

/* ---- synchronization ---------------------------------------------------------------- */

static CORE_HOT int sync_result(MPI_Win win, int rc, const char *fn)
{
    if (rc == CORE_ERMA_SYNC)
        return api_win_error(win, rc, fn, "not allowed in the window's current epoch");
    if (rc)
        return api_win_error(win, rc, fn, "%s", core_strerror(rc));
    return MPI_SUCCESS;
}

#define WIN_ENTRY(fn)                     \
    API_CHECK(api_check_init(fn));        \
    API_CHECK(api_check_win(win, fn))

static int check_assert(MPI_Win win, int assert, const char *fn)
{
    int all = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
              MPI_MODE_NOSUCCEED;
    if (assert & ~all)
        return api_win_error(win, CORE_EASSERT, fn, "invalid assert %#x", assert);
    return 0;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_fence";
    WIN_ENTRY(fn);
    API_CHECK(check_assert(win, assert, fn));
    return sync_result(win, rma_fence(win, assert), fn);
}
int MPI_Win_fence(int assert, MPI_Win win) API_ALIAS(MPI_Win_fence);

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_post";
    WIN_ENTRY(fn);
    API_CHECK(api_check_group(group, fn));
    API_CHECK(check_assert(win, assert, fn));
    return sync_result(win, rma_post(win, group, assert), fn);
}
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) API_ALIAS(MPI_Win_post);

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_start";
    WIN_ENTRY(fn);
    API_CHECK(api_check_group(group, fn));
    API_CHECK(check_assert(win, assert, fn));
    return sync_result(win, rma_start(win, group, assert), fn);
}
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) API_ALIAS(MPI_Win_start);

int PMPI_Win_complete(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_complete";
    WIN_ENTRY(fn);
    return sync_result(win, rma_complete(win), fn);
}
int MPI_Win_complete(MPI_Win win) API_ALIAS(MPI_Win_complete);

int PMPI_Win_wait(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_wait";
    WIN_ENTRY(fn);
    return sync_result(win, rma_wait(win, NULL), fn);
}
int MPI_Win_wait(MPI_Win win) API_ALIAS(MPI_Win_wait);

int PMPI_Win_test(MPI_Win win, int *flag)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_test";
    WIN_ENTRY(fn);
    if (!flag)
        return api_win_error(win, CORE_EINVAL, fn, "flag is NULL");
    return sync_result(win, rma_wait(win, flag), fn);
}
int MPI_Win_test(MPI_Win win, int *flag) API_ALIAS(MPI_Win_test);

int PMPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_lock";
    WIN_ENTRY(fn);
    if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
        return api_win_error(win, CORE_ELOCKTYPE, fn, "lock type %d", type);
    API_CHECK(api_check_win_rank(win, rank, 1, fn));
    API_CHECK(check_assert(win, assert, fn));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return sync_result(win, rma_lock(win, type, rank, assert), fn);
}
int MPI_Win_lock(int type, int rank, int assert, MPI_Win win) API_ALIAS(MPI_Win_lock);

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_unlock";
    WIN_ENTRY(fn);
    API_CHECK(api_check_win_rank(win, rank, 1, fn));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return sync_result(win, rma_unlock(win, rank), fn);
}
int MPI_Win_unlock(int rank, MPI_Win win) API_ALIAS(MPI_Win_unlock);

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_lock_all";
    WIN_ENTRY(fn);
    API_CHECK(check_assert(win, assert, fn));
    return sync_result(win, rma_lock_all(win, assert), fn);
}
int MPI_Win_lock_all(int assert, MPI_Win win) API_ALIAS(MPI_Win_lock_all);

int PMPI_Win_unlock_all(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_unlock_all";
    WIN_ENTRY(fn);
    return sync_result(win, rma_unlock_all(win), fn);
}
int MPI_Win_unlock_all(MPI_Win win) API_ALIAS(MPI_Win_unlock_all);

/* Flushes need a passive-target epoch with the rank (or any, for the _all forms). The
 * local forms wait for the same answers: remote completion implies local completion. */
static CORE_HOT int flush(MPI_Win win, int rank, const char *fn)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank >= 0 ? !(win->lock_all || win->peers[rank].lock)
                  : !(win->lock_all || win->nlocks))
        return api_win_error(win, CORE_ERMA_SYNC, fn, "no passive-target epoch is open");
    return sync_result(win, rma_flush(win, rank), fn);
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_flush";
    WIN_ENTRY(fn);
    API_CHECK(api_check_win_rank(win, rank, 1, fn));
    return flush(win, rank, fn);
}
int MPI_Win_flush(int rank, MPI_Win win) API_ALIAS(MPI_Win_flush);

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_flush_local";
    WIN_ENTRY(fn);
    API_CHECK(api_check_win_rank(win, rank, 1, fn));
    return flush(win, rank, fn);
}
int MPI_Win_flush_local(int rank, MPI_Win win) API_ALIAS(MPI_Win_flush_local);

int PMPI_Win_flush_all(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_flush_all";
    WIN_ENTRY(fn);
    return flush(win, -1, fn);
}
int MPI_Win_flush_all(MPI_Win win) API_ALIAS(MPI_Win_flush_all);

int PMPI_Win_flush_local_all(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_flush_local_all";
    WIN_ENTRY(fn);
    return flush(win, -1, fn);
}
int MPI_Win_flush_local_all(MPI_Win win) API_ALIAS(MPI_Win_flush_local_all);

/* The window memory is the one copy (MPI_WIN_UNIFIED): a full memory barrier orders this
 * process's loads and stores against the other ranks' (shared windows); rma_win_sync also
 * serves peers' messages now and then, for ranks that poll their memory with it. */
int PMPI_Win_sync(MPI_Win win)
{
    API_ENTER;
    static const char fn[] = "MPI_Win_sync";
    WIN_ENTRY(fn);
    rma_win_sync(win);
    return MPI_SUCCESS;
}
int MPI_Win_sync(MPI_Win win) API_ALIAS(MPI_Win_sync);
