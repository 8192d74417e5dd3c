/*
 * The RMA active-message handlers: OP pieces applied to the window at the
 * target, their REPLYs completing operations at the origin, and the
 * synchronization messages (locks, post/complete). Every field comes from a
 * peer: decoded and checked by wire.c, then against the window (slot and
 * generation, membership of the sender, segments inside the window's
 * memory) and against the receiver's state (a GRANT only for a lock asked,
 * a COMPLETE only after a post to that rank, a REPLY only for an operation
 * to that rank with pieces outstanding, inside its result).
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/op.h"
#include "core/progress.h"

static int reject(rma_state_t *st, const char *what)
{
    return core_wire_reject(st->rt, "%s", what);
}

int rma_op_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                   size_t len)
{
    rma_state_t *st = arg;
    rma_op_msg_t m;
    int wrank;
    if (rma_wire_op_decode(hdr, hdr_len, payload, len, &m, st->why, sizeof(st->why)))
        return reject(st, st->why);
    MPI_Win win = rma_win_find(st, m.h.win, m.h.gen, src, &wrank);
    if (!win)
        return core_wire_reject(st->rt, "RMA OP for window %u.%u, not one rank %d shares",
                                m.h.win, m.h.gen, src);
    rma_reply_hdr_t r = { m.h.op, m.h.off, 0, RMA_ST_OK, 0 };
    uint8_t *out = NULL;
    if (rma_apply_check(win, &m, st->why, sizeof(st->why))) {
        /* The origin checks against the sizes it knows; only attached memory of a dynamic
         * window can change under it, and that is the program's error, not a forgery. */
        if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
            return reject(st, st->why);
        r.status = RMA_ST_RANGE;
    } else {
        int fetch = m.h.kind == RMA_GET || m.h.kind == RMA_GACC || m.h.kind == RMA_CAS;
        if (fetch) {
            out = malloc(m.h.len ? m.h.len : 1);
            if (!out)
                core_fatal("RMA: out of memory answering rank %d", src);
            r.len = m.h.len;
        }
        int rc = rma_apply(win, &m, out);
        if (rc)
            core_fatal("RMA: cannot apply an operation from rank %d: %s", src,
                       core_strerror(rc));
    }
    int rc = rma_send(st, src, RMA_AM_REPLY, &r, sizeof(r), out, r.len);
    free(out);
    if (rc)
        core_fatal("RMA: cannot answer rank %d: %s", src, core_strerror(rc));
    return 0;
}

int rma_reply_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                      size_t len)
{
    rma_state_t *st = arg;
    rma_reply_hdr_t r;
    if (rma_wire_reply_decode(hdr, hdr_len, len, &r, st->why, sizeof(st->why)))
        return reject(st, st->why);
    rma_opr_t *o = rma_opr_find(st, r.op);
    if (!o || o->left <= 0 || core_comm_world_rank(o->win->comm, o->target) != src)
        return core_wire_reject(st->rt, "RMA REPLY for operation %llx, not one rank %d has "
                                "pending", (unsigned long long)r.op, src);
    if (r.len && (!o->result || r.off > o->result_len || r.len > o->result_len - r.off))
        return core_wire_reject(st->rt, "RMA REPLY of %llu bytes at %llu for a result of %zu",
                                (unsigned long long)r.len, (unsigned long long)r.off,
                                o->result ? o->result_len : 0);
    if (r.len)
        memcpy(o->result + r.off, payload, r.len);
    if (r.status != RMA_ST_OK)
        o->status = (int)r.status;
    o->win->peers[o->target].pending--;
    if (--o->left == 0)
        rma_opr_done(st, o);
    return 0;
}

int rma_ctrl_send(MPI_Win win, int r, int type, int arg)
{
    rma_ctrl_hdr_t c = { win->peers[r].slot, win->peers[r].gen, win->slot, win->gen,
                         (uint8_t)type, (uint8_t)arg, { 0 } };
    return rma_send(win->st, core_comm_world_rank(win->comm, r), RMA_AM_CTRL, &c, sizeof(c),
                    NULL, 0);
}

static void grant(MPI_Win win, int r, int type)
{
    win->peers[r].held = (uint8_t)type;
    if (type == RMA_LOCK_EXCL_W)
        win->excl = r;
    else
        win->nshared++;
    if (rma_self_lock(win, r)) {
        win->peers[r].granted = 1;   /* this rank asked: no message to itself */
        return;
    }
    int rc = rma_ctrl_send(win, r, RMA_CTRL_GRANT, 0);
    if (rc)
        core_fatal("RMA: cannot grant a lock to rank %d: %s", r, core_strerror(rc));
}

/* Whether a lock of type can be granted now. A window in a node segment keeps its lock in
 * the lock word, which the node's ranks take directly: a message request takes it here
 * for the asker (so a 1 means it is now held). */
static int grantable(MPI_Win win, int type)
{
    if (win->ctl)
        return rma_lw_try(win->ctl, type == RMA_LOCK_EXCL_W ? MPI_LOCK_EXCLUSIVE
                                                              : MPI_LOCK_SHARED);
    if (win->excl >= 0)
        return 0;
    return type == RMA_LOCK_SHARED_W || win->nshared == 0;
}

/* Grants waiting requests in arrival order, as many as the lock allows. */
static void grant_waiting(MPI_Win win)
{
    while (win->lockq_len > 0) {
        int r = win->lockq[win->lockq_head];
        int type = win->peers[r].queued;
        if (!grantable(win, type))
            return;
        win->lockq_head = (win->lockq_head + 1) % win->size;
        win->lockq_len--;
        if (win->ctl)
            win->st->lock_waiters--;
        win->peers[r].queued = 0;
        grant(win, r, type);
    }
}

void rma_lock_request(MPI_Win win, int r, int type)
{
    if (win->lockq_len == 0 && grantable(win, type)) {
        grant(win, r, type);
        return;
    }
    win->peers[r].queued = (uint8_t)type;
    win->lockq[(win->lockq_head + win->lockq_len) % win->size] = r;
    win->lockq_len++;
    if (win->ctl) {
        /* the lock word frees without a message: the progress hook polls it */
        win->st->lock_waiters++;
        core_progress_wake(core_rt, win->st->hook);
    }
}

void rma_lock_retry(MPI_Win win)
{
    grant_waiting(win);
}

int rma_unlock_request(MPI_Win win, int r)
{
    if (win->ctl)
        rma_lw_release(win->ctl, win->peers[r].held == RMA_LOCK_EXCL_W ? MPI_LOCK_EXCLUSIVE
                                                                       : MPI_LOCK_SHARED);
    else if (win->peers[r].held == RMA_LOCK_EXCL_W)
        win->excl = -1;
    else
        win->nshared--;
    win->peers[r].held = 0;
    grant_waiting(win);
    if (rma_self_lock(win, r)) {
        win->peers[r].unlocking = 0;
        return 0;
    }
    return rma_ctrl_send(win, r, RMA_CTRL_UNLOCKED, 0);
}

int rma_ctrl_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                     size_t len)
{
    rma_state_t *st = arg;
    rma_ctrl_hdr_t c;
    int r;
    (void)payload;
    if (rma_wire_ctrl_decode(hdr, hdr_len, len, &c, st->why, sizeof(st->why)))
        return reject(st, st->why);
    MPI_Win win = rma_win_find(st, c.win, c.gen, src, &r);
    if (!win)
        return core_wire_reject(st->rt, "RMA CTRL %u for window %u.%u, not one rank %d shares",
                                c.type, c.win, c.gen, src);
    rma_peer_t *p = &win->peers[r];
    if (c.type == RMA_CTRL_LOCK || c.type == RMA_CTRL_UNLOCK) {
        /* The answer names the sender's window as the sender says (the same the creation's
         * allgather brings, which may not have finished here yet): only the sender's own
         * messages can be misdirected by a wrong value. */
        p->slot = c.rwin;
        p->gen = c.rgen;
    }
    switch (c.type) {
    case RMA_CTRL_LOCK:
        if (p->held || p->queued || rma_self_lock(win, r))
            return core_wire_reject(st->rt, "RMA LOCK from rank %d, which holds or awaits it",
                                    src);
        rma_lock_request(win, r, c.arg);
        return 0;
    case RMA_CTRL_UNLOCK:
        if (!p->held)
            return core_wire_reject(st->rt, "RMA UNLOCK from rank %d, which holds no lock", src);
        if (rma_unlock_request(win, r))
            core_fatal("RMA: cannot answer an unlock of rank %d", src);
        return 0;
    case RMA_CTRL_GRANT:
        if (!p->lock || p->granted || p->nocheck)
            return core_wire_reject(st->rt, "RMA GRANT from rank %d, not asked", src);
        p->granted = 1;
        return 0;
    case RMA_CTRL_UNLOCKED:
        if (!p->unlocking)
            return core_wire_reject(st->rt, "RMA UNLOCKED from rank %d, not asked", src);
        p->unlocking = 0;
        return 0;
    case RMA_CTRL_POST:
        if (p->posts > 1 << 20)
            return core_wire_reject(st->rt, "RMA POST flood from rank %d", src);
        p->posts++;
        return 0;
    case RMA_CTRL_COMPLETE:
        if (p->complete_ok <= 0)
            return core_wire_reject(st->rt, "RMA COMPLETE from rank %d, not posted to", src);
        p->complete_ok--;
        win->completes_due--;
        return 0;
    }
    return reject(st, "RMA CTRL of unknown type");
}
