/*
 * MPI_Cancel of point-to-point requests. A posted receive that nothing has
 * matched is taken off its queue. A send whose first message is still in
 * the send queue (nothing on the wire) is taken off it. A send whose
 * EAGER (synchronous, or standard with its id: F_SREQ, even when the send
 * is complete already but not yet handed back by Wait/Test) or RTS is out
 * and unanswered asks the receiver (CANCEL_REQ): if the message is still unexpected there, the receiver drops
 * it and says so (CANCEL_RESP 1), the send completes cancelled; if a receive
 * took it already, the answer is 0 and the send completes as usual. Either
 * way the send completes only once the answer came, so its id stays current
 * for it. Other sends (handed back already, buffered, on internal contexts,
 * failed), and those whose message matched already (the receiver answered,
 * data may be moving), are not cancelled (MPI_Test_cancelled false), which
 * MPI permits.
 */
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "p2p/proto.h"

/* s never reached the receiver (or the receiver dropped it): it completes cancelled. */
static void send_cancelled(MPI_Request s)
{
    s->wait = 0;
    s->cancelled = 1;
    s->status.rdmpi_cancelled = 1;
    s->status.MPI_ERROR = MPI_SUCCESS;
    p2p_send_done(s);
}

/* Whether s, complete, is an eager standard send whose message carried its id (F_SREQ)
 * and that MPI has not handed back complete yet (a nonpersistent request that Wait or
 * Test saw complete is gone; a persistent one is inactive): it is still pending for MPI,
 * and its message may still be unexpected at the receiver. */
static int eager_pending(MPI_Request s)
{
    return p2p_eager_std(s) && s->mode != CORE_MODE_BUFFERED && !(s->ctx & 1) &&
           s->status.MPI_ERROR == MPI_SUCCESS &&
           !s->cancelled && !s->hook && (!s->persistent || s->active);
}

static int cancel_send(MPI_Request s)
{
    if (s->peer == MPI_PROC_NULL || (s->wait & P2P_WAIT_CANCEL))
        return 0;
    /* A message queued to go (the postq): completed now, asked for like one that went. */
    if (!core_req_is_complete(s))
        p2p_postq_finish(s);
    if (core_req_is_complete(s)) {
        if (!eager_pending(s))
            return 0;
        /* complete again with the receiver's answer (MPI_Wait must wait for it) */
        core_req_restart(s);
    } else if (p2p_sendq_remove(s)) {
        send_cancelled(s);
        return 0;
    } else if (!(s->wait & P2P_WAIT_FIRST)) {
        return 0; /* matched: its data is moving, or only a completion is left */
    }
    p2p_cancel_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.m.ctx = s->ctx;
    h.m.src = s->comm->rank;
    h.m.tag = s->tag;
    h.sreq = p2p_req_id(s);
    s->wait |= P2P_WAIT_CANCEL;
    s->cancelled = 1; /* asked once: the answer holds for any later MPI_Cancel */
    p2p_send_ctrl(s->world_peer, P2P_AM_CANCEL_REQ, &h, sizeof(h));
    p2p_fail_if_lost(s); /* a receiver of another job that left answers nothing */
    return 0;
}

static int cancel_recv(MPI_Request req)
{
    if (core_req_is_complete(req))
        return 0;
    p2p_mq_t *mq = p2p_mq_get(req->ctx);
    int locked = p2p_mq_lock(mq);
    int posted = p2p_mq_unpost(mq, req);
    p2p_mq_unlock(mq, locked);
    if (!posted)
        return 0;
    if (req->any_group) {
        core_group_release(req->any_group);
        req->any_group = NULL;
    }
    req->cancelled = 1;
    req->status.rdmpi_cancelled = 1;
    req->status.MPI_ERROR = MPI_SUCCESS;
    core_req_complete(req);
    return 0;
}

int p2p_cancel(MPI_Request req)
{
    if (req->kind == CORE_REQ_SEND)
        return cancel_send(req);
    if (req->kind == CORE_REQ_RECV)
        return cancel_recv(req);
    return 0;
}

/* A sender asks us to drop its message if no receive has taken it yet. */
static int cancel_req_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len)
{
    p2p_cancel_hdr_t h;
    (void)arg;
    (void)payload;
    if (hdr_len != sizeof(h) || len != 0)
        return core_wire_reject(P2P->rt, "CANCEL_REQ of %zu + %zu bytes (expected %zu + 0)",
                                hdr_len, len, sizeof(h));
    memcpy(&h, hdr, sizeof(h));
    int rc = p2p_check_match_hdr(&h.m, 0, "CANCEL_REQ");
    if (rc)
        return rc;
    if (h.sreq == 0) /* what messages without a sender's request carry: never a request */
        return core_wire_reject(P2P->rt, "CANCEL_REQ for request id 0");
    p2p_cancel_resp_hdr_t resp = { h.sreq, 0, 0 };
    p2p_mq_t *mq = p2p_mq_get(h.m.ctx);
    int locked = p2p_mq_lock(mq);
    p2p_unexp_t *u = p2p_mq_take_unexp_sent(mq, src, h.sreq, h.m.src, h.m.tag);
    p2p_mq_unlock(mq, locked);
    if (u) {
        p2p_count_unexp(0);
        p2p_unexp_release(u); /* an eager copy is part of it */
        resp.cancelled = 1;
    }
    /* Not found: a receive took it (and answered already, before this), or the sender
     * asks about a message it never sent, which it will learn from the 0. */
    p2p_send_ctrl(src, P2P_AM_CANCEL_RESP, &resp, sizeof(resp));
    return 0;
}

static int cancel_resp_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len)
{
    p2p_cancel_resp_hdr_t h;
    (void)arg;
    (void)payload;
    if (hdr_len != sizeof(h) || len != 0)
        return core_wire_reject(P2P->rt, "CANCEL_RESP of %zu + %zu bytes (expected %zu + 0)",
                                hdr_len, len, sizeof(h));
    memcpy(&h, hdr, sizeof(h));
    if (h.cancelled > 1 || h.pad != 0)
        return core_wire_reject(P2P->rt, "CANCEL_RESP with cancelled %u, padding %u",
                                h.cancelled, h.pad);
    MPI_Request s = p2p_req_find(h.sreq, src, P2P_WAIT_CANCEL, "CANCEL_RESP");
    if (!s)
        return CORE_EPROTO;
    int eager = p2p_eager_std(s); /* nothing answers its EAGER: done once it left */
    if (h.cancelled) {
        /* the receiver dropped the message: it cannot have answered it */
        if (!(s->wait & P2P_WAIT_FIRST) && !eager)
            return core_wire_reject(P2P->rt, "CANCEL_RESP says cancelled for a message "
                                    "that was answered");
        send_cancelled(s);
        return 0;
    }
    int done = (s->wait & P2P_WAIT_DONE) || eager;
    s->wait &= ~(unsigned)(P2P_WAIT_CANCEL | P2P_WAIT_DONE);
    if (done) { /* its protocol finished while the answer was on its way */
        p2p_underway_done(s);
        core_req_complete(s);
    }
    /* else it goes on: waiting for the receiver's answer, or pushing its data */
    return 0;
}

void p2p_cancel_register(void)
{
    tp_am_register(P2P->tp, P2P_AM_CANCEL_REQ,
                   (tp_am_entry_t){ cancel_req_handler, NULL, NULL, "CANCEL_REQ" });
    tp_am_register(P2P->tp, P2P_AM_CANCEL_RESP,
                   (tp_am_entry_t){ cancel_resp_handler, NULL, NULL, "CANCEL_RESP" });
}
