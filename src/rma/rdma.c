/*
 * The RDMA path: Put and Get straight into and out of a target's window
 * over a transport that reads and writes registered remote memory (verbs),
 * without the target's CPU.
 *
 * At creation each rank registers its window memory with that transport
 * (through its registration cache, like a rendezvous buffer) and puts the
 * remote key in its window card; rma_rdma_usable then picks this path for
 * each target whose card has a key and that the transport reaches. A peer's
 * key and base address are untrusted: the origin checked the operation's
 * segment against the size the target advertised (origin.c's flatten)
 * before it gets here, the base address is only ever the remote address of
 * an RDMA (the target's NIC checks it against the key's registration), and
 * the key is opaque bytes the transport interprets.
 *
 * Carried here: a PUT or GET whose target memory is one run and whose
 * origin buffer is contiguous; the commonest, one run to one run, comes
 * straight from the MPI call (rma_rdma_fast: no argument record, no segment
 * list, as rma_shm_fast within a node). The operation completes when the
 * transport's completion fires: for a write on a reliable connection that
 * is the target NIC's acknowledgement, so the data is in the target's
 * memory. Flush, unlock, complete and fence wait for it (peer pending
 * count); while only RDMA operations are pending they poll that transport
 * alone and never sleep (rma_wait_peer), perftest's post-and-poll, after
 * the one full progress pass every flush makes. Without a connection (verbs
 * UD mode) the transport copies through its own active messages, which the
 * target serves from its progress: correct, but then not passive.
 *
 * A small Get (at most RMA_GB_SIZE bytes) reads into a slot of a bounce
 * area the window registered at its first one and is copied out when it
 * completes: the origin buffer needs no registration (the cache's lookup
 * and release, with their locks, list and counters, on every Get), as a
 * small Put travels inline and needs none either.
 *
 * Device atomics and the RDMA lock words are devatom.c's: a choice for the
 * whole window, made at creation, because a NIC atomic is not atomic with a
 * CPU atomic on the same word (the rule is stated there).
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "rt/rt.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/hot.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

enum { RMA_GB_SIZE = 64, RMA_GB_SLOTS = 16 };   /* a bounced Get's bytes; Gets in flight */

/* The open transport that reaches other nodes with remote memory access, if any. */
static tp_iface_t *rdma_iface(void)
{
    tp_layer_t *tp = &rt_get()->tp;
    for (int i = 0; i < tp->niface; i++) {
        tp_iface_t *f = tp->ifaces[i];
        unsigned need = TP_CAP_GET | TP_CAP_PUT;
        if ((f->caps.flags & need) != need || f->caps.max_rkey > RMA_RKEY_MAX)
            continue;
        for (int c = 0; tp_components[c]; c++)
            if (strcmp(tp_components[c]->name, f->name) == 0 && !tp_components[c]->node_local)
                return f;
    }
    return NULL;
}

size_t rma_rdma_reg(MPI_Win win, uint8_t *rkey)
{
    memset(rkey, 0, RMA_RKEY_MAX);
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC || win->force_msg)
        return 0;
    tp_iface_t *f = rdma_iface();
    if (!f)
        return 0;
    win->rdma = f;   /* also for a window without memory here: its lock word (devatom.c) */
    if (win->len <= 0)
        return 0;
    tp_memh_t *m;
    if (f->ops->mem_reg(f, win->base, (size_t)win->len, &m) != 0)
        return 0;
    win->memh = m;
    size_t n = f->ops->rkey_pack(f, m, rkey);
    return n <= RMA_RKEY_MAX ? n : 0;
}

void rma_rdma_dereg(MPI_Win win)
{
    if (win->memh)
        win->rdma->ops->mem_dereg(win->rdma, win->memh);
    win->memh = NULL;
    if (win->gbmemh)
        win->rdma->ops->mem_dereg(win->rdma, win->gbmemh);
    win->gbmemh = NULL;
    free(win->gbounce);
    win->gbounce = NULL;
}

/* A free bounce slot for a small Get (registering the area at the first), or -1. */
static CORE_HOT int gb_take(MPI_Win win, tp_iface_t *f)
{
    if (!win->gbounce) {
        if (win->rdma != f)   /* the area is registered with the window's transport only */
            return -1;
        if (posix_memalign((void **)&win->gbounce, 64, RMA_GB_SIZE * RMA_GB_SLOTS))
            return -1;
        if (f->ops->mem_reg(f, win->gbounce, RMA_GB_SIZE * RMA_GB_SLOTS, &win->gbmemh) != 0) {
            free(win->gbounce);
            win->gbounce = NULL;
            return -1;
        }
        win->gbfree = (1u << RMA_GB_SLOTS) - 1;
    }
    if (!win->gbfree)
        return -1;
    int k = __builtin_ctz(win->gbfree);
    win->gbfree &= ~(1u << k);
    return k;
}

int rma_rdma_usable(MPI_Win win, int r, size_t rkey_len)
{
    if (rkey_len == 0 || rkey_len > RMA_RKEY_MAX || win->force_msg)
        return 0;
    tp_iface_t *f = win->rdma ? win->rdma : rdma_iface();
    tp_ep_t *ep;
    if (!f || tp_ep_get(&rt_get()->tp, core_comm_world_rank(win->comm, r), &ep) != 0)
        return 0;
    /* The key was packed by the peer's instance of the transport that reaches it: only
     * that transport can use it. */
    if (ep->iface != f)
        return 0;
    win->peers[r].ep = ep;
    return 1;
}

static CORE_HOT void rdma_done(tp_comp_t *comp, int status)
{
    rma_rop_t *o = container_of(comp, rma_rop_t, comp);
    MPI_Win win = o->win;
    rma_peer_t *p = &win->peers[o->target];
    if (status != 0)
        core_fatal("RMA: %s of rank %d's window failed: %s",
                   o->kind == RMA_PUT ? "an RDMA write" : "an RDMA read", o->target,
                   core_strerror(status));
    if (o->lmemh)
        p->ep->iface->ops->mem_dereg(p->ep->iface, o->lmemh);
    if (o->slot >= 0) {
        memcpy(o->dest, win->gbounce + o->slot * RMA_GB_SIZE, o->len);
        win->gbfree |= 1u << o->slot;
    }
    p->pending--;
    p->rdma_pending--;
    p->rdma_bytes -= o->len;
    if (o->req) {
        o->req->status.MPI_ERROR = MPI_SUCCESS;
        core_req_complete(o->req);
    }
    rma_state_t *st = win->st;
    o->next = st->rop_free;
    st->rop_free = o;
}

void rma_rdma_free_records(rma_state_t *st)
{
    while (st->rop_free) {
        rma_rop_t *o = st->rop_free;
        st->rop_free = o->next;
        free(o);
    }
}

/* Starts the RDMA write (put) or read of n > 0 bytes at local to the checked remote address
 * raddr of window rank target (req: completed with it). */
static CORE_HOT int rdma_start(MPI_Win win, int kind, void *local, size_t n, int target, uint64_t raddr,
                      MPI_Request req)
{
    rma_peer_t *p = &win->peers[target];
    tp_ep_t *ep = p->ep;
    rma_state_t *st = win->st;
    rma_rop_t *o = st->rop_free;
    if (o)
        st->rop_free = o->next;
    else if (!(o = malloc(sizeof(*o))))
        return CORE_ENOMEM;
    o->win = win;
    o->target = target;
    o->kind = kind;
    o->req = req;
    o->lmemh = NULL;
    o->slot = -1;
    o->len = n;
    int rc = 0;
    /* a write small enough to travel inside the work request reads no registration, a
     * small read lands in the bounce area */
    tp_memh_t *lm = NULL;
    void *at = local;
    if (kind == RMA_GET && n <= RMA_GB_SIZE && (o->slot = gb_take(win, ep->iface)) >= 0) {
        o->dest = local;
        at = win->gbounce + o->slot * RMA_GB_SIZE;
        lm = win->gbmemh;
    } else if (kind != RMA_PUT || n > ep->iface->caps.put_inline) {
        rc = ep->iface->ops->mem_reg(ep->iface, local, n, &o->lmemh);
        lm = o->lmemh;
    }
    if (rc) {
        o->next = st->rop_free;
        st->rop_free = o;
        return rc;
    }
    o->comp.done = rdma_done;
    p->pending++;
    p->rdma_pending++;
    p->rdma_bytes += n;
    for (;;) {
        rc = kind == RMA_PUT ? tp_put(ep, local, n, lm, raddr, p->rkey, &o->comp)
                             : tp_get(ep, at, n, lm, raddr, p->rkey, &o->comp);
        if (rc != CORE_EBUSY)
            break;
        core_progress();
    }
    if (rc == 0) {
        rdma_done(&o->comp, 0);
        return 0;
    }
    if (rc != CORE_INPROGRESS) {
        if (o->lmemh)
            ep->iface->ops->mem_dereg(ep->iface, o->lmemh);
        if (o->slot >= 0)
            win->gbfree |= 1u << o->slot;
        p->pending--;
        p->rdma_pending--;
        p->rdma_bytes -= n;
        o->next = st->rop_free;
        st->rop_free = o;
        return rc;
    }
    return 0;
}

int rma_rdma_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes,
                MPI_Request req)
{
    if (a->kind != RMA_PUT && a->kind != RMA_GET)
        return CORE_EUNSUPPORTED;
    if (tbytes == 0) {
        if (req)
            core_req_complete(req);
        return 0;
    }
    MPI_Datatype dt = a->kind == RMA_PUT ? a->odt : a->rdt;
    size_t n = a->kind == RMA_PUT ? (size_t)a->ocount * dt->size : (size_t)a->rcount * dt->size;
    if (v->n != 1 || !core_dt_is_contig(dt) || n != tbytes)
        return CORE_EUNSUPPORTED;
    rma_peer_t *p = &win->peers[a->target];
    /* flatten checked the segment against the advertised size; again here, where the
     * address is formed, so no later change there can send an unchecked one */
    if (v->s[0].disp > p->size || v->s[0].len > p->size - v->s[0].disp)
        return CORE_ERMA_RANGE;
    void *local = a->kind == RMA_PUT ? (void *)a->obuf : a->rbuf;
    return rdma_start(win, a->kind, local, tbytes, a->target, p->addr + v->s[0].disp, req);
}

CORE_HOT int rma_rdma_fast(MPI_Win win, int put, void *buf, int count, MPI_Datatype dt, int target,
                  MPI_Aint tdisp, int tcount, MPI_Datatype tdt)
{
    if (target < 0)
        return CORE_EUNSUPPORTED;
    const rma_peer_t *p = &win->peers[target];
    if (p->path != RMA_PATH_RDMA || !core_dt_is_contig(dt) || !core_dt_is_contig(tdt) ||
        !rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    /* as rma_shm_fast: the bytes agree and the run lies in the target's window (the general
     * path reports what is wrong otherwise); a contiguous type's data starts at offset 0 */
    size_t bytes = (size_t)count * dt->size;
    MPI_Aint d;
    if (bytes == 0 || bytes != (size_t)tcount * tdt->size ||
        __builtin_mul_overflow(tdisp, p->disp_unit, &d) || d < 0 || (uint64_t)d > p->size ||
        bytes > p->size - (uint64_t)d)
        return CORE_EUNSUPPORTED;
    return rdma_start(win, put ? RMA_PUT : RMA_GET, buf, bytes, target, p->addr + (uint64_t)d,
                      NULL);
}
