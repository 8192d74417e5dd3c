/*
 * The receiving side: posting receives, the arrival handlers for eager
 * messages and acknowledgements, probes and matched receives, cancel, and
 * the control-message queue.
 */
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/log.h"
#include "core/progress.h"
#include "p2p/proto.h"

p2p_state_t p2p;

typedef struct p2p_ctrl {
    struct p2p_ctrl *next;
    int dest;
    unsigned id;
    size_t len;
    uint64_t hdr[];   /* len bytes */
} p2p_ctrl_t;

p2p_mq_t *p2p_mq_get(uint32_t ctx)
{
    p2p_mq_t *mq = p2p.mq[ctx];
    if (!mq && !(mq = p2p.mq[ctx] = calloc(1, sizeof(*mq))))
        core_fatal("out of memory receiving a message");
    return mq;
}

void p2p_send_ctrl(int world_dest, unsigned id, const void *hdr, size_t len)
{
    tp_ep_t *ep;
    int rc = core_ep_get(p2p.rt, world_dest, &ep);
    if (rc == 0 && !p2p.ctrlq_head) {
        rc = tp_am_send(ep, id, hdr, len, NULL, 0);
        if (rc == 0)
            return;
    }
    if (rc != 0 && rc != CORE_EBUSY) {
        core_error("cannot send a control message to rank %d: %s", world_dest, core_strerror(rc));
        return;
    }
    p2p_ctrl_t *c = malloc(sizeof(*c) + len);
    if (!c)
        core_fatal("out of memory receiving a message");
    c->next = NULL;
    c->dest = world_dest;
    c->id = id;
    c->len = len;
    memcpy(c->hdr, hdr, len);
    if (p2p.ctrlq_tail)
        p2p.ctrlq_tail->next = c;
    else
        p2p.ctrlq_head = c;
    p2p.ctrlq_tail = c;
    core_progress_wake(p2p.hook);
}

static int ctrlq_progress(void)
{
    int events = 0;
    while (p2p.ctrlq_head) {
        p2p_ctrl_t *c = p2p.ctrlq_head;
        if (tp_am_send(p2p.rt->eps[c->dest], c->id, c->hdr, c->len, NULL, 0) != 0)
            break;
        p2p.ctrlq_head = c->next;
        if (!p2p.ctrlq_head)
            p2p.ctrlq_tail = NULL;
        free(c);
        events++;
    }
    return events;
}

void p2p_recv_done(MPI_Request r, size_t received, size_t msg_len)
{
    if (r->tmp) {
        core_dt_unpack(r->buf, r->count, r->dt, r->tmp, received);
        free(r->tmp);
        r->tmp = NULL;
    }
    if (r->memh) {
        tp_ep_t *ep = p2p.rt->eps[r->world_peer];
        ep->iface->ops->mem_dereg(ep->iface, r->memh);
        r->memh = NULL;
    }
    r->status.rdmpi_nbytes = (long long)received;
    r->status.MPI_ERROR = msg_len > received ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    core_req_complete(r);
}

/* Delivers an eager payload into the matched receive r. */
CORE_INLINE void deliver_eager(MPI_Request r, const p2p_hdr_t *h, int world_src,
                               const void *payload, size_t len, uint64_t sreq)
{
    size_t cap = r->count * r->dt->size;
    size_t n = len < cap ? len : cap;
    r->status.MPI_SOURCE = h->src;
    r->status.MPI_TAG = h->tag;
    r->world_peer = world_src;
    if (core_dt_is_contig(r->dt))
        memcpy(r->buf, payload, n);
    else
        core_dt_unpack(r->buf, r->count, r->dt, payload, n);
    if (h->flags & P2P_F_SYNC) {
        p2p_req_hdr_t ack = { sreq };
        p2p_send_ctrl(world_src, P2P_AM_ACK, &ack, sizeof(ack));
    }
    p2p_recv_done(r, n, len);
}

static void eager_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                          const void *payload, size_t len)
{
    const p2p_hdr_t *h = hdr;
    uint64_t sreq = (h->flags & P2P_F_SYNC) ? ((const p2p_sync_hdr_t *)hdr)->sreq : 0;
    p2p_mq_t *mq = p2p_mq_get(h->ctx);
    MPI_Request r = p2p_mq_take_posted(mq, h->src, h->tag);
    if (r) {
        deliver_eager(r, h, src, payload, len, sreq);
        return;
    }
    p2p_unexp_t *u = malloc(sizeof(*u) + len);
    if (!u)
        core_fatal("out of memory receiving a message");
    u->src = h->src;
    u->tag = h->tag;
    u->world_src = src;
    u->proto = P2P_PROTO_EAGER;
    u->flags = h->flags;
    u->len = len;
    u->sreq = sreq;
    u->data = u + 1;
    memcpy(u->data, payload, len);
    p2p_mq_push_unexp(mq, u);
}

static void rts_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                        size_t len)
{
    const p2p_rts_hdr_t *h = hdr;
    p2p_unexp_t u;
    u.src = h->m.src;
    u.tag = h->m.tag;
    u.world_src = src;
    u.proto = h->raddr                      ? P2P_PROTO_RNDV_GET
              : (h->m.flags & P2P_F_PUT) ? P2P_PROTO_RNDV_PUT
                                         : P2P_PROTO_RNDV_PIPE;
    u.flags = h->m.flags;
    u.len = h->len;
    u.sreq = h->sreq;
    u.raddr = h->raddr;
    u.rkey_len = h->rkey_len;
    memcpy(u.rkey, h->rkey, h->rkey_len);
    u.data = NULL;
    p2p_mq_t *mq = p2p_mq_get(h->m.ctx);
    MPI_Request r = p2p_mq_take_posted(mq, u.src, u.tag);
    if (r) {
        p2p_rndv_recv_start(r, &u);
        return;
    }
    p2p_unexp_t *copy = malloc(sizeof(*copy));
    if (!copy)
        core_fatal("out of memory receiving a message");
    *copy = u;
    p2p_mq_push_unexp(mq, copy);
}

static void ack_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                        size_t len)
{
    p2p_send_done(p2p_req_of(((const p2p_req_hdr_t *)hdr)->req));
}

/* Receives the unexpected message u into r (u is consumed). */
static void recv_from_unexp(MPI_Request r, p2p_unexp_t *u)
{
    if (u->proto == P2P_PROTO_EAGER) {
        p2p_hdr_t h = { 0, u->src, u->tag, u->flags };
        deliver_eager(r, &h, u->world_src, u->data, u->len, u->sreq);
    } else {
        p2p_rndv_recv_start(r, u);
    }
    free(u);
}

int p2p_recv_start(MPI_Request r)
{
    r->complete = 0;
    r->cancelled = 0;
    r->tmp = NULL;
    r->memh = NULL;
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->status.rdmpi_cancelled = 0;
    r->status.rdmpi_nbytes = 0;
    if (r->peer == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        core_req_complete(r);
        return 0;
    }
    p2p_mq_t *mq = p2p_mq_get(r->ctx);
    p2p_unexp_t *u = p2p_mq_find_unexp(mq, r->peer, r->tag, 1);
    if (u)
        recv_from_unexp(r, u);
    else
        p2p_mq_post(mq, r);
    return 0;
}

int p2p_irecv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              uint32_t ctx, MPI_Request *req)
{
    MPI_Request r = core_req_alloc(CORE_REQ_RECV);
    if (!r)
        return CORE_ENOMEM;
    r->buf = buf;
    r->count = count;
    core_req_hold_dt(r, dt);
    r->peer = src;
    r->tag = tag;
    r->comm = comm;
    r->ctx = ctx;
    r->len = count * dt->size;
    *req = r;
    return p2p_recv_start(r);
}

int p2p_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx, int *flag, MPI_Status *st,
               p2p_unexp_t **msg)
{
    p2p_unexp_t *u = p2p_mq_find_unexp(p2p_mq_get(ctx), src, tag, msg != NULL);
    *flag = u != NULL;
    if (!u)
        return 0;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = u->src;
        st->MPI_TAG = u->tag;
        st->MPI_ERROR = MPI_SUCCESS;
        st->rdmpi_cancelled = 0;
        st->rdmpi_nbytes = (long long)u->len;
    }
    if (msg)
        *msg = u;
    return 0;
}

int p2p_imrecv(void *buf, size_t count, MPI_Datatype dt, MPI_Comm comm, p2p_unexp_t *msg,
               MPI_Request *req)
{
    MPI_Request r = core_req_alloc(CORE_REQ_RECV);
    if (!r)
        return CORE_ENOMEM;
    r->buf = buf;
    r->count = count;
    core_req_hold_dt(r, dt);
    r->peer = msg->src;
    r->tag = msg->tag;
    r->comm = comm;
    r->len = count * dt->size;
    *req = r;
    recv_from_unexp(r, msg);
    return 0;
}

int p2p_cancel(MPI_Request req)
{
    if (req->kind != CORE_REQ_RECV || req->complete)
        return 0;
    if (!p2p_mq_unpost(p2p_mq_get(req->ctx), req))
        return 0;
    req->cancelled = 1;
    req->status.rdmpi_cancelled = 1;
    req->status.MPI_ERROR = MPI_SUCCESS;
    core_req_complete(req);
    return 0;
}

static int p2p_progress(void)
{
    int events = ctrlq_progress() + p2p_send_progress();
    if (!p2p.ctrlq_head && !p2p.sendq_head && !p2p.dataq_head)
        core_progress_rest(p2p.hook);
    return events;
}

int p2p_init(core_runtime_t *rt)
{
    p2p.rt = rt;
    p2p.queued = calloc((size_t)rt->size, sizeof(int));
    p2p.busy_pass = calloc((size_t)rt->size, sizeof(uint64_t));
    if (!p2p.queued || !p2p.busy_pass)
        return CORE_ENOMEM;
    tp_am_table[P2P_AM_EAGER] = (tp_am_entry_t){ eager_handler, NULL };
    tp_am_table[P2P_AM_RTS] = (tp_am_entry_t){ rts_handler, NULL };
    tp_am_table[P2P_AM_ACK] = (tp_am_entry_t){ ack_handler, NULL };
    p2p_rndv_register();
    p2p.hook = core_progress_add_hook(p2p_progress);
    return 0;
}

int p2p_drain(void)
{
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Finalize", NULL);
    while (p2p.sendq_head || p2p.dataq_head || p2p.ctrlq_head)
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    return 0;
}

void p2p_fini(void)
{
    for (int i = 0; i < CORE_CTX_MAX_P2P; i++) {
        p2p_mq_t *mq = p2p.mq[i];
        if (!mq)
            continue;
        for (p2p_unexp_t *u = mq->unexp_head, *n; u; u = n) {
            n = u->next;
            free(u);
        }
        free(mq);
        p2p.mq[i] = NULL;
    }
    free(p2p.queued);
    free(p2p.busy_pass);
    p2p.queued = NULL;
    p2p.busy_pass = NULL;
}
