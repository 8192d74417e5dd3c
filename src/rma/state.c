/*
 * The RMA layer's state: the window table and the operation table (what
 * peers name by slot and generation), the queue of messages a busy
 * transport did not take yet, and the waits of the RMA calls.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "rt/rt.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/hot.h"

#define GEN_ONE ((uint64_t)1 << 32)

/* Retries queued messages in order; rests once the queue is empty. */
static int rma_hook(void *arg)
{
    core_runtime_t *rt = arg;
    rma_state_t *st = rt ? rt->rma : NULL;
    if (!st)
        return 0;
    int n = 0;
    while (st->q_head) {
        rma_qmsg_t *q = st->q_head;
        tp_ep_t *ep;
        int rc = tp_ep_get(&rt_get()->tp, q->dest, &ep);
        if (rc == 0)
            rc = tp_am_send(ep, q->id, q->data, q->hlen, q->len ? q->data + q->hlen : NULL,
                            q->len);
        if (rc == CORE_EBUSY)
            return n;
        if (rc != 0)
            core_fatal("RMA: cannot send to rank %d: %s", q->dest, core_strerror(rc));
        st->q_head = q->next;
        if (!st->q_head)
            st->q_tail = NULL;
        free(q);
        n++;
    }
    if (st->lock_waiters > 0) {
        for (uint32_t i = 0; i < st->nwins; i++)
            if (st->wins[i].win && st->wins[i].win->lockq_len)
                rma_lock_retry(st->wins[i].win);
        return n;   /* waiters left or not: polled again until the count drops to 0 */
    }
    core_progress_rest(core_rt, st->hook);
    return n;
}

int rma_state_get(core_runtime_t *rt, rma_state_t **st_p)
{
    if (rt->rma) {
        *st_p = rt->rma;
        return 0;
    }
    rma_state_t *st = calloc(1, sizeof(*st));
    if (!st)
        return CORE_ENOMEM;
    st->rt = rt;
    /* Handlers are looked up at dispatch: registering them now, before any window exists
     * anywhere, is early enough (a peer sends only after a creation we take part in). */
    tp_layer_t *tp = &rt_get()->tp;
    tp_am_register(tp, RMA_AM_OP, (tp_am_entry_t){ rma_op_handler, st, NULL, "RMA_OP" });
    tp_am_register(tp, RMA_AM_REPLY, (tp_am_entry_t){ rma_reply_handler, st, NULL, "RMA_REPLY" });
    tp_am_register(tp, RMA_AM_CTRL, (tp_am_entry_t){ rma_ctrl_handler, st, NULL, "RMA_CTRL" });
    /* Hooks are never removed: added once per process, it finds the state through core_rt. */
    if (!rt->rma_hook_added) {
        rt->rma_hook = core_progress_add_hook(rt, rma_hook, rt);
        rt->rma_hook_added = 1;
    }
    st->hook = rt->rma_hook;
    rt->rma = st;
    *st_p = st;
    return 0;
}

void rma_state_free(rma_state_t *st)
{
    if (!st)
        return;
    for (uint32_t i = 0; i < st->noprs; i++)
        free(st->oprs[i]);
    free(st->oprs);
    rma_rdma_free_records(st);
    free(st->wins);
    while (st->q_head) {
        rma_qmsg_t *q = st->q_head;
        st->q_head = q->next;
        free(q);
    }
    for (unsigned id = RMA_AM_OP; id <= RMA_AM_CTRL; id++)
            tp_am_register(&rt_get()->tp, id, (tp_am_entry_t){ 0 });
    free(st);
}

int rma_win_register(rma_state_t *st, MPI_Win win)
{
    uint32_t i = 0;
    while (i < st->nwins && st->wins[i].win)
        i++;
    if (i == st->nwins) {
        void *p = realloc(st->wins, (st->nwins + 8) * sizeof(st->wins[0]));
        if (!p)
            return CORE_ENOMEM;
        st->wins = p;
        memset(&st->wins[st->nwins], 0, 8 * sizeof(st->wins[0]));
        st->nwins += 8;
    }
    st->wins[i].win = win;
    st->wins[i].gen++;
    win->slot = i;
    win->gen = st->wins[i].gen;
    return 0;
}

void rma_win_unregister(rma_state_t *st, MPI_Win win)
{
    st->wins[win->slot].win = NULL;
    st->wins[win->slot].gen++;   /* ids of the old window go stale */
}

MPI_Win rma_win_find(rma_state_t *st, uint32_t slot, uint32_t gen, int src, int *wrank)
{
    if (slot >= st->nwins || !st->wins[slot].win || st->wins[slot].gen != gen)
        return NULL;
    MPI_Win w = st->wins[slot].win;
    if (src < 0 || src >= st->rt->nprocs || w->rank_of_world[src] < 0)
        return NULL;
    *wrank = w->rank_of_world[src];
    return w;
}

rma_opr_t *rma_opr_alloc(rma_state_t *st)
{
    rma_opr_t *o = st->opr_free;
    if (o) {
        st->opr_free = o->next;
    } else {
        if ((st->noprs & (st->noprs - 1)) == 0 || st->noprs == 0) {
            size_t cap = st->noprs ? 2 * (size_t)st->noprs : 16;
            if (cap > UINT32_MAX)
                return NULL;
            void *p = realloc(st->oprs, cap * sizeof(*st->oprs));
            if (!p)
                return NULL;
            st->oprs = p;
        }
        o = calloc(1, sizeof(*o));
        if (!o)
            return NULL;
        o->id = st->noprs;
        st->oprs[st->noprs++] = o;
    }
    uint64_t id = o->id + GEN_ONE;   /* generation becomes odd: in use */
    memset(o, 0, sizeof(*o));
    o->id = id;
    return o;
}

void rma_opr_free(rma_state_t *st, rma_opr_t *o)
{
    uint64_t id = o->id + GEN_ONE;   /* even: free; the id just used goes stale */
    free(o->result);
    memset(o, 0, sizeof(*o));
    o->id = id;
    o->next = st->opr_free;
    st->opr_free = o;
}

rma_opr_t *rma_opr_find(rma_state_t *st, uint64_t id)
{
    uint32_t slot = (uint32_t)id;
    if (slot >= st->noprs || !((id >> 32) & 1))
        return NULL;
    rma_opr_t *o = st->oprs[slot];
    return o->id == id ? o : NULL;
}

int rma_send(rma_state_t *st, int world_dest, unsigned id, const void *hdr, size_t hlen,
             const void *payload, size_t len)
{
    tp_ep_t *ep;
    int rc = tp_ep_get(&rt_get()->tp, world_dest, &ep);
    if (rc)
        return rc;
    if (!st->q_head) {
        rc = tp_am_send(ep, id, hdr, hlen, payload, len);
        if (rc != CORE_EBUSY)
            return rc;
    }
    rma_qmsg_t *q = malloc(sizeof(*q) + hlen + len);
    if (!q)
        return CORE_ENOMEM;
    q->next = NULL;
    q->dest = world_dest;
    q->id = id;
    q->hlen = hlen;
    q->len = len;
    memcpy(q->data, hdr, hlen);
    if (len)
        memcpy(q->data + hlen, payload, len);
    if (st->q_tail)
        st->q_tail->next = q;
    else
        st->q_head = q;
    st->q_tail = q;
    core_progress_wake(core_rt, st->hook);
    return 0;
}

void rma_wait_flag(volatile int *flag, const char *fn)
{
    if (*flag)
        return;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, NULL);
    while (!*flag)
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
}

CORE_HOT void rma_wait_zero(volatile int *count, const char *fn)
{
    if (*count == 0)
        return;
    core_wait_ctx_t w;
    core_wait_begin(&w, fn, NULL);
    while (*count)
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
}

/* Bytes of RDMA in flight to one target from which its wait yields between idle polls: a
 * quarter of a millisecond at 1 GB/s, ~20 us at a 100 Gb/s link (the yield costs <1 us). */
#define RMA_WAIT_YIELD_BYTES (256 * 1024)

CORE_HOT void rma_wait_peer(MPI_Win win, int r, const char *fn)
{
    rma_peer_t *p = &win->peers[r];
    if (p->pending == 0)
        return;
    if (p->pending == p->rdma_pending && p->ep) {
        /* Nothing the target or another transport must do: the completion fires from this
         * transport's progress. Other transports wait for the next call (every flush makes
         * one full pass first, rma_flush). */
        tp_iface_t *f = p->ep->iface;
        unsigned tick = 0;
        core_wait_ctx_t w;
        core_wait_begin(&w, fn, NULL);
        w.nosleep = 1;
        /* Large transfers in flight take a while, and a software device (Soft-RoCE: the
         * kernel's softirq thread on this core) or another rank here may need this core to
         * move them: give it up between idle polls instead of spinning against them. A
         * small operation's completion is polled for without a system call, as perftest
         * does. RDMPI_YIELD=never: never. */
        const core_settings_t *cs = core_rt->settings;
        int yield = p->rdma_bytes >= RMA_WAIT_YIELD_BYTES &&
                    !(cs && cs->yield_mode == CORE_YIELD_NEVER);
        while (p->rdma_pending) {
            int ev = tp_poll_comp(f, &tick);
            if (!ev && yield)
                sched_yield();
            core_wait_idle(&w, ev);
        }
        core_wait_end(&w);
    }
    rma_wait_zero(&p->pending, fn);
}

size_t rma_piece_max(MPI_Win win, int r)
{
    tp_ep_t *ep;
    int world = core_comm_world_rank(win->comm, r);
    size_t cap = 64 * 1024;
    if (tp_ep_get(&rt_get()->tp, world, &ep) == 0 && tp_ep_caps(ep)->max_am < cap)
        cap = tp_ep_caps(ep)->max_am;
    return cap;
}
