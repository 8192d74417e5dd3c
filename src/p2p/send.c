/*
 * The sending side: standard, synchronous and ready sends (buffered sends
 * are built on these by the API layer), eager or rendezvous by size, and the
 * queue of sends the transport could not take yet. A peer with queued sends
 * gets every later send queued behind them, which keeps MPI's order.
 */
#include <stdlib.h>
#include <string.h>
#include "core/datatype.h"
#include "core/log.h"
#include "core/progress.h"
#include "p2p/proto.h"

static inline size_t msg_len(size_t count, MPI_Datatype dt)
{
    return count * dt->size;
}

/* The bytes to send: the user's buffer when contiguous, else a packed copy. */
static int send_data(MPI_Request s, const void **data)
{
    if (core_dt_is_contig(s->dt) || s->len == 0) {
        *data = s->buf;
        return 0;
    }
    s->tmp = malloc(s->len);
    if (!s->tmp)
        return CORE_ENOMEM;
    core_dt_pack(s->tmp, s->buf, s->count, s->dt);
    *data = s->tmp;
    return 0;
}

/* The registration a rendezvous took for r's buffer, given back once the data has moved. */
void p2p_req_dereg(MPI_Request r)
{
    if (r->memh) {
        tp_ep_t *ep = P2P->tp->eps[r->world_peer];
        ep->iface->ops->mem_dereg(ep->iface, r->memh);
        r->memh = NULL;
    }
}

void p2p_send_done(MPI_Request s)
{
    /* A CANCEL_REQ is out: its CANCEL_RESP names s, which must stay current until then. */
    s->wait = s->wait & P2P_WAIT_CANCEL ? P2P_WAIT_CANCEL | P2P_WAIT_DONE : 0;
    p2p_req_dereg(s);
    free(s->tmp);
    s->tmp = NULL;
    if (!s->wait)
        core_req_complete(s);
}

static void sendq_push(MPI_Request s)
{
    s->next = NULL;
    if (P2P->sendq_tail)
        P2P->sendq_tail->next = s;
    else
        P2P->sendq_head = s;
    P2P->sendq_tail = s;
    P2P->queued[s->world_peer]++;
    core_progress_wake(P2P->rt, P2P->hook);
}

/* Tries to hand the first message of s (EAGER or RTS) to the transport; post: a nonblocking
 * send just started, which more may follow (an eager message may wait for them: tp_am_post). */
static int send_first(MPI_Request s, tp_ep_t *ep, int post)
{
    const void *data = s->tmp ? s->tmp : s->buf;
    p2p_rts_hdr_t h;
    h.m.ctx = s->ctx;
    h.m.src = s->comm->rank;
    h.m.tag = s->tag;
    h.m.flags = s->mode == CORE_MODE_SYNC ? P2P_F_SYNC : 0;
    if (s->proto == P2P_PROTO_EAGER) {
        size_t hlen = sizeof(p2p_hdr_t);
        if (h.m.flags & P2P_F_SYNC) {
            ((p2p_sync_hdr_t *)&h)->sreq = p2p_req_id(s);
            hlen = sizeof(p2p_sync_hdr_t);
            s->wait = P2P_WAIT_ACK;
        } else if (!(s->ctx & 1)) { /* user context: MPI_Cancel may name it (cancel.c) */
            h.m.flags |= P2P_F_SREQ;
            ((p2p_sync_hdr_t *)&h)->sreq = p2p_req_id(s);
            hlen = sizeof(p2p_sync_hdr_t);
        }
        return post ? tp_am_post(ep, P2P_AM_EAGER, &h, hlen, data, s->len)
                    : tp_am_send(ep, P2P_AM_EAGER, &h, hlen, data, s->len);
    }
    h.len = s->len;
    h.sreq = p2p_req_id(s);
    h.raddr = 0;
    h.rkey_len = 0;
    if (s->proto == P2P_PROTO_RNDV_GET) {
        h.raddr = (uint64_t)(uintptr_t)data;
        h.rkey_len = (uint32_t)ep->iface->ops->rkey_pack(ep->iface, s->memh, h.rkey);
        s->wait = P2P_WAIT_FIN;
    } else if (s->proto == P2P_PROTO_RNDV_PUT) {
        h.m.flags |= P2P_F_PUT;
        s->wait = P2P_WAIT_CTS | P2P_WAIT_RTR; /* RTR, or CTS if it cannot register */
    } else {
        s->wait = P2P_WAIT_CTS;
    }
    return tp_am_send(ep, P2P_AM_RTS, &h, offsetof(p2p_rts_hdr_t, rkey) + h.rkey_len, NULL, 0);
}

/* After the first message left: eager sends may be done already. */
static void first_sent(MPI_Request s)
{
    if (s->proto == P2P_PROTO_EAGER && s->mode != CORE_MODE_SYNC)
        p2p_send_done(s);
}

/* The rendezvous RDMPI_RNDV_PROTO asks for, if the transport can; else the other zero-copy one;
 * else pipelined. */
static int rndv_proto(unsigned caps)
{
    int want = P2P->cfg->rndv_proto;
    if (want == P2P_RNDV_PIPELINED)
        return P2P_PROTO_RNDV_PIPE;
    if (want == P2P_RNDV_WRITE && (caps & TP_CAP_PUT))
        return P2P_PROTO_RNDV_PUT;
    if (caps & TP_CAP_GET)
        return P2P_PROTO_RNDV_GET;
    return (caps & TP_CAP_PUT) ? P2P_PROTO_RNDV_PUT : P2P_PROTO_RNDV_PIPE;
}

/* Chooses the protocol and registers memory for a zero-copy rendezvous. */
static int send_prepare(MPI_Request s, tp_ep_t *ep)
{
    const void *data;
    int rc = send_data(s, &data);
    if (rc)
        return rc;
    if (s->len <= tp_ep_caps(ep)->eager_limit) {
        s->proto = P2P_PROTO_EAGER;
        return 0;
    }
    s->proto = rndv_proto(tp_ep_caps(ep)->flags);
    if (s->proto != P2P_PROTO_RNDV_PIPE) {
        rc = ep->iface->ops->mem_reg(ep->iface, (void *)data, s->len, &s->memh);
        if (rc != 0) {
            core_debug("registration of %zu bytes failed (%s): pipelined rendezvous", s->len,
                       core_strerror(rc));
            s->proto = P2P_PROTO_RNDV_PIPE;
        }
    }
    return 0;
}

static void count_send(size_t len, int proto)
{
    core_count_add(&P2P->counts.sent, 1);
    core_count_add(&P2P->counts.sent_bytes, len);
    switch (proto) {
    case P2P_PROTO_EAGER: core_count_add(&P2P->counts.eager, 1); break;
    case P2P_PROTO_RNDV_GET: core_count_add(&P2P->counts.rndv_get, 1); break;
    case P2P_PROTO_RNDV_PUT: core_count_add(&P2P->counts.rndv_put, 1); break;
    default: core_count_add(&P2P->counts.rndv_pipe, 1); break;
    }
}

static int send_start(MPI_Request s)
{
    s->complete = 0;
    s->wait = 0;
    s->cancelled = 0;
    s->status.MPI_ERROR = MPI_SUCCESS;
    s->status.rdmpi_cancelled = 0;
    if (s->peer == MPI_PROC_NULL) {
        s->status.MPI_SOURCE = MPI_PROC_NULL;
        s->status.MPI_TAG = MPI_ANY_TAG;
        core_req_complete(s);
        return 0;
    }
    s->world_peer = core_comm_peer_world(s->comm, s->peer);
    s->len = msg_len(s->count, s->dt);
    s->tmp = NULL;
    s->memh = NULL;
    tp_ep_t *ep;
    int rc = tp_ep_get(P2P->tp, s->world_peer, &ep);
    if (rc)
        return rc;
    rc = send_prepare(s, ep);
    if (rc)
        return rc;
    count_send(s->len, s->proto);
    if (P2P->queued[s->world_peer] == 0) {
        rc = send_first(s, ep, 1);
        if (rc == 1 && p2p_eager_std(s)) {
            /* Kept to go with the next ones: done once written, which the next progress
             * does (so MPI_Wait on it sends it, and MPI_Waitall sends a window at once). */
            s->next = P2P->postq;
            P2P->postq = s;
            core_progress_wake(P2P->rt, P2P->hook);
            return 0;
        }
        if (rc >= 0) {
            first_sent(s);
            return 0;
        }
        if (rc != CORE_EBUSY) {
            free(s->tmp);
            s->tmp = NULL;
            return rc;
        }
    }
    sendq_push(s);
    return 0;
}

int p2p_isend(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              uint32_t ctx, int mode, MPI_Request *req)
{
    MPI_Request s = core_req_alloc(CORE_REQ_SEND);
    if (!s)
        return CORE_ENOMEM;
    s->buf = (void *)buf;
    s->count = count;
    core_req_hold_dt(s, dt);
    s->peer = dest;
    s->tag = tag;
    s->comm = comm;
    s->ctx = ctx;
    s->mode = (uint8_t)mode;
    int rc = send_start(s);
    if (rc) {
        core_req_free(s);
        return rc;
    }
    *req = s;
    return 0;
}

int p2p_send(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             uint32_t ctx, int mode, const char *fn)
{
    if (dest == MPI_PROC_NULL)
        return 0;
    /* Fast path: a contiguous eager message the transport takes at once. */
    int world = core_comm_peer_world(comm, dest);
    size_t len = msg_len(count, dt);
    tp_ep_t *ep = P2P->tp->eps[world];
    if (ep && mode != CORE_MODE_SYNC && core_dt_is_contig(dt) && P2P->queued[world] == 0 &&
        len <= tp_ep_caps(ep)->eager_limit) {
        p2p_hdr_t h = { ctx, comm->rank, tag, 0 };
        int rc = tp_am_send(ep, P2P_AM_EAGER, &h, sizeof(h), buf, len);
        if (rc >= 0)
            count_send(len, P2P_PROTO_EAGER);
        if (rc != CORE_EBUSY)
            return rc;
    }
    MPI_Request s;
    int rc = p2p_isend(buf, count, dt, dest, tag, comm, ctx, mode, &s);
    if (rc)
        return rc;
    core_wait_req(s, fn);
    rc = s->status.MPI_ERROR == MPI_SUCCESS ? 0 : CORE_EPEER;
    core_req_free(s);
    return rc;
}

int p2p_start(MPI_Request req)
{
    req->active = 1;
    core_req_renew(req); /* ids of the previous round are stale now */
    return req->kind == CORE_REQ_SEND ? send_start(req) : p2p_recv_start(req);
}

/* Retries queued first messages in order; a busy peer blocks only itself. */
static int sendq_progress(void)
{
    int events = 0;
    MPI_Request prev = NULL, s = P2P->sendq_head;
    if (!s)
        return 0;
    uint64_t pass = ++P2P->sendq_pass;
    while (s) {
        MPI_Request next = s->next;
        int rc = CORE_EBUSY;
        if (P2P->busy_pass[s->world_peer] != pass)
            rc = send_first(s, P2P->tp->eps[s->world_peer], 0);
        if (rc == CORE_EBUSY) {
            P2P->busy_pass[s->world_peer] = pass;
            prev = s;
            s = next;
            continue;
        }
        if (prev)
            prev->next = next;
        else
            P2P->sendq_head = next;
        if (P2P->sendq_tail == s)
            P2P->sendq_tail = prev;
        P2P->queued[s->world_peer]--;
        events++;
        if (rc == 0) {
            first_sent(s);
        } else {
            core_error("sending to rank %d failed: %s", s->world_peer, core_strerror(rc));
            s->status.MPI_ERROR = MPI_ERR_OTHER;
            p2p_send_done(s);
        }
        s = next;
    }
    return events;
}

int p2p_sendq_remove(MPI_Request s)
{
    if (!P2P->queued[s->world_peer])
        return 0;
    for (MPI_Request prev = NULL, q = P2P->sendq_head; q; prev = q, q = q->next) {
        if (q != s)
            continue;
        if (prev)
            prev->next = q->next;
        else
            P2P->sendq_head = q->next;
        if (P2P->sendq_tail == q)
            P2P->sendq_tail = prev;
        P2P->queued[s->world_peer]--;
        return 1;
    }
    return 0;
}

void p2p_queue_data(MPI_Request s)
{
    s->next = NULL;
    if (P2P->dataq_tail)
        P2P->dataq_tail->next = s;
    else
        P2P->dataq_head = s;
    P2P->dataq_tail = s;
    core_progress_wake(P2P->rt, P2P->hook);
}

static int dataq_progress(void)
{
    MPI_Request s = P2P->dataq_head;
    if (!s)
        return 0;
    P2P->dataq_head = P2P->dataq_tail = NULL;
    int events = 0;
    while (s) {
        MPI_Request next = s->next;
        if (p2p_rndv_push(s))
            events++;
        else
            p2p_queue_data(s);
        s = next;
    }
    return events;
}

/* Posted eager sends whose transport has written them are done. */
static int postq_progress(void)
{
    int events = 0;
    for (MPI_Request *ps = &P2P->postq; *ps;) {
        MPI_Request s = *ps;
        tp_ep_t *ep = P2P->tp->eps[s->world_peer];
        if (ep->iface->ops->flush(ep) == CORE_EBUSY) {
            ps = &s->next;
            continue;
        }
        *ps = s->next;
        first_sent(s);
        events++;
    }
    return events;
}

int p2p_postq_finish(MPI_Request s)
{
    for (MPI_Request *ps = &P2P->postq; *ps; ps = &(*ps)->next)
        if (*ps == s) {
            *ps = s->next;
            first_sent(s);
            return 1;
        }
    return 0;
}

int p2p_send_progress(void)
{
    return sendq_progress() + dataq_progress() + (P2P->postq ? postq_progress() : 0);
}
