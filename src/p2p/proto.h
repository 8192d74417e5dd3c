/*
 * The p2p wire protocol and the state shared by the p2p files.
 *
 * Eager:  EAGER(match header [+ sreq when synchronous, or F_SREQ], payload); a
 *         synchronous send completes on ACK, sent by the receiver at match.
 * Rendezvous with get (transports with TP_CAP_GET): RTS(match, len, sreq,
 *         buffer address, rkey) -> the receiver matches, reads the data with
 *         tp_get, sends FIN(sreq).
 * Rendezvous with put (RDMPI_RNDV_PROTO=write, transports with TP_CAP_PUT):
 *         RTS(match, len, sreq, F_PUT) -> the receiver matches, registers
 *         its buffer, answers RTR(sreq, rreq, bytes wanted, address, rkey)
 *         -> the sender writes with tp_put and, once the write completed
 *         (the data is in place), sends PUT_FIN(rreq). If the receiver
 *         cannot register, it answers CTS instead (pipelined).
 * Pipelined rendezvous (no get, or registration failed): RTS without an
 *         address -> CTS(sreq, rreq, bytes wanted) -> DATA(rreq, offset)
 *         chunks of RDMPI_RNDV_FRAG_SIZE; the last chunk completes both.
 * Cancel of a send whose EAGER (synchronous) or RTS is out and unanswered:
 *         CANCEL_REQ(match header, sreq) -> the receiver drops the message
 *         if it is still unexpected and answers CANCEL_RESP(sreq, 1), else
 *         CANCEL_RESP(sreq, 0) after the answer it gave at match (ACK,
 *         CTS, RTR; FIN may follow). The send completes only once both its
 *         protocol and the CANCEL_RESP are done (cancel.c).
 *
 * Request ids (sreq, rreq, req) are core_req_lookup ids, never pointers. A
 * message that names a request is taken only if the id is current, the
 * request's peer is the message's sender, and the request waits for that
 * message (req->wait, P2P_WAIT_* bits: set before the message that asks for
 * the answer leaves, cleared when the answer came or the request finished).
 * Every header is copied out of the transport's buffer before it is checked,
 * so a peer that shares memory with us cannot change it in between.
 */
#ifndef RDMPI_P2P_PROTO_H
#define RDMPI_P2P_PROTO_H

#include <stdatomic.h>
#include <stdint.h>
#include "p2p/match.h"
#include "p2p/p2p.h"
#include "p2p/peerq.h"
#include "core/comm.h"
#include "core/count.h"

enum { P2P_AM_EAGER = 0, P2P_AM_RTS, P2P_AM_CTS, P2P_AM_DATA, P2P_AM_FIN, P2P_AM_ACK,
       P2P_AM_RTR, P2P_AM_PUT_FIN };
/* after the one-sided layer's ids (rma_wire.h: 8..10) */
enum { P2P_AM_CANCEL_REQ = 11, P2P_AM_CANCEL_RESP = 12 };
enum { P2P_PROTO_EAGER = 1, P2P_PROTO_RNDV_GET, P2P_PROTO_RNDV_PUT, P2P_PROTO_RNDV_PIPE };
#define P2P_F_SYNC 1u
#define P2P_F_PUT 2u   /* RTS: the sender's buffer is registered for put: answer RTR */
#define P2P_F_SREQ 4u   /* EAGER: the sender's request id follows (a nonblocking send on a user
                           context, that MPI_Cancel may name in CANCEL_REQ) */
#define P2P_EAGER_FLAGS (P2P_F_SYNC | P2P_F_SREQ)
#define P2P_RTS_FLAGS (P2P_F_SYNC | P2P_F_PUT)

/* What a request waits for from its peer (bits of req->wait). */
enum {
    P2P_WAIT_ACK = 1,      /* synchronous eager send */
    P2P_WAIT_FIN = 2,      /* rendezvous send read by the receiver (get) */
    P2P_WAIT_CTS = 4,      /* pipelined or put rendezvous send */
    P2P_WAIT_RTR = 8,      /* put rendezvous send */
    P2P_WAIT_DATA = 16,    /* pipelined rendezvous receive: DATA until want bytes came */
    P2P_WAIT_PUT_FIN = 32, /* put rendezvous receive that sent RTR */
    P2P_WAIT_CANCEL = 64,  /* send that sent CANCEL_REQ: kept until CANCEL_RESP */
    P2P_WAIT_DONE = 128,   /* with P2P_WAIT_CANCEL: its protocol finished, only the answer is
                              missing (without it, data may still be moving) */
};
/* A send waits for the receiver's first answer: its message may still be unexpected there. */
#define P2P_WAIT_FIRST (P2P_WAIT_ACK | P2P_WAIT_FIN | P2P_WAIT_CTS | P2P_WAIT_RTR)

typedef struct p2p_hdr {
    uint32_t ctx;
    int32_t src;     /* sender's rank in the communicator */
    int32_t tag;
    uint32_t flags;
} p2p_hdr_t;

typedef struct p2p_sync_hdr {
    p2p_hdr_t m;
    uint64_t sreq;
} p2p_sync_hdr_t;

typedef struct p2p_rts_hdr {
    p2p_hdr_t m;
    uint64_t len;
    uint64_t sreq;
    uint64_t raddr;      /* 0: pipelined */
    uint32_t rkey_len;
    uint8_t rkey[P2P_MAX_RKEY];
} p2p_rts_hdr_t;

typedef struct p2p_cts_hdr {
    uint64_t sreq, rreq, want;
} p2p_cts_hdr_t;

typedef struct p2p_rtr_hdr {
    uint64_t sreq, rreq, want;
    uint64_t raddr;      /* the receiver's buffer */
    uint32_t rkey_len;
    uint8_t rkey[P2P_MAX_RKEY];
} p2p_rtr_hdr_t;

typedef struct p2p_data_hdr {
    uint64_t rreq, offset;
} p2p_data_hdr_t;

typedef struct p2p_req_hdr {   /* FIN, PUT_FIN and ACK */
    uint64_t req;
} p2p_req_hdr_t;

typedef struct p2p_cancel_hdr {   /* CANCEL_REQ: the message's match header (flags 0) */
    p2p_hdr_t m;
    uint64_t sreq;
} p2p_cancel_hdr_t;

typedef struct p2p_cancel_resp_hdr {
    uint64_t sreq;
    uint32_t cancelled;  /* 1: the message was dropped; 0: it had matched */
    uint32_t pad;        /* 0 */
} p2p_cancel_resp_hdr_t;

#define P2P_UNEXP_KEEP 16 /* copies of large unexpected messages kept for reuse */

/* Shared state of the p2p layer. */
typedef struct p2p_state {
    core_runtime_t *rt;
    tp_layer_t *tp;                       /* the endpoints and the handler table */
    const p2p_config_t *cfg;
    p2p_mq_t *mq[CORE_CTX_MAX_P2P];
    p2p_peerq_t sendq;                    /* first message not yet accepted by the transport */
    MPI_Request dataq_head, dataq_tail;   /* pipelined rendezvous with chunks left */
    p2p_peerq_t postq;                    /* eager sends the transport keeps to write with the
                                             next ones (tp_am_post): done once written */
    struct p2p_ctrl *ctrlq_head, *ctrlq_tail;
    int *queued;                          /* per world rank: sends waiting in sendq (read
                                             outside G: send_outside) */
    uint64_t *busy_pass;                  /* per world rank: dataq pass it was found full in */
    uint64_t dataq_pass;
    int hook;                             /* progress hook id: woken when a queue gets work */
    int lost_seen;                        /* tp->nlost the posted receives were swept for */
    /* Exchanges under way with processes of other jobs (requests whose `wait` was set for
     * one: p2p_underway), which the lost-peer sweep fails when their peer leaves. Inside G
     * only, as those exchanges are; a request leaves the list when it completes
     * (p2p_underway_done), before any thread may release it, so the sweep reads no request
     * a thread outside G may be allocating, handing out or freeing (it used to read the
     * whole request table). */
    MPI_Request *underway;
    int nunderway, capunderway;
    p2p_counters_t counts;                /* p2p_counters_read */
    /* Freed copies of large unexpected eager messages, for the next ones (recv.c,
     * unexp_alloc): taken and given back by atomic exchange, as eager handlers run outside
     * G too. */
    _Atomic(p2p_unexp_t *) unexp_keep[P2P_UNEXP_KEEP];
} p2p_state_t;

/* The instance hangs off the base instance (core_rt->p2p, opaque there): p2p_init makes
 * it, p2p_fini frees it. */
#define P2P (core_rt->p2p)

/* An unexpected message was queued (push) or taken off its queue. */
static inline void p2p_count_unexp(int push)
{
    core_count_level(&P2P->counts.unexp_now, &P2P->counts.unexp_max, push ? 1 : -1);
}

static inline uint64_t p2p_req_id(MPI_Request r) { return r->id; }

/* A send that completes once its EAGER message left (standard or ready mode). */
static inline int p2p_eager_std(MPI_Request s)
{
    return s->proto == P2P_PROTO_EAGER && s->mode != CORE_MODE_SYNC;
}

/* The request a message of kind `what` from world rank src names by id, if it is ours,
 * src is its peer and it waits (any of the `want` P2P_WAIT_* bits) for such a message;
 * else NULL, with the reason given to core_wire_reject. O(1), no locks. */
MPI_Request p2p_req_find(uint64_t id, int src, unsigned want, const char *what);

/* The matching queues of ctx (created on first use); ctx < CORE_CTX_MAX_P2P (a context
 * id from the wire is checked before). */
p2p_mq_t *p2p_mq_get(uint32_t ctx);
/* Sends a control message now, or queues it when the transport is busy. */
void p2p_send_ctrl(int world_dest, unsigned id, const void *hdr, size_t len);
/* Moves the matched receive r onto the rendezvous path described by u. */
void p2p_rndv_recv_start(MPI_Request r, const p2p_unexp_t *u);
/* Streams DATA chunks of a pipelined send; returns 1 when all are out, CORE_EBUSY when the
 * transport took no more, 0 when the last chunk is still leaving. */
int p2p_rndv_push(MPI_Request s);
void p2p_rndv_register(void);
/* Finishes a send request (buffers no longer needed). */
void p2p_req_dereg(MPI_Request r);
/* Its protocol finished (or failed): the send completes unless a CANCEL_RESP is awaited. */
void p2p_send_done(MPI_Request s);
/* Completes s now if it waits in the postq (its message is queued in the transport, in
 * order before anything sent later); 1 if it did. */
int p2p_postq_finish(MPI_Request s);
/* Takes s off the send queue if its first message is still there; 1 if it was. */
int p2p_sendq_remove(MPI_Request s);
/* Whether s is still in the send queue (its first message not out). */
int p2p_sendq_holds(MPI_Request s);
/* Checks the matching part of an EAGER, RTS or CANCEL_REQ header (recv.c). */
int p2p_check_match_hdr(const p2p_hdr_t *h, uint32_t flags_ok, const char *what);
void p2p_cancel_register(void);
/* Finishes a receive: unpacks staging, sets status, completes. */
void p2p_recv_done(MPI_Request r, size_t received, size_t msg_len);
/* Fails r (MPI_ERR_OTHER) if it waits for an answer from a process of another job that has
 * left: a receive matched to a message it sent before leaving, which no sweep saw; else
 * lists it for the sweep as p2p_underway does. */
void p2p_fail_if_lost(MPI_Request r);
/* r waits for an answer (its `wait` set, inside G): when its peer is a process of another
 * job, r goes into the list of exchanges the lost-peer sweep looks at. */
void p2p_underway(MPI_Request r);
void p2p_underway_drop(MPI_Request r);
/* r completes: out of that list (before core_req_complete, after which it may be released). */
static inline void p2p_underway_done(MPI_Request r)
{
    if (__builtin_expect(r->underway, 0))
        p2p_underway_drop(r);
}
/* The transport that carries traffic with world rank peer (for caps checks), or NULL. */
tp_ep_t *p2p_ep_of(int peer);
void p2p_queue_data(MPI_Request s);
int p2p_recv_start(MPI_Request r);
/* Frees an unexpected message taken off its queue, or keeps its eager copy for the next
 * large one (recv.c, unexp_alloc). */
void p2p_unexp_release(p2p_unexp_t *u);
int p2p_send_progress(void);

#endif
