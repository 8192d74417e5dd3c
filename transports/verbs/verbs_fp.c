/*
 * The RDMA-write eager fast path. A rank gives each of its first
 * RDMPI_VERBS_FP_PEERS RC peers a ring of slots in its own memory (address
 * and key travel in the RC handshake); the peer then RDMA-writes its small
 * messages into the next free slot instead of sending them. The receiver
 * finds them by looking at the slot at its ring's head: no receive queue,
 * no completion on either side (inline writes go unsignaled), which on
 * Soft-RoCE saves ~8% of a round trip (perftest ib_write_lat against
 * ib_send_lat) and on hardware the receive-side work of a send.
 *
 * A slot holds vb_fp_hdr_t, the AM header and payload, then one byte equal to
 * the header's mark. The receiver takes a slot once the header's mark is set
 * and the byte after the len bytes it announces is too: RDMA writes land in
 * address order on the devices this runs on (the assumption ib_write_lat and
 * MVAPICH2's fast path make). After the handler returns, the receiver zeroes
 * the bytes the message covered, so a stale byte can never pass for a mark,
 * and returns the slot as a credit (in the header of its next message to the
 * peer, written or sent, or in a credit message once half the ring is owed).
 *
 * Messages too large for a slot, or sent while the ring is full, go as RC
 * sends. Both kinds carry the same per-peer sequence number: a written
 * message is taken only when it is the next one, and a sent message that
 * arrives first takes the written ones before it (RC places a write before
 * the completion of any later send on the same QP, so they are there).
 *
 * A plain RDMA write raises no completion at the receiver, so a rank that may
 * sleep while it waits (RDMPI_WAIT_SLEEP) asks in the handshake for writes
 * with immediate (VB_FP_IMM): each also consumes a buffer of our SRQ and
 * completes there, which wakes us (vb_fp_imm_in). Such a write takes an RC
 * credit as a send does, and the receiver returns it with the others. It
 * still saves the copy out of the SRQ buffer, and an awake receiver takes
 * the message from the ring before it sees the completion. A rank that
 * cannot sleep keeps the plain writes, which cost the receiver nothing more.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "transports/verbs/verbs.h"

int vb_fp_open(vb_iface_t *s)
{
    int n = s->cfg->verbs_fp_peers;
    if (s->mode == VB_MODE_UD || n <= 0 || s->cfg->verbs_fp_slots <= 1 ||
        s->cfg->verbs_fp_size < sizeof(vb_fp_hdr_t) + 64)
        return 0;
    s->fp = calloc((size_t)n, sizeof(*s->fp));
    if (!s->fp)
        return CORE_ENOMEM;
    s->max_fp = n;
    return 0;
}

void vb_fp_close(vb_iface_t *s)
{
    free(s->fp);
    s->fp = NULL;
    s->nfp = s->max_fp = 0;
}

void vb_fp_ring_create(vb_iface_t *s, vb_peer_t *p)
{
    vb_rc_t *rc = p->rc;
    if (s->nfp >= s->max_fp || rc->fpr || !s->srq)
        return;
    vb_fp_ring_t *r = calloc(1, sizeof(*r));
    if (!r)
        return;
    r->size = (uint32_t)((s->cfg->verbs_fp_size + 63) & ~(size_t)63);
    r->n = (uint32_t)s->cfg->verbs_fp_slots;
    size_t bytes = (size_t)r->size * r->n;
    if (posix_memalign((void **)&r->buf, 4096, bytes) != 0) {
        free(r);
        return;
    }
    memset(r->buf, 0, bytes);
    r->mr = ibv_reg_mr(s->pd, r->buf, bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!r->mr) {
        core_debug("verbs: no RDMA-write ring for rank %d: registering %zu bytes failed: %s",
                   p->ep.peer, bytes, strerror(errno));
        free(r->buf);
        free(r);
        return;
    }
    /* Decided once, with the wait policy of now: should it change (core_wait_policy) to
     * sleeping, a ring written without immediate keeps this rank awake (vb_arm). */
    r->imm = s->rt->wait_sleep > 0 && s->chan;
    rc->fpr = r;
    s->fp[s->nfp++] = p;
    if (!r->imm)
        s->nfp_silent++;
}

void vb_fp_ring_destroy(vb_iface_t *s, vb_peer_t *p)
{
    vb_fp_ring_t *r = p->rc ? p->rc->fpr : NULL;
    if (!r)
        return;
    for (int i = 0; i < s->nfp; i++)
        if (s->fp[i] == p) {
            s->fp[i] = s->fp[--s->nfp];
            break;
        }
    if (!r->imm)
        s->nfp_silent--;
    ibv_dereg_mr(r->mr);
    free(r->buf);
    free(r);
    p->rc->fpr = NULL;
}

void vb_fp_conn_fill(const vb_peer_t *p, vb_conn_t *c)
{
    const vb_fp_ring_t *r = p->rc ? p->rc->fpr : NULL;
    if (!r)
        return;
    c->fp_addr = (uintptr_t)r->buf;
    c->fp_rkey = r->mr->rkey;
    c->fp_size = r->size;
    c->fp_slots = r->n;
    c->fp_flags = r->imm ? VB_FP_IMM : 0;
}

void vb_fp_conn_take(vb_peer_t *p, const vb_conn_t *c)
{
    vb_rc_t *rc = p->rc;
    /* A flag we do not know asks for something we would not do: no ring (we send). */
    if (c->fp_slots == 0 || c->fp_size < sizeof(vb_fp_hdr_t) + 64 || (c->fp_flags & ~VB_FP_FLAGS))
        return;
    rc->fp_imm = (c->fp_flags & VB_FP_IMM) != 0;
    rc->fp_raddr = c->fp_addr;
    rc->fp_rkey = c->fp_rkey;
    rc->fp_size = c->fp_size;
    rc->fp_n = c->fp_slots;
    rc->fp_head = 0;
    rc->fp_credits = (int)c->fp_slots;
}

/* ---- writing ---- */

int vb_fp_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len)
{
    vb_rc_t *rc = p->rc;
    if (vb_sq_free(&rc->sq) < 3 || (rc->fp_imm && rc->credits <= 0))
        return CORE_EBUSY;
    size_t body = hdr_len + len, total = sizeof(vb_fp_hdr_t) + body + 1;
    vb_fp_hdr_t fh;
    fh.len = (uint32_t)body;
    fh.seq = rc->tx_seq;
    fh.fcredits = (uint16_t)(rc->fp_owed < 0xffff ? rc->fp_owed : 0xffff);
    fh.credits = (uint16_t)(rc->owed < 0xffff ? rc->owed : 0xffff);
    fh.id = (uint8_t)id;
    fh.hdr_len = (uint8_t)hdr_len;
    memset(fh.pad, 0, sizeof(fh.pad));
    fh.mark = VB_FP_MARK;
    uint8_t stage[VB_INLINE_WANT + 20];
    uint8_t *buf = stage;
    struct ibv_sge sge = { 0, (uint32_t)total, 0 };
    struct ibv_send_wr wr;
    vb_wr_init(&wr);
    int sig = 0;
    uintptr_t ent = 0;
    if (total <= s->rc_inline) {
        wr.send_flags = IBV_SEND_INLINE;
    } else {
        if (total > s->rc_pool.bufsz) /* the peer's slots are larger than our buffers */
            return vb_rc_send(s, p, id, hdr, hdr_len, payload, len);
        vb_tx_t *t = vb_rc_bounce(&s->rc_pool, total);
        if (!t)
            return CORE_EBUSY;
        buf = t->data;
        sge.lkey = t->pool->mr->lkey;
        sig = 1;
        ent = (uintptr_t)t | VB_SQ_TX;
    }
    memcpy(buf, &fh, sizeof(fh));
    memcpy(buf + sizeof(fh), hdr, hdr_len);
    if (len)
        memcpy(buf + sizeof(fh) + hdr_len, payload, len);
    buf[sizeof(fh) + body] = VB_FP_MARK;
    sge.addr = (uintptr_t)buf;
    uint32_t slot = vb_sq_push(&rc->sq, ent, &sig);
    wr.wr_id = (uint64_t)(uint32_t)p->ep.peer << 32 | (uint64_t)slot << 3 | VB_WR_RC_SEND;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    if (rc->fp_imm) {
        /* The peer finds the ring by the QP the completion came in on and checks that the
         * uid names the same peer, as it does an RC send's header. */
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.imm_data = htonl(s->uid);
        rc->credits--;
    }
    wr.wr.rdma.remote_addr = rc->fp_raddr + (uint64_t)rc->fp_head * rc->fp_size;
    wr.wr.rdma.rkey = rc->fp_rkey;
    if (sig)
        wr.send_flags |= IBV_SEND_SIGNALED;
    vb_rc_post(s, p, &wr);
    rc->fp_head = rc->fp_head + 1 == rc->fp_n ? 0 : rc->fp_head + 1;
    rc->fp_credits--;
    rc->tx_seq++;
    rc->owed -= fh.credits;
    rc->fp_owed -= fh.fcredits;
    s->stats.fp_sent++;
    return 0;
}

/* ---- taking ---- */

/* Takes the message at the ring's head if it has landed and is the next one
 * from the peer; 1 if it did. A malformed slot fails the peer. */
static int take(vb_iface_t *s, vb_peer_t *p)
{
    vb_rc_t *rc = p->rc;
    vb_fp_ring_t *r = rc->fpr;
    uint8_t *slot = r->buf + (size_t)r->head * r->size;
    vb_fp_hdr_t h;
    const char *why = NULL;
    int got = vb_fp_decode(slot, r->size, &h, &why);
    if (got == 0)
        return 0;
    if (got < 0) {
        vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "RDMA-write ring slot", why);
        return 0;
    }
    if (h.seq != rc->rx_seq) {
        if ((int16_t)(h.seq - rc->rx_seq) < 0) {
            vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "RDMA-write ring slot",
                              "a message numbered before one already taken");
            return 0;
        }
        return 0; /* a sent message comes before it: still in the completion queue */
    }
    if (vb_rc_take_credits(rc, h.credits, h.fcredits)) {
        vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "RDMA-write ring slot",
                          "more credits returned than messages sent");
        return 0;
    }
    /* The ring moves on before the handler runs: it may send, and it may progress. */
    rc->rx_seq++;
    r->head = r->head + 1 == r->n ? 0 : r->head + 1;
    int hrc = vb_dispatch(s, p, h.id, slot + sizeof(h), h.hdr_len, slot + sizeof(h) + h.hdr_len,
                          h.len - h.hdr_len);
    memset(slot, 0, sizeof(h) + h.len + 1);
    if (hrc) {
        vb_peer_malformed(s, p, h.id, hrc, NULL, NULL);
        return 0;
    }
    if (p->rc != rc)
        return 1;
    rc->fp_owed++;
    if (rc->fp_owed >= (int)(r->n + 1) / 2)
        vb_rc_return_credits(s, p);
    return 1;
}

int vb_fp_poll(vb_iface_t *s)
{
    int ev = 0;
    for (int i = 0; i < s->nfp; i++) {
        vb_peer_t *p = s->fp[i];
        while (!p->failed && p->rc && p->rc->fpr && take(s, p))
            ev++;
    }
    return ev;
}

void vb_fp_imm_in(vb_iface_t *s, vb_peer_t *p)
{
    vb_rc_t *rc = p->rc;
    rc->owed++;
    while (!p->failed && p->rc == rc && rc->fpr && take(s, p))
        ;
    if (p->rc == rc && !p->failed && rc->owed >= (s->cfg->verbs_rc_credits + 1) / 2)
        vb_rc_return_credits(s, p);
}

void vb_fp_catch_up(vb_iface_t *s, vb_peer_t *p, uint16_t seq)
{
    while (p->rc && p->rc->fpr && p->rc->rx_seq != seq) {
        if (p->failed)
            return;
        if (!take(s, p))
            core_fatal("verbs: message %u from rank %d on %s arrived before message %u, which "
                       "should have been in the RDMA-write ring already (QP %u): the device "
                       "broke RC ordering", (unsigned)seq, p->ep.peer,
                       core_rank_host(s->rt, p->ep.peer), (unsigned)p->rc->rx_seq,
                       p->rc->qp->qp_num);
    }
}
