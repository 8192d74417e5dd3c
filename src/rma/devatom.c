/*
 * Device atomics: MPI_Fetch_and_op, MPI_Compare_and_swap and the accumulates
 * on 8-byte integers, and the passive-target locks, done by the network
 * device (verbs RC: IBV_WR_ATOMIC_FETCH_AND_ADD and _CMP_AND_SWP) on the
 * target's memory, so a target busy outside MPI never delays them.
 *
 * A NIC atomic is atomic only with the same NIC's atomics on that word,
 * never with a CPU atomic (IBV_ATOMIC_HCA), so the choice is one for the
 * whole window, made at creation: each rank offers it in its window card
 * (a transport with TP_CAP_ATOMIC, its window memory and its lock word
 * registered, no node-segment peer whose accesses would be CPU atomics, no
 * rdmpi_rma_path=message), and when every card offers it, each rank opens a
 * device endpoint to every member (itself and ranks of its node included:
 * the device loops them back), reads every member's probe word with a
 * fetch-and-add of 0 (this connects the endpoints, with every member still
 * in the creation call to answer the handshake, and tells the byte order the
 * device returns fetched words in), and an allreduce makes the answer the
 * window's. Then on every rank:
 *  - accumulates of 8-byte integer kinds (every op) whose target elements
 *    are 8-byte aligned go here, by this rank's own path too: SUM is a
 *    fetch-and-add, NO_OP a fetch-and-add of 0 (an RDMA read is not atomic
 *    with the device's atomics), Compare_and_swap a compare-and-swap, every
 *    other op a compare-and-swap loop on the value fetched; other kinds and
 *    misaligned elements keep their paths (MPI asks atomicity only between
 *    accumulates of the same kind);
 *  - passive locks live in each rank's lock word (RMA_LW_EXCL, or the number
 *    of shared holders): exclusive is a compare-and-swap 0 -> EXCL, shared a
 *    fetch-and-add of 1 that backs out (adds -1) when it finds EXCL, unlock a
 *    fetch-and-add of minus what was added. The message locks of target.c are
 *    then never asked.
 * Each call here completes before it returns (its round trips poll only the
 * device's transport, as perftest polls its completion queue), so flush and
 * unlock have nothing to wait for. MPI_Fetch_and_op (SUM, NO_OP) and
 * MPI_Compare_and_swap of one 8-byte integer come straight from the MPI
 * call (rma_dev_fast): one work request and a busy poll.
 */
#include <stdlib.h>
#include <string.h>
#include "rma/rma.h"
#include "rt/rt.h"
#include "collectives/coll.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/op.h"
#include "core/progress.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* The words this rank registers for the device: its lock word, the probe word peers read at
 * creation, and where this rank's own atomics land their fetched values (DW_SLOTS of them:
 * the fetch-and-adds of one accumulate are pipelined that deep). */
enum { DW_LOCK = 0, DW_PROBE = 1, DW_RESULT = 2, DW_SLOTS = 16, DW_WORDS = DW_RESULT + DW_SLOTS };
#define PROBE_VALUE 0x0102030405060708ull

/* The open transport with device atomics that also carries the window's RDMA. */
static tp_iface_t *dev_iface(MPI_Win win)
{
    tp_iface_t *f = win->rdma;
    return f && (f->caps.flags & TP_CAP_ATOMIC) ? f : NULL;
}

size_t rma_dev_reg(MPI_Win win, uint64_t *addr, uint8_t *rkey)
{
    memset(rkey, 0, RMA_RKEY_MAX);
    *addr = 0;
    tp_iface_t *f = dev_iface(win);
    if (!f || win->force_msg || win->flavor == MPI_WIN_FLAVOR_DYNAMIC ||
        (win->len > 0 && !win->memh))
        return 0;
    for (int r = 0; r < win->size; r++)
        if (win->peers[r].path == RMA_PATH_SHM)
            return 0;   /* its accumulates are CPU atomics in the node segment */
    if (posix_memalign((void **)&win->dword, 64, DW_WORDS * sizeof(uint64_t)))
        return 0;
    memset(win->dword, 0, DW_WORDS * sizeof(uint64_t));
    win->dword[DW_PROBE] = PROBE_VALUE;
    if (f->ops->mem_reg(f, win->dword, DW_WORDS * sizeof(uint64_t), &win->dmemh) != 0) {
        free(win->dword);
        win->dword = NULL;
        return 0;
    }
    size_t n = f->ops->rkey_pack(f, win->dmemh, rkey);
    if (n == 0 || n > RMA_RKEY_MAX) {
        rma_dev_dereg(win);
        return 0;
    }
    *addr = (uint64_t)(uintptr_t)win->dword;
    return n;
}

void rma_dev_dereg(MPI_Win win)
{
    if (win->dmemh)
        win->rdma->ops->mem_dereg(win->rdma, win->dmemh);
    win->dmemh = NULL;
    free(win->dword);
    win->dword = NULL;
    win->dev_atomics = 0;
}

typedef struct dev_wait {
    tp_comp_t comp;
    volatile int done;
    int status;
} dev_wait_t;

static void dev_done(tp_comp_t *comp, int status)
{
    dev_wait_t *w = container_of(comp, dev_wait_t, comp);
    w->status = status;
    w->done = 1;
}

/* Starts one device atomic on window rank r's word at raddr (key rkey), its fetched value
 * landing in result slot k; w's completion fires once it is done. */
static int dev_post(MPI_Win win, int r, int op, uint64_t raddr, const uint8_t *rkey,
                    uint64_t operand, uint64_t compare, int k, dev_wait_t *w)
{
    w->comp.done = dev_done;
    w->done = 0;
    w->status = 0;
    int rc;
    unsigned tick = 0;
    while ((rc = tp_atomic(win->peers[r].dep, op, operand, compare, &win->dword[DW_RESULT + k],
                           win->dmemh, raddr, rkey, &w->comp)) == CORE_EBUSY)
        tp_poll_comp(win->rdma, &tick);
    if (rc == 0)
        w->done = 1;
    return rc == CORE_INPROGRESS ? 0 : rc;
}

/* Waits for w (posted into slot k): *old gets the word's value before, as a host integer.
 * Polls only the device's completion queue (tp_poll_comp), as perftest polls its one: the
 * answer needs no other transport, nor the target's CPU (its side of the connection's
 * handshake runs in any progress of its own). */
static int dev_finish(MPI_Win win, dev_wait_t *w, int k, uint64_t *old)
{
    tp_iface_t *f = win->rdma;
    unsigned tick = 0;
    while (!w->done)
        tp_poll_comp(f, &tick);
    if (w->status)
        return w->status;
    uint64_t v = ((volatile uint64_t *)win->dword)[DW_RESULT + k];
    *old = win->dev_swap ? __builtin_bswap64(v) : v;
    return 0;
}

/* One device atomic, completed. */
static int dev_atomic(MPI_Win win, int r, int op, uint64_t raddr, const uint8_t *rkey,
                      uint64_t operand, uint64_t compare, uint64_t *old)
{
    dev_wait_t w;
    int rc = dev_post(win, r, op, raddr, rkey, operand, compare, 0, &w);
    return rc ? rc : dev_finish(win, &w, 0, old);
}

/* Opens the device endpoint to every member and reads its probe word: 1 when all answered
 * with the probe value (in either byte order, the same for all). */
static int dev_connect(MPI_Win win, const rma_card_t *all)
{
    tp_iface_t *f = dev_iface(win);
    if (!f || !win->dword)
        return 0;
    int order = -1;   /* 0: host order, 1: swapped */
    for (int r = 0; r < win->size; r++) {
        rma_peer_t *p = &win->peers[r];
        if (p->path == RMA_PATH_SHM)
            return 0;
        tp_ep_t *ep;
        /* not the layer's endpoint: a rank of this node (or this rank) may be served by
         * shm or self for messages, and still needs the device for its atomics */
        if (f->ops->ep_create(f, core_comm_world_rank(win->comm, r), &ep) != 0)
            return 0;
        p->dep = ep;
        p->lock_addr = all[r].lock_addr;
        memcpy(p->lock_rkey, all[r].lock_rkey, RMA_RKEY_MAX);
        p->addr = all[r].base;
        memcpy(p->rkey, all[r].rkey, RMA_RKEY_MAX);
        uint64_t v;
        win->dev_swap = 0;
        if (dev_atomic(win, r, TP_ATOMIC_FADD, p->lock_addr + DW_PROBE * 8, p->lock_rkey, 0, 0,
                       &v) != 0)
            return 0;
        int o = v == PROBE_VALUE ? 0 : v == __builtin_bswap64(PROBE_VALUE) ? 1 : -1;
        if (o < 0 || (order >= 0 && o != order))
            return 0;
        order = o;
        /* and its window memory's key (the transport may have had to give it a software
         * key, which no device atomic can use): adding 0 changes nothing there */
        uint64_t w = (p->addr + 7) & ~(uint64_t)7;
        if (p->size >= 16 &&
            dev_atomic(win, r, TP_ATOMIC_FADD, w, p->rkey, 0, 0, &v) != 0)
            return 0;
    }
    win->dev_swap = order == 1;
    return 1;
}

int rma_dev_decide(MPI_Win win, const rma_card_t *all)
{
    /* every rank sees the same cards: when one does not offer, all stop here */
    for (int r = 0; r < win->size; r++)
        if (all[r].lock_rkey_len == 0 || all[r].lock_rkey_len > RMA_RKEY_MAX ||
            all[r].rkey_len > RMA_RKEY_MAX || (all[r].size > 0 && all[r].rkey_len == 0)) {
            rma_dev_dereg(win);
            return 0;
        }
    int mine = dev_connect(win, all), every = 0;
    int rc = coll_allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, win->comm);
    if (rc)
        return rc;
    if (!every) {
        core_debug("RMA: window %u: some member cannot reach every other with device atomics; "
                   "atomics and locks take messages", win->slot);
        rma_dev_dereg(win);
        return 0;
    }
    win->dev_atomics = 1;
    return 0;
}

/* ---- operations ---- */

static int dev_elem(MPI_Win win, const rma_args_t *a, uint64_t raddr, const uint8_t *rkey,
                    uint64_t src, uint64_t cmp, MPI_Datatype elem, uint64_t *old)
{
    int t = a->target;
    if (a->kind == RMA_CAS)
        return dev_atomic(win, t, TP_ATOMIC_CSWAP, raddr, rkey, src, cmp, old);
    if (a->op == MPI_SUM)
        return dev_atomic(win, t, TP_ATOMIC_FADD, raddr, rkey, src, 0, old);
    uint64_t cur;
    int rc = dev_atomic(win, t, TP_ATOMIC_FADD, raddr, rkey, 0, 0, &cur);
    if (rc || a->op == MPI_NO_OP) {
        *old = cur;
        return rc;
    }
    for (;;) {
        uint64_t nv = src, got;
        if (a->op != MPI_REPLACE) {
            nv = cur;
            if ((rc = core_op_apply(a->op, &src, &nv, 1, elem)) != 0)
                return rc;
        }
        if (nv == cur)
            break;   /* nothing to change: the value fetched is the result */
        if ((rc = dev_atomic(win, t, TP_ATOMIC_CSWAP, raddr, rkey, nv, cur, &got)) != 0)
            return rc;
        if (got == cur)
            break;
        cur = got;   /* another update came first: apply the op to what it left */
    }
    *old = cur;
    return 0;
}

/* Waits for the k fetch-and-adds posted into slots 0..k-1 (all of them, even after an
 * error: their completions and slots live in the caller); res[j] gets slot j's value. */
static int fadds_finish(MPI_Win win, dev_wait_t *w, int k, uint64_t *res)
{
    int rc = 0;
    for (int j = 0; j < k; j++) {
        int frc = dev_finish(win, &w[j], j, &res[j]);
        rc = rc ? rc : frc;
    }
    return rc;
}

/* SUM (add: the packed operands) and NO_OP (add NULL: adds 0) on every element of v: the
 * fetch-and-adds go out DW_SLOTS at a time (one QP executes them in order, so accumulates
 * from here to one location stay ordered), res gets the values before. */
static int dev_fadds(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, const uint64_t *add,
                     uint64_t *res)
{
    const rma_peer_t *p = &win->peers[a->target];
    dev_wait_t w[DW_SLOTS];
    size_t e = 0, first = 0;
    int k = 0, rc = 0;
    for (size_t i = 0; i < v->n; i++)
        for (uint64_t off = 0; off < v->s[i].len; off += 8, e++) {
            rc = dev_post(win, a->target, TP_ATOMIC_FADD, p->addr + v->s[i].disp + off, p->rkey,
                          add ? add[e] : 0, 0, k, &w[k]);
            if (rc)
                goto out;
            if (++k < DW_SLOTS)
                continue;
            rc = fadds_finish(win, w, k, res + first);
            k = 0;
            first = e + 1;
            if (rc)
                return rc;
        }
out:;
    int frc = fadds_finish(win, w, k, res + first);
    return rc ? rc : frc;
}

int rma_dev_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes)
{
    if (!win->dev_atomics || (a->kind != RMA_ACC && a->kind != RMA_GACC && a->kind != RMA_CAS) ||
        tbytes == 0)
        return CORE_EUNSUPPORTED;
    enum core_dt_kind k = a->tdt->basic;
    MPI_Datatype elem = rma_wire_elem_type(k);
    if (!rma_wire_cas_kind(k) || !elem || elem->size != 8 || tbytes % 8)
        return CORE_EUNSUPPORTED;
    const rma_peer_t *p = &win->peers[a->target];
    for (size_t i = 0; i < v->n; i++) {
        const rma_seg_t *s = &v->s[i];
        if (s->disp > p->size || s->len > p->size - s->disp)
            return CORE_ERMA_RANGE;
        if ((p->addr + s->disp) % 8 || s->len % 8)
            return CORE_EUNSUPPORTED;
    }
    size_t n = tbytes / 8;
    int has_origin = a->kind == RMA_ACC || a->kind == RMA_CAS ||
                     (a->kind == RMA_GACC && a->op != MPI_NO_OP);
    int fetch = a->kind != RMA_ACC;
    uint64_t one_src = 0, one_res = 0, cmp = 0;
    uint64_t *src = n == 1 ? &one_src : calloc(n, 8), *res = n == 1 ? &one_res : calloc(n, 8);
    int rc = src && res ? 0 : CORE_ENOMEM;
    if (rc == 0 && has_origin)
        core_dt_pack(src, a->obuf, (size_t)a->ocount, a->odt);
    if (rc == 0 && a->kind == RMA_CAS)
        memcpy(&cmp, a->cbuf, 8);
    if (rc == 0 && a->kind != RMA_CAS && (a->op == MPI_SUM || a->op == MPI_NO_OP))
        rc = dev_fadds(win, a, v, a->op == MPI_SUM ? src : NULL, res);
    else if (rc == 0) {
        size_t e = 0;
        for (size_t i = 0; i < v->n && rc == 0; i++)
            for (uint64_t off = 0; off < v->s[i].len && rc == 0; off += 8, e++)
                rc = dev_elem(win, a, p->addr + v->s[i].disp + off, p->rkey, src[e], cmp, elem,
                              &res[e]);
    }
    if (rc == 0 && fetch)
        core_dt_unpack(a->rbuf, (size_t)a->rcount, a->rdt, res, tbytes);
    if (n != 1) {
        free(src);
        free(res);
    }
    if (rc && rc != CORE_ENOMEM && rc != CORE_ERMA_RANGE)
        core_fatal("RMA: a device atomic on rank %d's window failed: %s", a->target,
                   core_strerror(rc));
    return rc;
}

int rma_dev_fast(MPI_Win win, const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                 int target, MPI_Aint tdisp, MPI_Op op)
{
    if (!win->dev_atomics || target < 0 || (!cbuf && op != MPI_SUM && op != MPI_NO_OP))
        return CORE_EUNSUPPORTED;
    if (dt != win->dev_dt) {
        MPI_Datatype elem = rma_wire_elem_type(dt->basic);
        if (!(dt->flags & CORE_DT_PREDEFINED) || !core_dt_is_contig(dt) || dt->size != 8 ||
            !rma_wire_cas_kind(dt->basic) || !elem || elem->size != 8)
            return CORE_EUNSUPPORTED;
        win->dev_dt = dt;   /* the checks above are the type's alone: once per type */
    }
    if (!rma_access_ok(win, target))
        return CORE_EUNSUPPORTED;
    const rma_peer_t *p = &win->peers[target];
    MPI_Aint d;
    if (__builtin_mul_overflow(tdisp, p->disp_unit, &d) || d < 0 || (uint64_t)d > p->size ||
        8 > p->size - (uint64_t)d || (p->addr + (uint64_t)d) % 8)
        return CORE_EUNSUPPORTED;   /* the general path reports the range, or takes messages */
    uint64_t src = 0, cmp = 0, old;
    if (cbuf || op == MPI_SUM)
        memcpy(&src, obuf, 8);
    if (cbuf)
        memcpy(&cmp, cbuf, 8);
    int rc = dev_atomic(win, target, cbuf ? TP_ATOMIC_CSWAP : TP_ATOMIC_FADD, p->addr + (uint64_t)d,
                        p->rkey, src, cmp, &old);
    if (rc)
        core_fatal("RMA: a device atomic on rank %d's window failed: %s", target,
                   core_strerror(rc));
    memcpy(rbuf, &old, 8);
    return 0;
}

/* ---- passive-target locks ---- */

int rma_dev_lock_try(MPI_Win win, int r, int type)
{
    const rma_peer_t *p = &win->peers[r];
    uint64_t old, undo;
    int rc;
    if (type == MPI_LOCK_EXCLUSIVE) {
        rc = dev_atomic(win, r, TP_ATOMIC_CSWAP, p->lock_addr, p->lock_rkey, RMA_LW_EXCL, 0, &old);
        return rc ? rc : old == 0;
    }
    rc = dev_atomic(win, r, TP_ATOMIC_FADD, p->lock_addr, p->lock_rkey, 1, 0, &old);
    if (rc || !(old & RMA_LW_EXCL))
        return rc ? rc : 1;
    rc = dev_atomic(win, r, TP_ATOMIC_FADD, p->lock_addr, p->lock_rkey, (uint64_t)-1, 0, &undo);
    return rc ? rc : 0;   /* lost to a writer: backed out */
}

int rma_dev_lock_release(MPI_Win win, int r, int type)
{
    const rma_peer_t *p = &win->peers[r];
    uint64_t old;
    uint64_t add = type == MPI_LOCK_EXCLUSIVE ? (uint64_t)0 - RMA_LW_EXCL : (uint64_t)-1;
    return dev_atomic(win, r, TP_ATOMIC_FADD, p->lock_addr, p->lock_rkey, add, 0, &old);
}
