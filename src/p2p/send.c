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
    if (s->zc_left)
        return; /* the transport still reads the buffer: its last chunk's comp finishes s */
    /* A CANCEL_REQ is out: its CANCEL_RESP names s, which must stay current until then. */
    s->wait = s->wait & P2P_WAIT_CANCEL ? P2P_WAIT_CANCEL | P2P_WAIT_DONE : 0;
    p2p_req_dereg(s);
    free(s->tmp);
    s->tmp = NULL;
    if (!s->wait) {
        p2p_underway_done(s);
        core_req_complete(s);
    }
}

/* The sends to world rank w waiting in the send queue. Written inside G only; read by a
 * thread sending outside G under S(w) (send_outside): a count it reads as 0 was lowered
 * after the queued message went out (release), so its own message cannot overtake one of
 * its thread's earlier ones. */
static inline int queued_of(int w)
{
    return __atomic_load_n(&P2P->queued[w], __ATOMIC_ACQUIRE);
}

static inline void queued_add(int w, int d)
{
    __atomic_store_n(&P2P->queued[w], P2P->queued[w] + d, __ATOMIC_RELEASE);
}

static void sendq_push(MPI_Request s)
{
    p2p_peerq_push(&P2P->sendq, s->world_peer, s);
    queued_add(s->world_peer, 1);
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
        if (s->wait)
            p2p_underway(s);
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
    p2p_underway(s);
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
    const tp_caps_t *caps = tp_ep_caps(ep);
    /* Up to eager_idle_limit when the channel is idle: not under MULTIPLE, where another
     * thread may be sending to that peer outside G (backlog reads the producer's side). */
    if (s->len <= caps->eager_limit ||
        (s->len <= caps->eager_idle_limit && !P2P->rt->cs.on &&
         ep->iface->ops->backlog && ep->iface->ops->backlog(ep) <= TP_IDLE_BACKLOG)) {
        s->proto = P2P_PROTO_EAGER;
        return 0;
    }
    s->proto = rndv_proto(tp_ep_caps(ep)->flags);
    if (s->proto == P2P_PROTO_RNDV_PIPE && (tp_ep_caps(ep)->flags & TP_CAP_AM_ZC)) {
        /* DATA chunks sent from the buffer itself; unregistered, they are copied */
        if (ep->iface->ops->mem_reg(ep->iface, (void *)data, s->len, &s->memh) != 0)
            s->memh = NULL;
    } else if (s->proto != P2P_PROTO_RNDV_PIPE) {
        rc = ep->iface->ops->mem_reg(ep->iface, (void *)data, s->len, &s->memh);
        if (rc != 0) {
            core_debug("registration of %zu bytes failed (%s): pipelined rendezvous", s->len,
                       core_strerror(rc));
            s->proto = P2P_PROTO_RNDV_PIPE;
        }
    }
    return 0;
}

CORE_INLINE void count_send(size_t len, int proto)
{
    uint64_t *c = proto == P2P_PROTO_EAGER      ? &P2P->counts.eager
                  : proto == P2P_PROTO_RNDV_GET ? &P2P->counts.rndv_get
                  : proto == P2P_PROTO_RNDV_PUT ? &P2P->counts.rndv_put
                                                : &P2P->counts.rndv_pipe;
    /* sent is the four by protocol summed (p2p_counters_read): one counter fewer per send */
    core_count_add2_as(c, 1, &P2P->counts.sent_bytes, len, core_handles.shared);
}

/* What every start of a send sets before its protocol is chosen. */
static inline void send_reset(MPI_Request s)
{
    s->complete = 0;
    s->wait = 0;
    s->cancelled = 0;
    s->status.MPI_ERROR = MPI_SUCCESS;
    s->status.rdmpi_cancelled = 0;
    s->tmp = NULL;
    s->memh = NULL;
    s->zc_left = 0;
}

static int send_start(MPI_Request s)
{
    send_reset(s);
    if (s->peer == MPI_PROC_NULL) {
        s->status.MPI_SOURCE = MPI_PROC_NULL;
        s->status.MPI_TAG = MPI_ANY_TAG;
        core_req_complete(s);
        return 0;
    }
    s->world_peer = core_comm_peer_world(s->comm, s->peer);
    s->len = msg_len(s->count, s->dt);
    tp_ep_t *ep;
    int rc = tp_ep_get(P2P->tp, s->world_peer, &ep);
    if (rc)
        return rc;
    rc = send_prepare(s, ep);
    if (rc)
        return rc;
    count_send(s->len, s->proto);
    if (queued_of(s->world_peer) == 0) {
        rc = send_first(s, ep, 1);
        if (rc == 1 && p2p_eager_std(s)) {
            /* Kept to go with the next ones: done once written, which the next progress
             * does (so MPI_Wait on it sends it, and MPI_Waitall sends a window at once). */
            p2p_peerq_push(&P2P->postq, s->world_peer, s);
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
            p2p_underway_done(s); /* the caller releases it */
            return rc;
        }
    }
    sendq_push(s);
    return 0;
}

/* Under MULTIPLE, a call from outside G (MPI_Send, MPI_Isend ...: API_ENTER_P2P). */
static inline int outside_cs(void)
{
    return core_cs_outside(&P2P->rt->cs);
}

/*
 * A send outside G (ARCHITECTURE.md, "Threads", S(peer)): an eager message of a standard or
 * ready send, contiguous, to a peer of this job on an intracommunicator, whose endpoint is
 * connected over a transport that allows it (TP_CAP_THREADS), handed to the transport under
 * S(peer) alone when no send to that peer waits in the queue. s: the request of a
 * nonblocking send (completed here), NULL for a blocking one. Returns 0 when sent, 1 when
 * the send needs G (anything else, or the transport busy: nothing was sent), or an error.
 */
static int send_outside(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm, uint32_t ctx, int mode, MPI_Request s)
{
    tp_layer_t *tp = P2P->tp;
    if (mode == CORE_MODE_SYNC || dest == MPI_PROC_NULL || core_comm_is_inter(comm) ||
        (ctx | 1) == (CORE_CTX_DYN | 1) || !core_dt_is_contig(dt))
        return 1;
    int world = core_comm_peer_world(comm, dest);
    if (world < 0 || world >= P2P->rt->size)
        return 1;
    tp_ep_t *ep = __atomic_load_n(&tp->eps[world], __ATOMIC_ACQUIRE);
    size_t len = msg_len(count, dt);
    /* first contact (thr9): created here where the transports allow it, else inside G */
    if (!ep && tp_ep_get_outside(tp, world, &ep) != 0)
        return 1;
    if (!(tp_ep_caps(ep)->flags & TP_CAP_THREADS) || len > tp_ep_caps(ep)->eager_limit)
        return 1;
    p2p_sync_hdr_t h = { { ctx, comm->rank, tag, 0 }, 0 };
    size_t hlen = sizeof(p2p_hdr_t);
    if (s) {
        send_reset(s);
        s->world_peer = world;
        s->len = len;
        s->proto = P2P_PROTO_EAGER;
        if (!(ctx & 1)) { /* user context: MPI_Cancel may name it (send_first) */
            h.m.flags = P2P_F_SREQ;
            h.sreq = p2p_req_id(s);
            hlen = sizeof(p2p_sync_hdr_t);
        }
    }
    int rc = CORE_EBUSY;
    tp_send_lock(tp, world);
    if (queued_of(world) == 0)
        rc = tp_am_send_locked(ep, P2P_AM_EAGER, &h, hlen, buf, len);
    tp_send_unlock(tp, world);
    if (rc == CORE_EBUSY)
        return 1;
    if (rc < 0)
        return rc;
    count_send(len, P2P_PROTO_EAGER);
    if (s)
        core_req_complete(s); /* p2p_send_done: nothing to release */
    return 0;
}

/* The common case of a window of nonblocking sends (OSU's osu_bw, osu_mbw_mr): a standard
 * send of a contiguous message the eager protocol takes, to a peer with nothing queued,
 * which the transport accepts at once. s is fresh from core_req_alloc (complete, wait,
 * cancelled, tmp, memh and the status's error are zero: what send_start would set), so
 * this sends, counts and completes in one pass: the header as send_first builds it for a
 * standard eager send (its id for MPI_Cancel on user contexts), what first_sent and
 * p2p_send_done leave (wait 0, nothing to free); over tcp the frame waits to leave with the
 * window's next ones and s in the postq until then. 0: done or posted; otherwise nothing was
 * sent and send_start takes s from the start (a busy ring queues it, an error is its to
 * report). */
CORE_INLINE int isend_eager(MPI_Request s, const void *buf, size_t count, MPI_Datatype dt,
                            int dest, int tag, MPI_Comm comm, uint32_t ctx)
{
    if (s->mode != CORE_MODE_STANDARD || dest == MPI_PROC_NULL || !core_dt_is_contig(dt))
        return CORE_EBUSY;
    int world = core_comm_peer_world(comm, dest);
    /* acquire: a sender outside G may have created it (tp_ep_get_outside) */
    tp_ep_t *ep = __atomic_load_n(&P2P->tp->eps[world], __ATOMIC_ACQUIRE);
    size_t len = msg_len(count, dt);
    if (!ep || queued_of(world) != 0 || len > tp_ep_caps(ep)->eager_limit)
        return CORE_EBUSY;
    s->world_peer = world;
    s->len = len;
    s->proto = P2P_PROTO_EAGER;
    p2p_sync_hdr_t h = { { ctx, comm->rank, tag, 0 }, 0 };
    size_t hlen = sizeof(p2p_hdr_t);
    if (!(ctx & 1)) { /* user context: MPI_Cancel may name it (cancel.c) */
        h.m.flags = P2P_F_SREQ;
        h.sreq = p2p_req_id(s);
        hlen = sizeof(h);
    }
    /* A transport that batches a window's frames (tcp: tp_am_post) keeps this one to write
     * with the next: s is done once written (the postq, as send_start). */
    int rc = ep->iface->ops->am_post ? tp_am_post(ep, P2P_AM_EAGER, &h, hlen, buf, len)
                                     : tp_am_send(ep, P2P_AM_EAGER, &h, hlen, buf, len);
    if (rc == 1) {
        count_send(len, P2P_PROTO_EAGER);
        p2p_peerq_push(&P2P->postq, world, s);
        core_progress_wake(P2P->rt, P2P->hook);
        return 0;
    }
    if (rc != 0)
        return rc;
    count_send(len, P2P_PROTO_EAGER);
    if (core_handles.shared)
        core_req_complete(s);
    else /* what core_req_complete does for a fresh request (no hook, not freed) */
        __atomic_store_n(&s->complete, 1, __ATOMIC_RELEASE);
    return 0;
}

int p2p_isend(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              uint32_t ctx, int mode, MPI_Request *req)
{
    MPI_Request s = core_req_get(CORE_REQ_SEND);
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
    int rc;
    if (__builtin_expect(!outside_cs(), 1)) {
        if (isend_eager(s, buf, count, dt, dest, tag, comm, ctx) == 0) {
            *req = s;
            return 0;
        }
        rc = send_start(s);
    } else if ((rc = send_outside(buf, count, dt, dest, tag, comm, ctx, mode, s)) == 1) {
        core_cs_enter(&P2P->rt->cs);
        rc = send_start(s);
        core_cs_exit(&P2P->rt->cs);
    }
    if (rc) {
        core_req_free(s);
        return rc;
    }
    *req = s;
    return 0;
}

/* The fast path of a blocking send: a contiguous eager message the transport takes at once,
 * no request. 0 when sent, 1 when not (nothing left), or an error. Inside G. */
static inline int send_now(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag,
                           MPI_Comm comm, uint32_t ctx)
{
    int world = core_comm_peer_world(comm, dest);
    size_t len = msg_len(count, dt);
    tp_ep_t *ep = __atomic_load_n(&P2P->tp->eps[world], __ATOMIC_ACQUIRE); /* as isend_eager */
    if (!ep || !core_dt_is_contig(dt) || queued_of(world) != 0 ||
        len > tp_ep_caps(ep)->eager_limit)
        return 1;
    p2p_hdr_t h = { ctx, comm->rank, tag, 0 };
    int rc = tp_am_send(ep, P2P_AM_EAGER, &h, sizeof(h), buf, len);
    if (rc == CORE_EBUSY)
        return 1;
    if (rc < 0)
        return rc;
    count_send(len, P2P_PROTO_EAGER);
    return 0;
}

int p2p_send_eager(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, uint32_t ctx)
{
    if (dest == MPI_PROC_NULL)
        return 0;
    if (__builtin_expect(outside_cs(), 0))
        return 1;
    return send_now(buf, count, dt, dest, tag, comm, ctx);
}

int p2p_send(const void *buf, size_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             uint32_t ctx, int mode, const char *fn)
{
    if (dest == MPI_PROC_NULL)
        return 0;
    if (__builtin_expect(outside_cs(), 0)) {
        /* Under MULTIPLE from the application: S(peer) alone when it can, else inside G. */
        int rc = send_outside(buf, count, dt, dest, tag, comm, ctx, mode, NULL);
        if (rc != 1)
            return rc;
        core_cs_enter(&P2P->rt->cs);
        rc = p2p_send(buf, count, dt, dest, tag, comm, ctx, mode, fn);
        core_cs_exit(&P2P->rt->cs);
        return rc;
    }
    if (mode != CORE_MODE_SYNC) {
        int rc = send_now(buf, count, dt, dest, tag, comm, ctx);
        if (rc != 1)
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
    p2p_peerq_t *q = &P2P->sendq;
    int events = 0;
    for (int i = q->nactive; i-- > 0;) {
        int w = p2p_peerq_rank(q, i);
        if (w < 0)
            continue;
        tp_ep_t *ep = P2P->tp->eps[w];
        for (MPI_Request s; (s = p2p_peerq_first(q, w));) {
            int rc = send_first(s, ep, 0);
            if (rc == CORE_EBUSY)
                break;
            p2p_peerq_pop(q, w);
            queued_add(w, -1); /* after its message went out (queued_of) */
            events++;
            if (rc == 0) {
                first_sent(s);
            } else {
                core_error("sending to rank %d failed: %s", w, core_strerror(rc));
                s->status.MPI_ERROR = MPI_ERR_OTHER;
                p2p_send_done(s);
            }
        }
    }
    return events;
}

int p2p_sendq_remove(MPI_Request s)
{
    if (!queued_of(s->world_peer) || !p2p_peerq_remove(&P2P->sendq, s->world_peer, s))
        return 0;
    queued_add(s->world_peer, -1);
    return 1;
}

int p2p_sendq_holds(MPI_Request s)
{
    if (!queued_of(s->world_peer))
        return 0;
    for (MPI_Request q = p2p_peerq_first(&P2P->sendq, s->world_peer); q; q = q->next)
        if (q == s)
            return 1;
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

/* Pushes the pipelined sends with chunks left; a peer whose transport was full in this pass
 * is not asked again for the sends behind. */
static int dataq_progress(void)
{
    MPI_Request s = P2P->dataq_head;
    if (!s)
        return 0;
    P2P->dataq_head = P2P->dataq_tail = NULL;
    uint64_t pass = ++P2P->dataq_pass;
    int events = 0;
    while (s) {
        MPI_Request next = s->next;
        int rc = 0;
        if (P2P->busy_pass[s->world_peer] != pass)
            rc = p2p_rndv_push(s);
        if (rc == 1) {
            events++;
        } else {
            if (rc == CORE_EBUSY)
                P2P->busy_pass[s->world_peer] = pass;
            p2p_queue_data(s);
        }
        s = next;
    }
    return events;
}

/* Posted eager sends are done once their transport has written everything it kept for the
 * peer: one flush per peer, however many sends wait on it. */
static int postq_progress(void)
{
    p2p_peerq_t *q = &P2P->postq;
    int events = 0;
    for (int i = q->nactive; i-- > 0;) {
        int w = p2p_peerq_rank(q, i);
        if (w < 0)
            continue;
        tp_ep_t *ep = P2P->tp->eps[w];
        if (ep->iface->ops->flush(ep) == CORE_EBUSY)
            continue;
        for (MPI_Request s; (s = p2p_peerq_pop(q, w));) {
            first_sent(s);
            events++;
        }
    }
    return events;
}

int p2p_postq_finish(MPI_Request s)
{
    if (!p2p_peerq_remove(&P2P->postq, s->world_peer, s))
        return 0;
    first_sent(s);
    return 1;
}

int p2p_send_progress(void)
{
    return sendq_progress() + dataq_progress() +
           (p2p_peerq_empty(&P2P->postq) ? 0 : postq_progress());
}
