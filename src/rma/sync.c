/*
 * Epochs: fence, post/start/complete/wait, lock/unlock (and _all), flush.
 * With operations handled at the target, an operation is complete at the
 * target when its REPLY came back, so each closing call waits for the
 * window's pending pieces to the targets it closes, then says so where the
 * other side waits (fence: a barrier; complete: COMPLETE; unlock: UNLOCK,
 * answered once the lock is released, so a following Win_free or lock by
 * another rank finds the target's state settled).
 *
 * Targets reached in place (SHM path) have nothing pending: their
 * operations completed in the calls. Their passive locks are the lock words
 * of the node segment, taken and released here without the target; a
 * release (or a full barrier before fence and complete) publishes this
 * rank's stores before the next holder's accesses.
 */
#include <sched.h>
#include <stdlib.h>
#include "rma/rma.h"
#include "collectives/coll.h"
#include "core/group.h"
#include "core/group_ops.h"
#include "core/progress.h"
#include "core/hot.h"

CORE_HOT int rma_access_ok(MPI_Win win, int r)
{
    const rma_peer_t *p = &win->peers[r];
    return win->fence_open || win->lock_all || (p->lock && p->granted) ||
           (win->access && p->in_access);
}

CORE_HOT int rma_flush(MPI_Win win, int rank)
{
    /* Progress even when nothing is pending: a rank whose targets are all in
     * place (SHM path) or device atomics and that spins on flush, as a
     * Compare_and_swap spin lock does, must still serve the operations other
     * nodes send to it, or the holder of its lock can never release it. One
     * flush in 16 is enough for that: a flush of RDMA operations or of nothing
     * (Put, Get, Fetch_and_op over verbs) otherwise polls only the completion
     * queue it waits on, as perftest does, not every transport. A wait for
     * operations that take messages polls everything anyway (rma_wait_peer). */
    if ((++win->st->flushes & 15) == 0)
        core_progress();
    if (rank >= 0) {
        if (win->peers[rank].pending)   /* not a call for nothing (device atomics) */
            rma_wait_peer(win, rank, "MPI_Win_flush");
    } else {
        for (int r = 0; r < win->size; r++)
            rma_wait_peer(win, r, "MPI_Win_flush_all");
    }
    int rc = win->err;
    win->err = 0;
    return rc;
}

void rma_win_sync(MPI_Win win)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* A rank that polls its window memory with MPI_Win_sync between loads (the unified
     * model's way to wait for a peer's Put, as rdmpi_rma_lat --sync=pingpong does) sees an
     * RDMA write land by itself, but a Put that takes a message (tcp, verbs UD, dynamic
     * windows) lands only when this rank serves it, and its origin's flush waits for that:
     * one call in 256 makes a progress pass. Not more often: over RDMA the pass only
     * delays the load that sees the write (a pass of rc mode under Soft-RoCE takes microseconds,
     * a poll without it tens of nanoseconds). */
    if ((++win->st->syncs & 255) == 0)
        core_progress();
}

int rma_fence(MPI_Win win, int assert)
{
    if (win->access || win->exposure || win->nlocks || win->lock_all)
        return CORE_ERMA_SYNC;
    int rc = rma_flush(win, -1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* Even without preceding operations (MPI_MODE_NOPRECEDE) the barrier orders the
     * local stores before it against the next epoch's accesses. */
    int crc = coll_barrier(win->comm);
    win->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return rc ? rc : crc;
}

/* The window ranks of group's members; CORE_EGROUP when one is not in the window. */
static int group_ranks(MPI_Win win, MPI_Group group, int **out)
{
    int n = group->size;
    int *r = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!r)
        return CORE_ENOMEM;
    for (int i = 0; i < n; i++) {
        int w = group->ranks[i];
        r[i] = w >= 0 && w < win->st->rt->nprocs ? win->rank_of_world[w] : -1;
        if (r[i] < 0) {
            free(r);
            return CORE_EGROUP;
        }
    }
    *out = r;
    return 0;
}

int rma_post(MPI_Win win, MPI_Group group, int assert)
{
    (void)assert;
    if (win->exposure)
        return CORE_ERMA_SYNC;
    int *r, rc = group_ranks(win, group, &r);
    if (rc)
        return rc;
    win->exposure = 1;
    win->completes_due = group->size;
    for (int i = 0; i < group->size && rc == 0; i++) {
        win->peers[r[i]].complete_ok++;
        rc = rma_ctrl_send(win, r[i], RMA_CTRL_POST, 0);
    }
    free(r);
    return rc;
}

int rma_start(MPI_Win win, MPI_Group group, int assert)
{
    (void)assert;
    if (win->access)
        return CORE_ERMA_SYNC;
    int *r, rc = group_ranks(win, group, &r);
    if (rc)
        return rc;
    win->fence_open = 0;
    for (int i = 0; i < group->size; i++) {
        rma_peer_t *p = &win->peers[r[i]];
        if (p->posts == 0) {
            core_wait_ctx_t w;
            core_wait_begin(&w, "MPI_Win_start", NULL);
            while (p->posts == 0)
                core_wait_idle(&w, core_progress());
            core_wait_end(&w);
        }
        p->posts--;
        p->in_access = 1;
    }
    free(r);
    win->access = 1;
    return 0;
}

int rma_complete(MPI_Win win)
{
    if (!win->access)
        return CORE_ERMA_SYNC;
    int rc = 0;
    for (int r = 0; r < win->size; r++) {
        rma_peer_t *p = &win->peers[r];
        if (!p->in_access)
            continue;
        rma_wait_peer(win, r, "MPI_Win_complete");
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        int src = rma_ctrl_send(win, r, RMA_CTRL_COMPLETE, 0);
        rc = rc ? rc : src;
        p->in_access = 0;
    }
    win->access = 0;
    int err = win->err;
    win->err = 0;
    return err ? err : rc;
}

int rma_wait(MPI_Win win, int *flag)
{
    if (!win->exposure)
        return CORE_ERMA_SYNC;
    if (flag) {
        core_progress();
        *flag = win->completes_due == 0;
        if (!*flag)
            return 0;
    } else {
        rma_wait_zero(&win->completes_due, "MPI_Win_wait");
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    win->exposure = 0;
    return 0;
}

/* Whether this rank takes the target's lock on its lock word: a rank of the node with a
 * segment (in place, or its control blocks alone), unless rdmpi_rma_path=message. */
static int lw_usable(MPI_Win win, const rma_peer_t *p)
{
    return p->ctl && !win->force_msg;
}

static int lock_send(MPI_Win win, int type, int rank, int assert)
{
    rma_peer_t *p = &win->peers[rank];
    p->lock = (uint8_t)type;
    p->granted = 0;
    p->nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (p->nocheck) {
        p->granted = 1;
        return 0;
    }
    if (win->dev_atomics) {   /* the target's lock word, by the device */
        int g = rma_dev_lock_try(win, rank, type);
        if (g < 0)
            return g;
        p->granted = (uint8_t)g;
        return 0;
    }
    if (lw_usable(win, p)) {
        p->granted = (uint8_t)rma_lw_try(p->ctl, type);
        return 0;
    }
    int w = type == MPI_LOCK_EXCLUSIVE ? RMA_LOCK_EXCL_W : RMA_LOCK_SHARED_W;
    if (rma_self_lock(win, rank)) {
        rma_lock_request(win, rank, w);   /* granted now, or queued like a message's */
        return 0;
    }
    return rma_ctrl_send(win, rank, RMA_CTRL_LOCK, w);
}

/* Until the lock asked of rank is granted: by a GRANT message, or by taking its lock word
 * (keeping progress going meanwhile: the holder may need our answers to finish). */
static void wait_granted(MPI_Win win, int rank, const char *fn)
{
    rma_peer_t *p = &win->peers[rank];
    if (p->granted)
        return;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, NULL);
    while (!p->granted) {
        int n = core_progress();
        if (win->dev_atomics && !p->nocheck) {
            int g = rma_dev_lock_try(win, rank, p->lock);
            if (g < 0)
                core_fatal("RMA: %s: taking rank %d's lock word failed: %s", fn, rank,
                           core_strerror(g));
            p->granted = (uint8_t)g;
            n = 1;   /* each try was a round trip: never sleep between them */
        } else if (lw_usable(win, p) && !p->nocheck) {
            if (rma_lw_try(p->ctl, p->lock))
                p->granted = 1;
            /* A lock word wakes nobody: never sleep on the transports; let the holder
             * (perhaps on our core) run instead. */
            if (!n)
                sched_yield();
            n = 1;
        }
        core_wait_idle(&w, n);
    }
    core_wait_end(&w);
}

int rma_lock(MPI_Win win, int type, int rank, int assert)
{
    rma_peer_t *p = &win->peers[rank];
    if (p->lock || win->lock_all || win->access)
        return CORE_ERMA_SYNC;
    win->fence_open = 0;   /* another epoch between fences: the fence opened none */
    int rc = lock_send(win, type, rank, assert);
    if (rc)
        return rc;
    win->nlocks++;
    wait_granted(win, rank, "MPI_Win_lock");
    return 0;
}

static int unlock_one(MPI_Win win, int rank, const char *fn)
{
    rma_peer_t *p = &win->peers[rank];
    rma_wait_peer(win, rank, fn);
    int rc = 0;
    if (!p->nocheck && win->dev_atomics) {
        rc = rma_dev_lock_release(win, rank, p->lock);
    } else if (!p->nocheck && lw_usable(win, p)) {
        rma_lw_release(p->ctl, p->lock);
    } else if (!p->nocheck) {
        p->unlocking = 1;
        rc = rma_self_lock(win, rank) ? rma_unlock_request(win, rank)
                                      : rma_ctrl_send(win, rank, RMA_CTRL_UNLOCK, 0);
        if (rc == 0 && p->unlocking) {
            core_wait_ctx_t w;
            core_wait_begin(&w, fn, NULL);
            while (p->unlocking)
                core_wait_idle(&w, core_progress());
            core_wait_end(&w);
        }
    }
    p->lock = 0;
    p->granted = 0;
    p->nocheck = 0;
    return rc;
}

int rma_unlock(MPI_Win win, int rank)
{
    if (!win->peers[rank].lock || win->lock_all)
        return CORE_ERMA_SYNC;
    int rc = unlock_one(win, rank, "MPI_Win_unlock");
    win->nlocks--;
    int err = win->err;
    win->err = 0;
    return err ? err : rc;
}

int rma_lock_all(MPI_Win win, int assert)
{
    if (win->lock_all || win->nlocks || win->access)
        return CORE_ERMA_SYNC;
    win->fence_open = 0;
    int rc = 0;
    for (int r = 0; r < win->size && rc == 0; r++)
        rc = lock_send(win, MPI_LOCK_SHARED, r, assert);
    for (int r = 0; r < win->size; r++)
        if (win->peers[r].lock)
            wait_granted(win, r, "MPI_Win_lock_all");
    win->lock_all = 1;
    return rc;
}

int rma_unlock_all(MPI_Win win)
{
    if (!win->lock_all)
        return CORE_ERMA_SYNC;
    int rc = 0;
    for (int r = 0; r < win->size; r++)
        if (win->peers[r].lock) {
            int urc = unlock_one(win, r, "MPI_Win_unlock_all");
            rc = rc ? rc : urc;
        }
    win->lock_all = 0;
    int err = win->err;
    win->err = 0;
    return err ? err : rc;
}
