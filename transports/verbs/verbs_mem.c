/*
 * Memory for rendezvous: registration, remote keys, get and put.
 *
 * Registration goes through the registration cache (verbs_rcache.c) when it
 * is on: the buffer's region stays registered after the message, and the
 * memory hooks (core/memhooks.h) kill it before its pages are freed,
 * unmapped, discarded or replaced, so a reused address never gets a stale
 * key. Without proven hooks (other architectures, a static libc, a malloc
 * that unmaps without libc such as AddressSanitizer's, or
 * RDMPI_VERBS_RCACHE=0) every message registers its buffer with ibv_reg_mr
 * and deregisters it at completion: always correct, only slower.
 * Either way each mem_reg makes its own handle (id, range), which is what
 * copied accesses are checked against.
 *
 * When registration fails (locked-memory limit), mem_reg still succeeds
 * with a software handle, and transfers involving it are copied through
 * active messages (GET_REQ -> GET_RESP chunks, or PUT chunks -> PUT_ACK),
 * so p2p never has to fall back. The same copy path serves peers without an
 * RC connection (hybrid mode at its RC limit, or a refused connection).
 * The side that owns the memory checks every copied access against its live
 * registrations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "core/log.h"
#include "transports/verbs/verbs.h"
#include "core/hot.h"

#define VB_KEY_SOFT 0x80000000u /* key.id flag: no hardware key */
#define VB_KEEP_FREE 256        /* retired ops and handles kept for reuse, at most */

/* An RDMA put, get or atomic takes an op and a handle per call: from these lists, not
 * calloc and free (~300 instructions of a one-sided operation's ~2500 under TCG). */
vb_op_t *vb_op_alloc(vb_iface_t *s)
{
    vb_op_t *op = s->op_free;
    if (!op)
        return calloc(1, sizeof(*op));
    s->op_free = op->next;
    s->nop_free--;
    return op;
}

void vb_op_release(vb_iface_t *s, vb_op_t *op)
{
    if (s->nop_free >= VB_KEEP_FREE) {
        free(op);
        return;
    }
    op->next = s->op_free;
    s->op_free = op;
    s->nop_free++;
}

static tp_memh_t *memh_alloc(vb_iface_t *s)
{
    tp_memh_t *m = s->memh_free;
    if (!m)
        return calloc(1, sizeof(*m));
    s->memh_free = m->next_free;
    s->nmemh_free--;
    memset(m, 0, sizeof(*m));
    return m;
}

static void memh_release(vb_iface_t *s, tp_memh_t *m)
{
    if (s->nmemh_free >= VB_KEEP_FREE) {
        free(m);
        return;
    }
    m->next_free = s->memh_free;
    s->memh_free = m;
    s->nmemh_free++;
}

int vb_reg_access(const vb_iface_t *s)
{
    int a = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    /* Device atomics need RC QPs with responder resources for them (not ud mode) and memory
     * registered for them; a device without them refuses the flag. */
    if (s->mode != VB_MODE_UD && s->dev.attr.atomic_cap != IBV_ATOMIC_NONE &&
        s->dev.attr.max_qp_rd_atom > 0 && s->dev.attr.max_qp_init_rd_atom > 0)
        a |= IBV_ACCESS_REMOTE_ATOMIC;
    return a;
}

int vb_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    vb_iface_t *s = vb_iface(iface);
    tp_memh_t *m = memh_alloc(s);
    if (!m)
        return CORE_ENOMEM;
    m->addr = addr;
    m->len = len;
    if (++s->next_memh_id & VB_KEY_SOFT)
        s->next_memh_id = 1;
    m->id = s->next_memh_id;
    if (len && vb_rcache_on(s->rcache)) {
        m->region = vb_rcache_get(s->rcache, addr, len);
        vb_rcache_counts(s->rcache, &s->base.stats.rcache_hits, &s->base.stats.rcache_misses);
        m->mr = m->region ? m->region->mr : NULL;
    } else if (len) {
        m->mr = ibv_reg_mr(s->pd, addr, len, vb_reg_access(s));
    }
    if (!m->mr && len && !s->reg_warned++) {
        struct rlimit rl;
        char lim[32] = "unlimited";
        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
        core_warn("verbs: registering %zu bytes failed: %s (locked-memory limit %s); such "
                  "messages are copied instead of read by RDMA", len, strerror(errno), lim);
    }
    core_list_push_front(&s->memhs, &m->link);
    *memh_p = m;
    return 0;
}

void vb_mem_dereg(tp_iface_t *iface, tp_memh_t *m)
{
    vb_iface_t *s = vb_iface(iface);
    if (!m)
        return;
    core_list_unlink(&m->link);
    if (m->region)
        vb_rcache_put(s->rcache, m->region);
    else if (m->mr)
        ibv_dereg_mr(m->mr);
    memh_release(s, m);
}

size_t vb_rkey_pack(tp_iface_t *iface, tp_memh_t *m, void *buf)
{
    (void)iface;
    vb_rkey_t k;
    k.rkey = m->mr ? m->mr->rkey : 0;
    k.id = m->id | (m->mr ? 0 : VB_KEY_SOFT);
    k.addr = (uint64_t)(uintptr_t)m->addr;
    k.len = m->len;
    memcpy(buf, &k, sizeof(k));
    return sizeof(k);
}

/* The live registration that covers [addr, addr + len) under key. */
static tp_memh_t *find_memh(vb_iface_t *s, const vb_rkey_t *key, uint64_t addr, uint64_t len)
{
    core_list_t *it;
    core_list_each(it, &s->memhs) {
        tp_memh_t *m = core_list_elem(it, tp_memh_t, link);
        if (m->id != (key->id & ~VB_KEY_SOFT))
            continue;
        uint64_t base = (uint64_t)(uintptr_t)m->addr;
        if (addr >= base && len <= m->len && addr - base <= m->len - len)
            return m;
        return NULL;
    }
    return NULL;
}

static void op_done(vb_iface_t *s, vb_op_t *op, int status)
{
    tp_comp_t *comp = op->comp;
    vb_op_release(s, op);
    vb_comp_fire(s, comp, status);
}

/* The copied op a GET_RESP or PUT_ACK from peer is for, taken off the list
 * when take. Replies name ops by id, not by address: a reply that arrives
 * for an op already completed (a duplicate, a bug below us) must find
 * nothing rather than a newer op allocated at the same address, whose
 * buffer it would overwrite. */
static vb_op_t *copy_find(vb_iface_t *s, uint64_t id, int peer, int take)
{
    for (vb_op_t **pp = &s->copies; *pp; pp = &(*pp)->next) {
        vb_op_t *op = *pp;
        if (op->id != id)
            continue;
        if (op->peer != peer)
            return NULL;
        if (take)
            *pp = op->next;
        return op;
    }
    return NULL;
}

static void copy_done(vb_iface_t *s, vb_op_t *op, int status)
{
    copy_find(s, op->id, op->peer, 1);
    op_done(s, op, status);
}

/* ---- copied transfers ---- */

static void job_add(vb_iface_t *s, vb_job_t *j)
{
    j->next = NULL;
    if (s->jobs_tail)
        s->jobs_tail->next = j;
    else
        s->jobs = j;
    s->jobs_tail = j;
}

static void job_new(vb_iface_t *s, int peer, unsigned id, const vb_xfer_t *x, const void *src,
                    size_t len)
{
    vb_job_t *j = malloc(sizeof(*j));
    if (!j)
        core_fatal("verbs: out of memory queueing a transfer to rank %d", peer);
    j->peer = peer;
    j->id = id;
    j->x = *x;
    j->x.off = 0;
    j->src = src;
    j->len = len;
    job_add(s, j);
}

/* Sends what a job still has to send; returns 1 when it is finished. */
static int job_push(vb_iface_t *s, vb_job_t *j)
{
    vb_peer_t *p = s->peers[j->peer];
    size_t chunk = s->base.caps.max_am;
    do {
        size_t n = j->len - j->x.off < chunk ? j->len - j->x.off : chunk;
        j->x.last = j->x.off + n == j->len;
        if (vb_send(s, p, j->id, &j->x, sizeof(j->x), j->src ? j->src + j->x.off : NULL, n) != 0)
            return 0;
        j->x.off += n;
    } while (j->x.off < j->len);
    return 1;
}

int vb_jobs_progress(vb_iface_t *s)
{
    vb_job_t *j = s->jobs, *prev = NULL;
    int ev = 0;
    while (j) {
        vb_job_t *next = j->next;
        if (job_push(s, j)) {
            if (prev)
                prev->next = next;
            else
                s->jobs = next;
            if (s->jobs_tail == j)
                s->jobs_tail = prev;
            free(j);
            ev++;
        } else {
            prev = j;
        }
        j = next;
    }
    return ev;
}

void vb_op_copy(vb_iface_t *s, vb_peer_t *p, vb_op_t *op)
{
    vb_xfer_t x;
    op->id = ++s->next_op_id;
    op->next = s->copies;
    s->copies = op;
    memset(&x, 0, sizeof(x));
    x.op = op->id;
    x.raddr = op->raddr;
    x.len = op->len;
    x.key = op->key;
    op->copied = 1;
    if (op->kind == VB_OP_GET)
        job_new(s, p->ep.peer, VB_AM_GET_REQ, &x, NULL, 0);
    else
        job_new(s, p->ep.peer, VB_AM_PUT, &x, op->local, op->len);
    vb_jobs_progress(s);
}

void vb_xfer_msg(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, const void *payload,
                 size_t len)
{
    vb_xfer_t x;
    memcpy(&x, hdr, sizeof(x));
    vb_op_t *op = NULL;
    if (id == VB_AM_GET_RESP || id == VB_AM_PUT_ACK) {
        op = copy_find(s, x.op, p->ep.peer, 0);
        if (!op) {
            core_error("verbs: rank %d answered a copied %s (id %llu) that is not in progress "
                       "here; ignored", p->ep.peer, id == VB_AM_GET_RESP ? "read" : "write",
                       (unsigned long long)x.op);
            return;
        }
    }
    switch (id) {
    case VB_AM_GET_REQ: {
        tp_memh_t *m = find_memh(s, &x.key, x.raddr, x.len);
        vb_xfer_t r;
        memset(&r, 0, sizeof(r));
        r.op = x.op;
        if (!m) {
            core_error("verbs: rank %d asked to read %llu bytes at 0x%llx, which are not "
                       "registered here", p->ep.peer, (unsigned long long)x.len,
                       (unsigned long long)x.raddr);
            r.status = CORE_EPEER;
            job_new(s, p->ep.peer, VB_AM_GET_RESP, &r, NULL, 0);
        } else {
            job_new(s, p->ep.peer, VB_AM_GET_RESP, &r, (const void *)(uintptr_t)x.raddr, x.len);
        }
        vb_jobs_progress(s);
        return;
    }
    case VB_AM_GET_RESP:
        if (x.status != 0) {
            copy_done(s, op, x.status);
            return;
        }
        if (x.off > op->len || len > op->len - x.off) {
            core_error("verbs: rank %d sent bytes %llu..%llu of a %zu-byte read; ignored",
                       p->ep.peer, (unsigned long long)x.off, (unsigned long long)(x.off + len),
                       op->len);
            return;
        }
        memcpy((uint8_t *)op->local + x.off, payload, len);
        op->done += len;
        if (op->done >= op->len)
            copy_done(s, op, 0);
        return;
    case VB_AM_PUT: {
        tp_memh_t *m = find_memh(s, &x.key, x.raddr, x.len);
        if (m && x.off <= x.len && len <= x.len - x.off)
            memcpy((uint8_t *)(uintptr_t)x.raddr + x.off, payload, len);
        else if (!x.status)
            core_error("verbs: rank %d wrote to 0x%llx, which is not registered here",
                       p->ep.peer, (unsigned long long)x.raddr);
        if (x.last) {
            vb_xfer_t r;
            memset(&r, 0, sizeof(r));
            r.op = x.op;
            r.status = m ? 0 : CORE_EPEER;
            job_new(s, p->ep.peer, VB_AM_PUT_ACK, &r, NULL, 0);
            vb_jobs_progress(s);
        }
        return;
    }
    case VB_AM_PUT_ACK:
        copy_done(s, op, x.status);
        return;
    default:
        return;
    }
}

/* ---- get and put ---- */

/* Starts the ops queued on p that can start: RDMA once RC is up, copies
 * once RC was refused. */
void vb_ops_start(vb_iface_t *s, vb_peer_t *p)
{
    while (p->pending) {
        vb_op_t *op = p->pending;
        if (p->rc_state == VB_RC_REFUSED && op->kind >= VB_OP_FADD) {
            p->pending = op->next;   /* an atomic cannot be copied: only the device has it */
            op_done(s, op, CORE_EUNSUPPORTED);
        } else if (p->rc_state == VB_RC_REFUSED) {
            p->pending = op->next;
            vb_op_copy(s, p, op);
        } else if (p->rc_state == VB_RC_UP && p->rc) {
            if (vb_rc_post_op(s, p, op) != 0)
                break;
            p->pending = op->next;
        } else {
            break;
        }
    }
    if (!p->pending)
        p->pending_tail = NULL;
}

static CORE_HOT int op_submit(vb_iface_t *s, vb_peer_t *p, vb_op_t *op)
{
    /* an inline write (lmemh NULL, vb_put checked the size) needs no local key */
    int hw = (op->lmemh ? op->lmemh->mr != NULL : op->kind == VB_OP_PUT) &&
             !(op->key.id & VB_KEY_SOFT);
    if (op->kind >= VB_OP_FADD &&
        (!hw || !(s->base.caps.flags & TP_CAP_ATOMIC) || p->rc_state == VB_RC_REFUSED)) {
        vb_op_release(s, op);
        return CORE_EUNSUPPORTED;
    }
    if (hw && s->mode != VB_MODE_UD && p->rc_state == VB_RC_NONE)
        vb_rc_connect(s, p);
    if (!hw || s->mode == VB_MODE_UD || p->rc_state == VB_RC_REFUSED) {
        vb_op_copy(s, p, op);
        return CORE_INPROGRESS;
    }
    if (!p->pending && p->rc_state == VB_RC_UP && vb_rc_post_op(s, p, op) == 0)
        return CORE_INPROGRESS;
    op->next = NULL;
    if (p->pending_tail)
        p->pending_tail->next = op;
    else
        p->pending = op;
    p->pending_tail = op;
    vb_active_add(s, p);
    return CORE_INPROGRESS;
}

static CORE_HOT int op_new(tp_ep_t *ep, int kind, void *local, size_t len, tp_memh_t *lmemh,
                  uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    vb_iface_t *s = vb_iface(ep->iface);
    if (len == 0)
        return 0;
    vb_op_t *op = vb_op_alloc(s);
    if (!op)
        return CORE_ENOMEM;
    /* one assignment: the compiler zeroes the rest inline (no memset call) */
    *op = (vb_op_t){ .kind = (uint8_t)kind, .local = local, .len = len, .lmemh = lmemh,
                     .raddr = raddr, .comp = comp, .peer = ep->peer };
    memcpy(&op->key, rkey, sizeof(op->key));
    return op_submit(s, (vb_peer_t *)ep, op);
}

/* The usual RDMA, one chunk to a peer whose RC connection is up with nothing queued before
 * it and hardware keys at both ends (what op_submit and vb_rc_post_op would decide, without
 * their other cases): one WQE whose SQ entry is comp itself, no op record (~150
 * instructions of a Get+flush's ~1440 at the origin under TCG, callgrind). 1: posted; 0: not
 * this case (or the send queue is short), the caller takes the general path. */
static CORE_HOT int rdma_direct(vb_iface_t *s, vb_peer_t *p, int get, void *local, size_t len,
                                tp_memh_t *lmemh, uint64_t raddr, const void *rkey,
                                tp_comp_t *comp)
{
    vb_rkey_t key;
    memcpy(&key, rkey, sizeof(key));
    /* a write without lmemh is inline (vb_put checked the size): no local key */
    if (p->rc_state != VB_RC_UP || !p->rc || p->pending || s->mode == VB_MODE_UD ||
        (key.id & VB_KEY_SOFT) || len > s->max_msg || (lmemh ? !lmemh->mr : get))
        return 0;
    struct ibv_sge sge = { (uintptr_t)local, (uint32_t)len, lmemh ? lmemh->mr->lkey : 0 };
    struct ibv_send_wr wr;
    vb_wr_init(&wr);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = get ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
    if (!get && len <= s->rc_inline)
        wr.send_flags = IBV_SEND_INLINE;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = key.rkey;
    return vb_rc_post_direct(s, p, &wr, comp) == 0;
}

CORE_HOT int vb_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
           const void *rkey, tp_comp_t *comp)
{
    if (len && rdma_direct(vb_iface(ep->iface), (vb_peer_t *)ep, 1, local, len, lmemh, raddr,
                           rkey, comp))
        return CORE_INPROGRESS;
    return op_new(ep, VB_OP_GET, local, len, lmemh, raddr, rkey, comp);
}

CORE_HOT int vb_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
           const void *rkey, tp_comp_t *comp)
{
    if (!lmemh && len > ep->iface->caps.put_inline)
        return CORE_EINVAL;   /* only an inline write goes without a registration */
    if (len && rdma_direct(vb_iface(ep->iface), (vb_peer_t *)ep, 0, (void *)local, len, lmemh,
                           raddr, rkey, comp))
        return CORE_INPROGRESS;
    return op_new(ep, VB_OP_PUT, (void *)local, len, lmemh, raddr, rkey, comp);
}

int vb_atomic(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *result,
              tp_memh_t *lmemh, uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    vb_iface_t *s = vb_iface(ep->iface);
    uint8_t *r = (uint8_t *)result;
    if ((op != TP_ATOMIC_FADD && op != TP_ATOMIC_CSWAP) || (raddr & 7) || !lmemh ||
        r < lmemh->addr || r + 8 > lmemh->addr + lmemh->len)
        return CORE_EINVAL;
    /* The usual case, RC up with nothing queued before it and hardware keys at both ends:
     * straight to the send queue with comp as the WQE's SQ entry (what op_submit would
     * decide, without its other cases or an op record: a device atomic is one round trip,
     * and under Soft-RoCE every instruction of the origin's is in it) */
    vb_peer_t *p = (vb_peer_t *)ep;
    vb_rkey_t key;
    memcpy(&key, rkey, sizeof(key));
    if (p->rc_state == VB_RC_UP && p->rc && !p->pending && lmemh->mr &&
        !(key.id & VB_KEY_SOFT) && (s->base.caps.flags & TP_CAP_ATOMIC)) {
        struct ibv_sge sge = { (uintptr_t)result, 8, lmemh->mr->lkey };
        struct ibv_send_wr wr;
        vb_wr_init(&wr);   /* every field of wr.atomic is set below */
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = op == TP_ATOMIC_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.remote_addr = raddr;
        wr.wr.atomic.rkey = key.rkey;
        wr.wr.atomic.compare_add = op == TP_ATOMIC_FADD ? operand : compare;
        wr.wr.atomic.swap = operand;
        if (vb_rc_post_direct(s, p, &wr, comp) == 0)
            return CORE_INPROGRESS;
    }
    vb_op_t *o = vb_op_alloc(s);
    if (!o)
        return CORE_ENOMEM;
    *o = (vb_op_t){ .kind = op == TP_ATOMIC_FADD ? VB_OP_FADD : VB_OP_CSWAP, .local = result,
                    .len = 8, .lmemh = lmemh, .raddr = raddr, .comp = comp, .peer = ep->peer,
                    .operand = operand, .compare = compare };
    memcpy(&o->key, rkey, sizeof(o->key));
    return op_submit(s, p, o);
}

void vb_mem_close(vb_iface_t *s)
{
    while (s->jobs) {
        vb_job_t *j = s->jobs;
        s->jobs = j->next;
        free(j);
    }
    s->jobs_tail = NULL;
    while (!core_list_empty(&s->memhs))
        vb_mem_dereg(&s->base, core_list_elem(s->memhs.next, tp_memh_t, link));
    while (s->op_free) {
        vb_op_t *op = s->op_free;
        s->op_free = op->next;
        free(op);
    }
    while (s->memh_free) {
        tp_memh_t *m = s->memh_free;
        s->memh_free = m->next_free;
        free(m);
    }
    s->nop_free = s->nmemh_free = 0;
    vb_rcache_destroy(s->rcache);
    s->rcache = NULL;
}
