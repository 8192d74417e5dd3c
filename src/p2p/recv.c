/*
 * The receiving side: posting receives, the arrival handlers for eager
 * messages and acknowledgements, probes and matched receives, and the
 * control-message queue (cancel is in cancel.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/copy.h"
#include "core/datatype.h"
#include "core/log.h"
#include "core/progress.h"
#include "p2p/proto.h"



typedef struct p2p_ctrl {
    struct p2p_ctrl *next;
    int dest;
    unsigned id;
    size_t len;
    uint64_t hdr[];   /* len bytes */
} p2p_ctrl_t;

/* Makes the queues of ctx: under MULTIPLE, threads posting receives outside the critical
 * section and the progress engine may race to it; the first compare-and-swap wins. */
static __attribute__((noinline, cold)) p2p_mq_t *mq_create(uint32_t ctx)
{
    p2p_mq_t *mq = calloc(1, sizeof(*mq));
    if (!mq)
        core_fatal("out of memory receiving a message");
    /* the dynamic-process pairs' context and its collective one */
    mq->by_world = (ctx | 1) == (CORE_CTX_DYN | 1);
    pthread_mutex_init(&mq->lock, NULL);
    p2p_mq_t *old = NULL;
    if (__atomic_compare_exchange_n(&P2P->mq[ctx], &old, mq, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return mq;
    pthread_mutex_destroy(&mq->lock);
    free(mq);
    return old;
}

p2p_mq_t *p2p_mq_get(uint32_t ctx)
{
    /* acquire: the queues' lock and by_world were set before the pointer was published */
    p2p_mq_t *mq = __atomic_load_n(&P2P->mq[ctx], __ATOMIC_ACQUIRE);
    return __builtin_expect(mq != NULL, 1) ? mq : mq_create(ctx);
}

void p2p_send_ctrl(int world_dest, unsigned id, const void *hdr, size_t len)
{
    tp_ep_t *ep;
    int rc = tp_ep_get(P2P->tp, world_dest, &ep);
    if (rc == 0 && !P2P->ctrlq_head) {
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
    if (P2P->ctrlq_tail)
        P2P->ctrlq_tail->next = c;
    else
        P2P->ctrlq_head = c;
    P2P->ctrlq_tail = c;
    core_progress_wake(P2P->rt, P2P->hook);
}

static int ctrlq_progress(void)
{
    int events = 0;
    while (P2P->ctrlq_head) {
        p2p_ctrl_t *c = P2P->ctrlq_head;
        int rc = tp_am_send(P2P->tp->eps[c->dest], c->id, c->hdr, c->len, NULL, 0);
        if (rc == CORE_EBUSY)
            break;
        if (rc) /* the peer is gone (a process of another job that finalized): no one
                   waits for this message, and the ones behind it must not wait */
            core_debug("a control message to rank %d dropped: %s", c->dest,
                       core_strerror(rc));
        P2P->ctrlq_head = c->next;
        if (!P2P->ctrlq_head)
            P2P->ctrlq_tail = NULL;
        free(c);
        events++;
    }
    return events;
}

CORE_INLINE void recv_done(MPI_Request r, size_t received, size_t msg_len)
{
    r->wait = 0;
    if (__builtin_expect(r->tmp != NULL, 0)) {
        core_dt_unpack(r->buf, r->count, r->dt, r->tmp, received);
        free(r->tmp);
        r->tmp = NULL;
    }
    if (__builtin_expect(r->memh != NULL, 0))
        p2p_req_dereg(r);
    r->status.rdmpi_nbytes = (long long)received;
    r->status.MPI_ERROR = msg_len > received ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    p2p_underway_done(r);
    core_req_complete_fast(r);
}

void p2p_recv_done(MPI_Request r, size_t received, size_t msg_len)
{
    recv_done(r, received, msg_len);
}

tp_ep_t *p2p_ep_of(int peer)
{
    tp_ep_t *ep;
    return tp_ep_get(P2P->tp, peer, &ep) == 0 ? ep : NULL;
}

MPI_Request p2p_req_find(uint64_t id, int src, unsigned want, const char *what)
{
    MPI_Request r = core_req_lookup(&P2P->rt->reqs, id);
    if (!r) {
        core_wire_reject(P2P->rt, "request id 0x%llx is not a request of this rank (stale or "
                         "forged)", (unsigned long long)id);
        return NULL;
    }
    if (!(r->wait & want)) {
        core_wire_reject(P2P->rt, "request id 0x%llx is not a %s waiting for a %s",
                         (unsigned long long)id,
                         want & (P2P_WAIT_DATA | P2P_WAIT_PUT_FIN) ? "rendezvous receive"
                         : want & P2P_WAIT_CANCEL                  ? "send being cancelled"
                         : want & P2P_WAIT_ACK                     ? "synchronous send"
                                                                   : "rendezvous send",
                         what);
        return NULL;
    }
    if (r->world_peer != src) {
        core_wire_reject(P2P->rt, "request id 0x%llx belongs to an exchange with rank %d",
                         (unsigned long long)id, r->world_peer);
        return NULL;
    }
    return r;
}

/* Copies a peer's header of exactly `size` bytes (a fixed-size message), or refuses it. */
static int take_hdr(void *dst, size_t size, const void *hdr, size_t hdr_len, const char *what)
{
    if (hdr_len != size)
        return core_wire_reject(P2P->rt, "%s header of %zu bytes (expected %zu)", what, hdr_len,
                                size);
    memcpy(dst, hdr, size);
    return 0;
}

/* Says why a match header failed check_match_hdr (cold); 0 if it did not after all (a
 * negative tag on an internal context). */
static int __attribute__((noinline, cold)) bad_match_hdr(const p2p_hdr_t *h, uint32_t flags_ok,
                                                        const char *what)
{
    if (h->ctx >= CORE_CTX_MAX_P2P)
        return core_wire_reject(P2P->rt, "%s for context id %u (at most %d)", what, h->ctx,
                                CORE_CTX_MAX_P2P - 1);
    if (h->flags & ~flags_ok)
        return core_wire_reject(P2P->rt, "%s with unknown flags 0x%x", what,
                                h->flags & ~flags_ok);
    if (h->src < 0)
        return core_wire_reject(P2P->rt, "%s from source rank %d", what, h->src);
    if (h->tag == MPI_ANY_TAG || (h->tag < 0 && !(h->ctx & 1)))
        return core_wire_reject(P2P->rt, "%s with tag %d on context %u", what, h->tag, h->ctx);
    return 0;
}

/* Checks the matching part of an EAGER or RTS header. The source rank's upper bound and
 * its world rank are checked where a receive (and so the communicator) is known: when a
 * posted receive matches (p2p_mq_take_posted), else when one finds it (check_unexp). A
 * context id may be one this rank has not created yet (a peer that left the agreement
 * first may send at once), so only its range is checked here. User contexts (even) carry
 * MPI tags; internal ones (odd) also negative tags; no message has MPI_ANY_TAG. The common
 * case (every field in range, tag >= 0) costs one branch: eager messages pass here. */
CORE_INLINE int check_match_hdr(const p2p_hdr_t *h, uint32_t flags_ok, const char *what)
{
    if (__builtin_expect((h->ctx >= CORE_CTX_MAX_P2P) | ((h->flags & ~flags_ok) != 0) |
                             (h->src < 0) | (h->tag < 0), 0))
        return bad_match_hdr(h, flags_ok, what);
    return 0;
}

int p2p_check_match_hdr(const p2p_hdr_t *h, uint32_t flags_ok, const char *what)
{
    return check_match_hdr(h, flags_ok, what);
}

static int __attribute__((noinline, cold)) forged_src(const p2p_hdr_t *h, const char *what)
{
    return core_wire_reject(P2P->rt, "%s claims to come from rank %d of context %u, which is "
                            "not the sender", what, h->src, h->ctx);
}

/* The posted receive of mq that takes a message (src, tag) from world rank world_src, or
 * NULL; *rc is CORE_EPROTO (with the reason) when the message lies about its source. Under
 * M (the reason is only formatted: core_wire_reject takes no lock). */
CORE_INLINE MPI_Request take_posted(p2p_mq_t *mq, const p2p_hdr_t *h, int world_src, int *rc,
                                    const char *what)
{
    *rc = 0;
    MPI_Request r = p2p_mq_take_posted(mq, h->src, h->tag, world_src);
    if (__builtin_expect(r == P2P_MQ_FORGED, 0)) {
        *rc = forged_src(h, what);
        return NULL;
    }
    return r;
}

/* A matched MPI_ANY_SOURCE receive no longer needs its communicator's group (after M). */
CORE_INLINE void drop_any_group(MPI_Request r)
{
    if (__builtin_expect(r->any_group != NULL, 0)) {
        core_group_release(r->any_group);
        r->any_group = NULL;
    }
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
        core_copy_small(r->buf, payload, n);
    else
        core_dt_unpack(r->buf, r->count, r->dt, payload, n);
    if (h->flags & P2P_F_SYNC) {
        p2p_req_hdr_t ack = { sreq };
        p2p_send_ctrl(world_src, P2P_AM_ACK, &ack, sizeof(ack));
    }
    recv_done(r, n, len); /* inline: each eager arrival (osu_mbw_mr) */
}

/* Whether a posted receive may be delivered by a pass outside G: nothing to run at its
 * completion but the completion (no binding's hook, not freed by the user, which would
 * release it and its references there, no derived datatype to unpack into or release, not
 * persistent). */
static inline int plain_recv(MPI_Request r)
{
    return !r->persistent && !r->hook && !r->dt_held && !r->file &&
           !__atomic_load_n(&r->freed, __ATOMIC_RELAXED);
}

/* The copies of large unexpected eager messages are kept for the next ones (at most
 * P2P_UNEXP_KEEP, of at most UNEXP_KEEP_MAX bytes each), not freed: a window of large eager
 * sends arriving before their receives (osu_bibw's, the sender running a window ahead) made
 * malloc and free of 64 KiB each at the top of the heap, which glibc gives back to the
 * system and faults in again (brk/trim; 128 KiB and up: mmap/munmap). With the shm eager
 * limit at 64 KiB osu_bibw 64 KiB fell to 3-12 GB/s in most runs (2 ranks, one node),
 * 18-29 with the heap's trimming turned off (MALLOC_TRIM_THRESHOLD_ and _TOP_PAD_ raised),
 * 28-30 by rendezvous. Smaller copies are malloc's (its bins keep them). */
#define UNEXP_KEEP_MIN (8u << 10)
#define UNEXP_KEEP_MAX (256u << 10)

static p2p_unexp_t *unexp_alloc(size_t len)
{
    if (len < UNEXP_KEEP_MIN || len > UNEXP_KEEP_MAX) {
        p2p_unexp_t *u = malloc(sizeof(*u) + len);
        if (u)
            u->cap = 0;
        return u;
    }
    for (int i = 0; i < P2P_UNEXP_KEEP; i++) {
        if (!atomic_load_explicit(&P2P->unexp_keep[i], memory_order_relaxed))
            continue;
        /* acquire: the thread that gave it back was done with it */
        p2p_unexp_t *u = atomic_exchange_explicit(&P2P->unexp_keep[i], NULL,
                                                  memory_order_acquire);
        if (u && u->cap >= len)
            return u;
        free(u); /* too small for this one: a bigger copy takes its place */
    }
    /* a power of two: messages of sizes within a factor 2 share the copies */
    size_t cap = UNEXP_KEEP_MIN;
    while (cap < len)
        cap *= 2;
    p2p_unexp_t *u = malloc(sizeof(*u) + cap);
    if (u)
        u->cap = cap;
    return u;
}

void p2p_unexp_release(p2p_unexp_t *u)
{
    if (u && u->cap)
        for (int i = 0; i < P2P_UNEXP_KEEP; i++) {
            p2p_unexp_t *none = NULL;
            if (!atomic_load_explicit(&P2P->unexp_keep[i], memory_order_relaxed) &&
                atomic_compare_exchange_strong_explicit(&P2P->unexp_keep[i], &none, u,
                                                        memory_order_release,
                                                        memory_order_relaxed))
                return;
        }
    free(u);
}

/* An eager message no receive matched, copied out of the transport's buffer for the
 * unexpected queue (both eager handlers, inside and outside G). */
static p2p_unexp_t *unexp_eager(const p2p_hdr_t *h, int src, const void *payload, size_t len,
                                uint64_t sreq)
{
    p2p_unexp_t *u = unexp_alloc(len);
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
    if (len) /* a zero-byte message may come with no payload pointer at all */
        memcpy(u->data, payload, len);
    return u;
}

/* EAGER in a pass of the engine outside G (core_wait_req_outside, ARCHITECTURE.md
 * "Threads"): only a standard message (no ACK owed: p2p's control queue is G's) on a
 * context whose queues are used outside G already (its arrivals take M: p2p_mq_t.outside),
 * matched by a plain receive or queued as unexpected; anything else is left in the channel
 * for a pass inside G (CORE_EBUSY after core_cs_pass_defer), before anything is counted. */
static int __attribute__((noinline)) eager_outside(const p2p_hdr_t *h, int src,
                                                   const void *payload, size_t len)
{
    p2p_mq_t *mq;
    if ((h->flags & (P2P_F_SYNC | P2P_F_SREQ)) || !(mq = p2p_mq_get(h->ctx)) ||
        !__atomic_load_n(&mq->outside, __ATOMIC_RELAXED))
        goto defer;
    pthread_mutex_lock(&mq->lock);
    MPI_Request r = p2p_mq_find_posted(mq, h->src, h->tag, src);
    if (r == P2P_MQ_FORGED || (r && !plain_recv(r))) {
        pthread_mutex_unlock(&mq->lock); /* a forged source is reported inside G */
        goto defer;
    }
    core_count_add2_as(&P2P->counts.arrived, 1, &P2P->counts.arrived_bytes, len,
                       core_handles.shared);
    if (r) {
        p2p_mq_take_posted(mq, h->src, h->tag, src); /* r: the first match, as found */
        pthread_mutex_unlock(&mq->lock);
        drop_any_group(r);
        deliver_eager(r, h, src, payload, len, 0);
        return 0;
    }
    p2p_mq_push_unexp(mq, unexp_eager(h, src, payload, len, 0));
    pthread_mutex_unlock(&mq->lock);
    p2p_count_unexp(1);
    return 0;
defer:
    core_cs_pass_defer();
    return CORE_EBUSY;
}

static int eager_handler(void *arg, int src, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len)
{
    p2p_hdr_t hh;
    const p2p_hdr_t *h = &hh;
    uint64_t sreq = 0;
    int rc;
    (void)arg;
    if (__builtin_expect(hdr_len < sizeof(p2p_hdr_t), 0))
        return core_wire_reject(P2P->rt, "EAGER header of %zu bytes", hdr_len);
    memcpy(&hh, hdr, sizeof(hh));
    /* A synchronous (or F_SREQ) send's header carries its request id after the match
     * header. */
    _Static_assert(P2P_F_SYNC == 1 && P2P_F_SREQ == 4 &&
                       sizeof(p2p_sync_hdr_t) == sizeof(p2p_hdr_t) + 8, "");
    if (__builtin_expect(hdr_len != sizeof(p2p_hdr_t) + 8 * ((h->flags | h->flags >> 2) & 1),
                         0)) {
        if ((rc = check_match_hdr(h, P2P_EAGER_FLAGS, "EAGER")) != 0)
            return rc;
        return core_wire_reject(P2P->rt, "EAGER header of %zu bytes with flags 0x%x", hdr_len,
                                h->flags);
    }
    if ((rc = check_match_hdr(h, P2P_EAGER_FLAGS, "EAGER")) != 0)
        return rc;
    /* a pass outside G happens only under MULTIPLE: SINGLE skips the call */
    if (__builtin_expect(P2P->rt->cs.on, 0) && core_cs_pass_outside())
        return eager_outside(h, src, payload, len);
    core_count_add2_as(&P2P->counts.arrived, 1, &P2P->counts.arrived_bytes, len,
                       core_handles.shared);
    if (h->flags & (P2P_F_SYNC | P2P_F_SREQ))
        memcpy(&sreq, (const char *)hdr + offsetof(p2p_sync_hdr_t, sreq), sizeof(sreq));
    p2p_mq_t *mq = p2p_mq_get(h->ctx);
    /* The search of the posted receives and the queueing as unexpected are one step under
     * M: a receive posted in between would miss the message. */
    int locked = p2p_mq_lock(mq);
    MPI_Request r = take_posted(mq, h, src, &rc, "EAGER");
    if (r || rc) {
        p2p_mq_unlock(mq, locked);
        if (!r)
            return rc;
        drop_any_group(r);
        deliver_eager(r, h, src, payload, len, sreq);
        return 0;
    }
    p2p_mq_push_unexp(mq, unexp_eager(h, src, payload, len, sreq));
    p2p_mq_unlock(mq, locked);
    p2p_count_unexp(1);
    return 0;
}

static int rts_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    p2p_rts_hdr_t h;
    (void)arg;
    (void)payload;
    const size_t fixed = offsetof(p2p_rts_hdr_t, rkey);
    if (hdr_len < fixed || hdr_len > sizeof(h))
        return core_wire_reject(P2P->rt, "RTS header of %zu bytes", hdr_len);
    memset(&h, 0, sizeof(h));
    memcpy(&h, hdr, hdr_len);
    int rc = check_match_hdr(&h.m, P2P_RTS_FLAGS, "RTS");
    if (rc)
        return rc;
    if (len != 0)
        return core_wire_reject(P2P->rt, "RTS with a %zu-byte payload", len);
    if (h.rkey_len != hdr_len - fixed)
        return core_wire_reject(P2P->rt, "RTS with a %u-byte remote key in a %zu-byte header",
                                h.rkey_len, hdr_len);
    if (h.len == 0 || h.len > PTRDIFF_MAX)
        return core_wire_reject(P2P->rt, "RTS for a %llu-byte message",
                                (unsigned long long)h.len);
    tp_ep_t *ep = p2p_ep_of(src);
    if (!ep)
        return core_wire_reject(P2P->rt, "RTS from a rank this one cannot answer");
    int get = h.raddr != 0, put = (h.m.flags & P2P_F_PUT) != 0;
    if (get && put)
        return core_wire_reject(P2P->rt, "RTS that offers both a buffer to read and a put");
    if (get && !(tp_ep_caps(ep)->flags & TP_CAP_GET))
        return core_wire_reject(P2P->rt, "RTS offers a buffer to read, which %s cannot",
                                ep->iface->name);
    if (h.rkey_len > (get ? tp_ep_caps(ep)->max_rkey : 0))
        return core_wire_reject(P2P->rt, "RTS with a %u-byte remote key (%s takes %zu)",
                                h.rkey_len, ep->iface->name, get ? tp_ep_caps(ep)->max_rkey : 0);
    p2p_unexp_t u;
    u.src = h.m.src;
    u.tag = h.m.tag;
    u.world_src = src;
    u.proto = get ? P2P_PROTO_RNDV_GET : put ? P2P_PROTO_RNDV_PUT : P2P_PROTO_RNDV_PIPE;
    u.flags = h.m.flags;
    u.len = h.len;
    u.sreq = h.sreq;
    u.raddr = h.raddr;
    u.rkey_len = h.rkey_len;
    memcpy(u.rkey, h.rkey, sizeof(u.rkey)); /* zero past rkey_len */
    core_count_add2_as(&P2P->counts.arrived, 1, &P2P->counts.arrived_bytes, h.len,
                       core_handles.shared);
    u.data = NULL;
    u.cap = 0;
    p2p_mq_t *mq = p2p_mq_get(h.m.ctx);
    int locked = p2p_mq_lock(mq); /* one step with the queueing, as in eager_handler */
    MPI_Request r = take_posted(mq, &h.m, src, &rc, "RTS");
    if (r || rc) {
        p2p_mq_unlock(mq, locked);
        if (!r)
            return rc;
        drop_any_group(r);
        p2p_rndv_recv_start(r, &u);
        return 0;
    }
    p2p_unexp_t *copy = malloc(sizeof(*copy));
    if (!copy)
        core_fatal("out of memory receiving a message");
    *copy = u;
    p2p_mq_push_unexp(mq, copy);
    p2p_mq_unlock(mq, locked);
    p2p_count_unexp(1);
    return 0;
}

static int ack_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                       size_t len)
{
    p2p_req_hdr_t h = { 0 };
    (void)arg;
    (void)payload;
    int rc = take_hdr(&h, sizeof(h), hdr, hdr_len, "ACK");
    if (rc)
        return rc;
    if (len != 0)
        return core_wire_reject(P2P->rt, "ACK with a %zu-byte payload", len);
    MPI_Request s = p2p_req_find(h.req, src, P2P_WAIT_ACK, "ACK");
    if (!s)
        return CORE_EPROTO;
    p2p_send_done(s);
    return 0;
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
    p2p_unexp_release(u);
}

/* An unexpected message is found by a receive, probe or matched probe on comm: the source
 * rank it claimed on arrival (when the communicator may not have existed here yet) must be
 * the rank of its sender in comm. If not, the sender lied about who it is: reported like a
 * malformed message refused on arrival (u is freed first when taken: pass take). */
static void check_unexp(MPI_Comm comm, p2p_unexp_t *u, int take)
{
    if (u->src < core_comm_peer_size(comm) && core_comm_peer_world(comm, u->src) == u->world_src)
        return;
    int peer = u->world_src, src = u->src;
    const char *what = u->proto == P2P_PROTO_EAGER ? "EAGER" : "RTS";
    if (take)
        p2p_unexp_release(u);
    tp_ep_t *ep = P2P->tp->eps[peer];
    char why[160];
    snprintf(why, sizeof(why), "it claims to be rank %d of %s, which is not the sender", src,
             core_comm_label(comm));
    core_wire_fail(P2P->rt, peer, ep ? ep->iface->name : "its transport", what, why);
}

/* Whether a receive or probe from src (a rank of comm's peers, or MPI_ANY_SOURCE; world:
 * src's process, or -1) can never be matched: its sender, a process of another job, has
 * left (tp_peer_lost); for MPI_ANY_SOURCE, every peer has (we never are lost, so an
 * intracommunicator's own member keeps it alive). Messages that arrived before are matched
 * first: they came before the goodbye. */
static int src_lost(MPI_Group any, int world)
{
    const tp_layer_t *tp = P2P->tp;
    if (__builtin_expect(!tp->nlost, 1))
        return 0;
    if (!any)
        return world >= 0 && tp_peer_is_lost(tp, world);
    for (int i = 0; i < any->size; i++)
        if (!tp_peer_is_lost(tp, any->ranks[i]))
            return 0;
    return any->size > 0;
}

/* Fails r, a receive that was to come from a process that has left (see src_lost). */
static void fail_lost(MPI_Request r)
{
    if (r->any_group) {
        core_group_release(r->any_group);
        r->any_group = NULL;
    }
    r->status.MPI_SOURCE = r->peer;
    r->status.MPI_TAG = r->tag;
    r->status.MPI_ERROR = MPI_ERR_OTHER;
    core_req_complete(r);
}

/* A process of another job is not connected to until something goes to it; a receive
 * waiting for it connects now, so that its goodbye (or its closed listener) reaches us. */
CORE_INLINE void watch_peer(int world, uint32_t ctx)
{
    if (world >= P2P->rt->size && !(ctx & 1) && !tp_peer_is_lost(P2P->tp, world))
        (void)p2p_ep_of(world); /* failing to connect is reported there */
}

/* Some process of another job has left (tp layer's on_lost, from a handler or a send):
 * the posted receives are swept from progress (lost_sweep), not from here. */
static void on_lost(void *arg)
{
    (void)arg;
    core_progress_wake(P2P->rt, P2P->hook);
}

/* Fails r, an exchange under way with a process that has left: nothing more comes from it. */
static void fail_underway(MPI_Request r)
{
    if (r->kind == CORE_REQ_SEND) {
        /* only the CANCEL_RESP was missing */
        int delivered = (r->wait & P2P_WAIT_DONE) || p2p_eager_std(r);
        r->wait = 0; /* no CANCEL_RESP will come either */
        if (!delivered)
            r->status.MPI_ERROR = MPI_ERR_OTHER;
        p2p_send_done(r);
        return;
    }
    r->wait = 0;
    free(r->tmp);
    r->tmp = NULL;
    p2p_req_dereg(r);
    r->status.MPI_ERROR = MPI_ERR_OTHER;
    p2p_underway_done(r);
    core_req_complete(r);
}

void p2p_fail_if_lost(MPI_Request r)
{
    if (r->wait && r->world_peer >= P2P->rt->size && P2P->tp->nlost &&
        tp_peer_is_lost(P2P->tp, r->world_peer))
        fail_underway(r);
    else
        p2p_underway(r);
}

void p2p_underway(MPI_Request r)
{
    if (!r->wait || r->world_peer < P2P->rt->size || r->underway)
        return;
    if (P2P->nunderway == P2P->capunderway) {
        int cap = P2P->capunderway ? 2 * P2P->capunderway : 16;
        MPI_Request *u = realloc(P2P->underway, (size_t)cap * sizeof(*u));
        if (!u) /* not swept: a wait for a peer that leaves then hangs, as rdmpi did before */
            return;
        P2P->underway = u;
        P2P->capunderway = cap;
    }
    P2P->underway[P2P->nunderway++] = r;
    r->underway = 1;
}

void p2p_underway_drop(MPI_Request r)
{
    for (int i = P2P->nunderway; i-- > 0;)
        if (P2P->underway[i] == r) {
            P2P->underway[i] = P2P->underway[--P2P->nunderway];
            break;
        }
    r->underway = 0;
}

/* Exchanges already under way with processes that have left, which no receive queue
 * holds: a matched rendezvous receive waiting for its data, a synchronous send waiting for
 * its acknowledgement, a rendezvous send waiting for the receiver's answer. From the list
 * of those with other jobs' processes (p2p_underway), backwards: failing one takes it out
 * (its place gets the last one, looked at already). */
static int underway_sweep(void)
{
    int events = 0;
    for (int i = P2P->nunderway; i-- > 0;) {
        if (i >= P2P->nunderway)
            continue; /* the completion of the last one failed took more than itself out */
        MPI_Request r = P2P->underway[i];
        if (!r->wait || !tp_peer_is_lost(P2P->tp, r->world_peer) ||
            /* the send queue fails its own when the transport refuses the message */
            (r->kind == CORE_REQ_SEND && p2p_sendq_holds(r)))
            continue;
        fail_underway(r);
        events++;
    }
    return events;
}

/* Fails every posted receive that waits for a process that has left. */
static int lost_sweep(void)
{
    int events = underway_sweep();
    P2P->lost_seen = P2P->tp->nlost;
    for (int i = 0; i < CORE_CTX_MAX_P2P; i++) {
        p2p_mq_t *mq = __atomic_load_n(&P2P->mq[i], __ATOMIC_ACQUIRE);
        if (!mq)
            continue;
        int locked = p2p_mq_lock(mq); /* fail_lost completes the receive: no lock of its own */
        for (MPI_Request r = mq->posted_head, n; r; r = n) {
            n = r->next;
            if (!src_lost(r->any_group, r->peer == MPI_ANY_SOURCE ? -1 : r->world_peer))
                continue;
            p2p_mq_unpost(mq, r);
            fail_lost(r);
            events++;
        }
        p2p_mq_unlock(mq, locked);
    }
    return events;
}

int p2p_src_lost(MPI_Comm comm, uint32_t ctx, int src)
{
    if (src == MPI_ANY_SOURCE) {
        MPI_Group g = core_comm_peers(comm);
        for (int i = 0; core_comm_is_inter(comm) && i < g->size; i++)
            watch_peer(g->ranks[i], ctx);
        return src_lost(g, -1);
    }
    if (src < 0 || src >= core_comm_peer_size(comm))
        return 0;
    int world = core_comm_peer_world(comm, src);
    watch_peer(world, ctx);
    return src_lost(NULL, world);
}

/* Whether a receive posted outside the critical section needs it after all: a peer of
 * another job (watch_peer connects, a lost peer is looked up), an intercommunicator or a
 * dynamic-process context (their peers), or a peer that has left (tp's lost table). */
static int recv_needs_cs(MPI_Request r)
{
    if (core_comm_is_inter(r->comm) || (r->ctx | 1) == (CORE_CTX_DYN | 1) ||
        __atomic_load_n(&P2P->tp->nlost, __ATOMIC_RELAXED) != 0)
        return 1;
    return r->peer != MPI_ANY_SOURCE &&
           core_comm_peer_world(r->comm, r->peer) >= P2P->rt->size;
}

/* Whether delivering the unexpected message u needs the critical section: it answers the
 * sender (a synchronous send's ACK, a rendezvous), or it lies about its source (check_unexp
 * ends the job). An eager message of a standard send is copied out without it. */
static int unexp_needs_cs(MPI_Comm comm, const p2p_unexp_t *u)
{
    return u->proto != P2P_PROTO_EAGER || (u->flags & P2P_F_SYNC) ||
           u->src >= core_comm_peer_size(comm) || core_comm_peer_world(comm, u->src) != u->world_src;
}

/* The first receive posted outside G on mq's context: from now on the threads inside G take
 * M too. Set inside G, so none of them is in the middle of a queue operation without M. */
static __attribute__((noinline, cold)) void mq_go_outside(p2p_mq_t *mq)
{
    core_cs_enter(&P2P->rt->cs);
    __atomic_store_n(&mq->outside, 1, __ATOMIC_RELAXED);
    core_cs_exit(&P2P->rt->cs);
}

static int recv_start(MPI_Request r, int outside)
{
    /* What an arriving message's claimed source is checked against (p2p_src_ok): set
     * before the receive is posted, read by the handler that takes it. And the connection
     * to a sender of another job (watch_peer), made before the unexpected queue is searched:
     * connecting may leave the critical section (a transport waits for the address the
     * process publishes, core_cs_usleep), and another thread's progress may meanwhile take
     * that process's message into the unexpected queue. Done between the search and the
     * posting, that message would be passed over and the sender's next one taken instead
     * (MPI_Comm_spawn's leaders' 1-int swap, several threads spawning at once over verbs,
     * got the children's longer next message: MPI_ERR_TRUNCATE; unit p2p_wire/connect_window). */
    if (r->peer != MPI_ANY_SOURCE) {
        r->world_peer = core_comm_peer_world(r->comm, r->peer);
        if (!outside)
            watch_peer(r->world_peer, r->ctx);
    } else {
        r->any_group = core_comm_peers(r->comm);
        core_group_retain(r->any_group);
        /* intercommunicators only: an intracommunicator's ANY_SOURCE receive is a hot path,
         * and its own members (us) keep it alive */
        if (core_comm_is_inter(r->comm))
            for (int i = 0; i < r->any_group->size; i++)
                watch_peer(r->any_group->ranks[i], r->ctx);
    }
    p2p_mq_t *mq = p2p_mq_get(r->ctx);
    if (outside && !__atomic_load_n(&mq->outside, __ATOMIC_RELAXED))
        mq_go_outside(mq);
    /* The search of the unexpected messages and the posting are one step under M: a
     * message arriving in between would be queued as unexpected behind our back. */
    int locked = p2p_mq_lock(mq);
    p2p_unexp_t *u = p2p_mq_find_unexp(mq, r->peer, r->tag, 1, core_comm_peers(r->comm));
    if (u) {
        p2p_mq_unlock(mq, locked);
        drop_any_group(r);
        p2p_count_unexp(0);
        if (outside && unexp_needs_cs(r->comm, u)) {
            core_cs_enter(&P2P->rt->cs);
            check_unexp(r->comm, u, 1);
            recv_from_unexp(r, u);
            core_cs_exit(&P2P->rt->cs);
            return 0;
        }
        check_unexp(r->comm, u, 1);
        recv_from_unexp(r, u);
        return 0;
    }
    /* outside: recv_needs_cs saw no lost peer */
    if (!outside && __builtin_expect(P2P->tp->nlost != 0, 0) &&
        src_lost(r->any_group, r->peer == MPI_ANY_SOURCE ? -1 : r->world_peer)) {
        p2p_mq_unlock(mq, locked);
        fail_lost(r);
        return 0;
    }
    p2p_mq_post(mq, r);
    p2p_mq_unlock(mq, locked);
    return 0;
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
    /* Under MULTIPLE, MPI_Irecv calls this outside the critical section G (the matching
     * lock M is what posting needs); what needs more takes G here. */
    core_cs_t *cs = &P2P->rt->cs;
    if (!core_cs_outside(cs))
        return recv_start(r, 0);
    if (recv_needs_cs(r)) {
        core_cs_enter(cs);
        int rc = recv_start(r, 0);
        core_cs_exit(cs);
        return rc;
    }
    return recv_start(r, 1);
}

int p2p_ctx_outside(uint32_t ctx)
{
    p2p_mq_t *mq = ctx < CORE_CTX_MAX_P2P ? __atomic_load_n(&P2P->mq[ctx], __ATOMIC_ACQUIRE)
                                          : NULL;
    return mq && __atomic_load_n(&mq->outside, __ATOMIC_RELAXED);
}

int p2p_irecv(void *buf, size_t count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              uint32_t ctx, MPI_Request *req)
{
    MPI_Request r = core_req_get(CORE_REQ_RECV);
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
    /* What p2p_recv_start sets first a fresh request has already (complete, cancelled, tmp,
     * memh and the status's error, cancelled and count are zero). */
    if (__builtin_expect(!P2P->rt->cs.on, 1)) {
        if (__builtin_expect(src >= 0, 1)) {
            /* The common case of a window of receives (osu_mbw_mr, osu_bw), inline: from one
             * rank of this job (watch_peer has nothing to do, no lost peers), on a context
             * whose queues exist and hold no unexpected message: what recv_start does then
             * is posting r (no thread other than ours: no M). recv_start's calls were ~60
             * instructions of each 8-byte MPI_Irecv (callgrind). */
            int world = core_comm_peer_world(comm, src);
            p2p_mq_t *mq = P2P->mq[ctx]; /* ctx: the caller's (p2p_mq_get) */
            if (mq && !mq->unexp_head && world < P2P->rt->size && !P2P->tp->nlost &&
                !__atomic_load_n(&mq->outside, __ATOMIC_RELAXED)) {
                r->world_peer = world;
                p2p_mq_post(mq, r);
                return 0;
            }
        }
        if (src != MPI_PROC_NULL)
            return recv_start(r, 0);
    }
    return p2p_recv_start(r);
}

int p2p_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx, int *flag, MPI_Status *st,
               p2p_unexp_t **msg)
{
    p2p_mq_t *mq = p2p_mq_get(ctx);
    p2p_unexp_t copy;
    int locked = p2p_mq_lock(mq);
    p2p_unexp_t *u = p2p_mq_find_unexp(mq, src, tag, msg != NULL, core_comm_peers(comm));
    if (u && !msg) { /* left queued: a receive posted outside G may take it once M is left */
        copy = *u;
        u = &copy;
    }
    p2p_mq_unlock(mq, locked);
    *flag = u != NULL;
    if (!u)
        return 0;
    if (msg)
        p2p_count_unexp(0);
    check_unexp(comm, u, msg != NULL);
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = u->src;
        st->MPI_TAG = u->tag; /* MPI_ERROR stays the caller's (core_status_out) */
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

static int p2p_progress(void *arg)
{
    (void)arg;
    int events = ctrlq_progress() + p2p_send_progress();
    if (__builtin_expect(P2P->lost_seen != P2P->tp->nlost, 0))
        events += lost_sweep();
    if (!P2P->ctrlq_head && p2p_peerq_empty(&P2P->sendq) && !P2P->dataq_head &&
        p2p_peerq_empty(&P2P->postq))
        core_progress_rest(P2P->rt, P2P->hook);
    return events;
}

int p2p_init(core_runtime_t *rt, tp_layer_t *tp)
{
    if (!(rt->p2p = calloc(1, sizeof(*rt->p2p))))
        return CORE_ENOMEM;
    P2P->rt = rt;
    P2P->tp = tp;
    if (!(P2P->cfg = core_config_add(&rt->cfg, &p2p_config_group)))
        return CORE_ENOMEM;
    /* by process, other jobs' included (core/procs.h); a test's runtime may have no table */
    int n = rt->proc_cap > rt->size ? rt->proc_cap : rt->size;
    P2P->queued = calloc((size_t)n, sizeof(int));
    P2P->busy_pass = calloc((size_t)n, sizeof(uint64_t));
    if (!P2P->queued || !P2P->busy_pass || p2p_peerq_init(&P2P->sendq, n) ||
        p2p_peerq_init(&P2P->postq, n))
        return CORE_ENOMEM;
    /* EAGER may run in a pass outside G (eager_outside); the others wait for one inside */
    tp_am_register(P2P->tp, P2P_AM_EAGER,
                   (tp_am_entry_t){ eager_handler, NULL, NULL, "EAGER", NULL, 1 });
    tp_am_register(P2P->tp, P2P_AM_RTS, (tp_am_entry_t){ rts_handler, NULL, NULL, "RTS" });
    tp_am_register(P2P->tp, P2P_AM_ACK, (tp_am_entry_t){ ack_handler, NULL, NULL, "ACK" });
    p2p_rndv_register();
    p2p_cancel_register();
    P2P->hook = core_progress_add_hook(rt, p2p_progress, NULL);
    tp->on_lost = on_lost;
    tp->on_lost_arg = NULL;
    /* the counters go to the threads' shards under MULTIPLE (core/count.h); without room in
     * them they stay locked increments */
    (void)core_count_register((uint64_t *)&P2P->counts, sizeof(P2P->counts) / sizeof(uint64_t));
    return 0;
}

int p2p_drain(void)
{
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Finalize", NULL);
    while (!p2p_peerq_empty(&P2P->sendq) || P2P->dataq_head || P2P->ctrlq_head ||
           !p2p_peerq_empty(&P2P->postq))
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    return 0;
}

void p2p_fini(void)
{
    if (!P2P)
        return;
    for (int i = 0; i < P2P_UNEXP_KEEP; i++)
        free(atomic_exchange_explicit(&P2P->unexp_keep[i], NULL, memory_order_acquire));
    for (int i = 0; i < CORE_CTX_MAX_P2P; i++) {
        p2p_mq_t *mq = P2P->mq[i];
        if (!mq)
            continue;
        for (p2p_unexp_t *u = mq->unexp_head, *n; u; u = n) {
            n = u->next;
            free(u);
        }
        for (MPI_Request r = mq->posted_head; r; r = r->next)
            if (r->any_group) {
                core_group_release(r->any_group);
                r->any_group = NULL;
            }
        pthread_mutex_destroy(&mq->lock);
        free(mq);
        P2P->mq[i] = NULL;
    }
    free(P2P->queued);
    free(P2P->busy_pass);
    free(P2P->underway);
    p2p_peerq_fini(&P2P->sendq);
    p2p_peerq_fini(&P2P->postq);
    core_count_unregister((uint64_t *)&P2P->counts);
    free(P2P);
    core_rt->p2p = NULL;
}

void p2p_counters_read(p2p_counters_t *out)
{
    /* MPI_T may read before MPI_Init or after MPI_Finalize: nothing counted then */
    *out = (p2p_counters_t){ 0 };
    if (!P2P)
        return;
    const uint64_t *from = (const uint64_t *)&P2P->counts;
    uint64_t *to = (uint64_t *)out;
    for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++) /* only uint64_t fields */
        to[i] = core_count_read(&from[i]);
    out->sent = out->eager + out->rndv_get + out->rndv_put + out->rndv_pipe; /* count_send */
}
