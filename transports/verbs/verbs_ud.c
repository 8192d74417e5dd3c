/*
 * The UD QP: one per process, reaching every peer through an address handle.
 * Active messages are cut into packets of the path MTU, each with a 16-byte
 * header (vb_ud_hdr_t) carrying the sender's rank, a per-peer sequence
 * number and a piggybacked cumulative ack. Packets stay in their registered
 * send buffer until acknowledged (verbs_rel.c decides what to resend and
 * when); packets that arrive past a gap stay in their receive buffer, in the
 * process-wide out-of-order store, until the gap is filled. A message is
 * handed to its handler from the receive buffer when it fits one packet;
 * a longer one goes to its handler packet by packet when the handler takes
 * pieces (p2p's rendezvous data: one copy, packet to user buffer), else it
 * is put together in a reassembly buffer first. Sends are unsignaled but for
 * one in VB_SIG_EVERY and the last of every posted list that has a packet
 * the HCA reads from its buffer: that buffer is not reused (nor freed once
 * acknowledged) before a completion at or after its WQE.
 * Zero copy (am_send_zc, the pipelined rendezvous's DATA chunks): a packet's
 * send buffer holds only its headers and a second scatter entry points into
 * the caller's registered payload, read again by a resend; the message's
 * completion fires when its last packet is freed (acknowledged and retired),
 * so the caller's buffer is never read after it has it back. The wire is the
 * same: the receiver cannot tell.
 * RDMPI_VERBS_UD_DROP drops and reorders outgoing packets on purpose
 * (inject()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"
#include "transports/verbs/verbs.h"


static int qp_to_rts(vb_iface_t *s)
{
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = s->dev.port;
    a.qkey = s->qkey;
    if (ibv_modify_qp(s->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    if (ibv_modify_qp(s->ud, &a, IBV_QP_STATE))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = (uint32_t)vb_rand(s) & 0xffffff;
    return ibv_modify_qp(s->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct ibv_qp *create_qp(vb_iface_t *s, uint32_t sq, uint32_t rq, uint32_t inl,
                                uint32_t sge)
{
    struct ibv_qp_init_attr ia;
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = s->cq;
    ia.recv_cq = s->cq;
    ia.qp_type = IBV_QPT_UD;
    ia.sq_sig_all = 0;
    ia.cap.max_send_wr = sq;
    ia.cap.max_recv_wr = rq;
    ia.cap.max_send_sge = sge;
    ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = inl;
    return ibv_create_qp(s->pd, &ia);
}

int vb_ud_open(vb_iface_t *s)
{
    int maxwr = s->dev.attr.max_qp_wr;
    uint32_t sq = VB_UD_SQ < maxwr ? VB_UD_SQ : (uint32_t)maxwr;
    uint32_t rq = (uint32_t)(s->cfg->verbs_rq_size < maxwr ? s->cfg->verbs_rq_size : maxwr);
    if (rq < 2 * VB_POST_BATCH)
        rq = 2 * VB_POST_BATCH;
    size_t mtu = (size_t)vb_mtu_bytes(s->mtu);
    s->ud_rx_bufsz = (VB_GRH + mtu + 63) & ~(size_t)63;
    s->ud_rq = rq;
    size_t bytes = s->ud_rx_bufsz * rq;
    if (posix_memalign((void **)&s->ud_rx, 4096, bytes) != 0 ||
        !(s->ud_refill = malloc(rq * sizeof(uint32_t))))
        return CORE_ENOMEM;
    s->ud_rx_mr = ibv_reg_mr(s->pd, s->ud_rx, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!s->ud_rx_mr) {
        core_warn("verbs: registering %zu bytes of UD receive buffers failed: %s (ulimit -l?)",
                  bytes, strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    int rc = vb_pool_init(s, &s->ud_pool, VB_UD_POOL, mtu);
    if (rc)
        return CORE_EUNSUPPORTED;
    /* Two scatter entries for zero-copy packets (headers, then the caller's payload), where
     * the device has them; no inline data on some devices. */
    for (int k = 0; k < 4 && !s->ud; k++)
        s->ud = create_qp(s, sq, rq, (k & 1) ? 0 : VB_INLINE_WANT, k < 2 ? 2 : 1);
    if (!s->ud) {
        core_warn("verbs: cannot create a UD queue pair on %s: %s", s->dev.name, strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    struct ibv_qp_attr qa;
    struct ibv_qp_init_attr qia;
    if (ibv_query_qp(s->ud, &qa, IBV_QP_CAP, &qia) == 0) {
        s->ud_inline = qia.cap.max_inline_data;
        s->ud_zc = qia.cap.max_send_sge >= 2;
    }
    if (s->ud_inline > VB_INLINE_WANT + 64)
        s->ud_inline = VB_INLINE_WANT + 64;
    if (qp_to_rts(s) != 0) {
        core_warn("verbs: cannot bring the UD queue pair of %s up: %s", s->dev.name,
                  strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    if ((rc = vb_sq_init(&s->ud_sq, sq)) != 0)
        return rc;
    if (s->drop > 0)
        s->hold.t = vb_pool_get(&s->ud_pool); /* kept until close, never acked */
    if (vb_rel_ooo_init(&s->ooo, rq / 4) != 0)
        return CORE_ENOMEM;
    for (uint32_t i = 0; i < rq; i++)
        s->ud_refill[s->ud_nrefill++] = i;
    return vb_ud_post_recvs(s);
}

void vb_ud_close(vb_iface_t *s)
{
    s->hold.full = 0;
    s->hold.t = NULL;
    if (s->ud)
        ibv_destroy_qp(s->ud);
    s->ud = NULL;
    vb_pool_fini(&s->ud_pool);
    if (s->ud_rx_mr)
        ibv_dereg_mr(s->ud_rx_mr);
    free(s->ud_rx);
    free(s->ud_refill);
    vb_sq_fini(&s->ud_sq);
    vb_rel_ooo_fini(&s->ooo);
}

int vb_ud_post_recvs(vb_iface_t *s)
{
    struct ibv_recv_wr wr[VB_POST_BATCH], *bad;
    struct ibv_sge sge[VB_POST_BATCH];
    unsigned done = 0;
    while (done < s->ud_nrefill) {
        unsigned n = s->ud_nrefill - done < VB_POST_BATCH ? s->ud_nrefill - done : VB_POST_BATCH;
        for (unsigned k = 0; k < n; k++) {
            uint32_t idx = s->ud_refill[done + k];
            sge[k].addr = (uintptr_t)(s->ud_rx + (size_t)idx * s->ud_rx_bufsz);
            sge[k].length = (uint32_t)s->ud_rx_bufsz;
            sge[k].lkey = s->ud_rx_mr->lkey;
            wr[k].wr_id = (uint64_t)idx << 3 | VB_WR_UD_RECV;
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
        }
        if (ibv_post_recv(s->ud, wr, &bad) != 0) {
            core_error("verbs: posting UD receive buffers failed: %s", strerror(errno));
            return CORE_EIO;
        }
        done += n;
        s->ud_rq_posted += n;
    }
    s->ud_nrefill = 0;
    return 0;
}

void vb_ud_fill_ah_attr(vb_iface_t *s, const vb_card_t *c, struct ibv_ah_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->port_num = s->dev.port;
    if (s->dev.pattr.link_layer == IBV_LINK_LAYER_INFINIBAND) {
        a->dlid = c->lid;
        return;
    }
    a->is_global = 1;
    memcpy(a->grh.dgid.raw, c->gid, 16);
    a->grh.sgid_index = (uint8_t)s->dev.gid_index;
    a->grh.hop_limit = 64;
}

int vb_ud_create_ah(vb_iface_t *s, const vb_card_t *c, struct ibv_ah **ah)
{
    struct ibv_ah_attr a;
    vb_ud_fill_ah_attr(s, c, &a);
    *ah = ibv_create_ah(s->pd, &a);
    if (!*ah) {
        core_warn("verbs: cannot create an address handle to QP %u (LID %u): %s", c->qpn, c->lid,
                  strerror(errno));
        return CORE_EPEER;
    }
    return 0;
}

void vb_ud_peer_fini(vb_iface_t *s, vb_peer_t *p)
{
    if (p->ah)
        ibv_destroy_ah(p->ah);
    if (s->hold.full && s->hold.ah == p->ah)
        s->hold.full = 0; /* a packet held back for it: lost */
    p->ah = NULL;
    if (p->reasm)
        free(p->reasm);
    p->reasm = NULL;
    p->rs = (vb_reasm_state_t){ 0 };
    /* Unacknowledged buffers belong to the pool, freed with it. */
    p->unacked = p->unacked_tail = p->unsent = NULL;
    p->nunsent = 0;
}

/* ---- sending ---- */

/* Copies bytes [off, off + n) of hdr ++ payload to dst. */
static void gather(uint8_t *dst, const void *hdr, size_t hdr_len, const void *payload, size_t off,
                   size_t n)
{
    if (off < hdr_len) {
        size_t k = hdr_len - off < n ? hdr_len - off : n;
        memcpy(dst, (const uint8_t *)hdr + off, k);
        dst += k;
        n -= k;
        off = hdr_len;
    }
    if (n)
        memcpy(dst, (const uint8_t *)payload + (off - hdr_len), n);
}

/* Fault injection (RDMPI_VERBS_UD_DROP=f): a fraction f of the packets is
 * dropped, and as many again are held back (copied to the hold buffer) and
 * sent after the next packet posted, or at the next timer tick if none
 * follows, so the receiver sees them out of order. Returns 1 when packet t
 * must not be posted now. */
static int inject(vb_iface_t *s, vb_peer_t *p, const vb_tx_t *t)
{
    double u = (double)(vb_rand(s) >> 11) / 9007199254740992.0;
    if (u < s->drop) {
        s->stats.ud_dropped++;
        return 1;
    }
    vb_tx_t *h = s->hold.t;
    if (u >= 2 * s->drop || !h || s->hold.full || h->inflight ||
        (size_t)t->len + t->zlen > h->pool->bufsz)
        return 0;
    memcpy(h->data, t->data, t->len);
    if (t->zlen)
        memcpy(h->data + t->len, t->zdata, t->zlen);
    h->len = t->len + t->zlen;
    s->hold.ah = p->ah;
    s->hold.qpn = p->card.qpn;
    s->hold.full = 1;
    s->hold.after = 0;
    s->stats.ud_reordered++;
    return 1;
}

/* Fills wr and sge[0..2) to send t (its len bytes, from a registered send
 * buffer of the pool, or inline; then, zero copy, its zlen bytes of the
 * caller's registered memory) through ah/qpn. t is the send-queue entry to
 * retire when the WQE completes (none for an inline one). */
static void fill_wr(vb_iface_t *s, struct ibv_ah *ah, uint32_t qpn, vb_tx_t *t,
                    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
    sge[0].addr = (uintptr_t)t->data;
    sge[0].length = t->len;
    sge[0].lkey = t->pool->mr->lkey;
    memset(wr, 0, sizeof(*wr));
    wr->sg_list = sge;
    wr->num_sge = 1;
    if (t->zlen) {
        sge[1].addr = (uintptr_t)t->zdata;
        sge[1].length = t->zlen;
        sge[1].lkey = t->zlkey;
        wr->num_sge = 2;
    }
    wr->opcode = IBV_WR_SEND;
    wr->wr.ud.ah = ah;
    wr->wr.ud.remote_qpn = qpn;
    wr->wr.ud.remote_qkey = s->qkey;
    int sig = 0;
    uintptr_t ent = 0;
    if (!t->zlen && t->len <= s->ud_inline) {
        wr->send_flags = IBV_SEND_INLINE; /* copied at post: the buffer is free at once */
    } else {
        ent = (uintptr_t)t | VB_SQ_TX; /* retired by its own or a later completion */
        t->inflight++;
    }
    uint32_t slot = vb_sq_push(&s->ud_sq, ent, &sig);
    if (sig)
        wr->send_flags |= IBV_SEND_SIGNALED;
    wr->wr_id = (uint64_t)slot << 3 | VB_WR_UD_SEND;
}

/* Fills wr for packet t to p. Returns 0 when fault injection keeps it. */
static int prep_wr(vb_iface_t *s, vb_peer_t *p, vb_tx_t *t, struct ibv_send_wr *wr,
                   struct ibv_sge *sge)
{
    if (s->drop > 0 && inject(s, p, t))
        return 0;
    if (s->hold.full)
        s->hold.after++;
    fill_wr(s, p->ah, p->card.qpn, t, wr, sge);
    return 1;
}

/* Posts wr[0..n). A packet sent from its buffer stays unusable until a
 * completion at or after its WQE retires it, so a list holding one after
 * its last signaled WQE gets its last WQE signaled: one completion per
 * list of packets instead of one per packet, and none left waiting for a
 * later send that may never come. */
static void post_raw(vb_iface_t *s, struct ibv_send_wr *wr, int n)
{
    struct ibv_send_wr *bad;
    int open = 0;
    for (int i = 0; i < n; i++) {
        wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
        if (wr[i].send_flags & IBV_SEND_SIGNALED)
            open = 0;
        else if (!(wr[i].send_flags & IBV_SEND_INLINE))
            open = 1;
    }
    if (open) {
        wr[n - 1].send_flags |= IBV_SEND_SIGNALED;
        s->ud_sq.unsig = 0;
    }
    if (ibv_post_send(s->ud, wr, &bad) != 0)
        core_fatal("verbs: posting UD sends on %s failed: %s", s->dev.name, strerror(errno));
}

/* Sends the packet fault injection held back, once one has overtaken it
 * (or unconditionally: force). */
static void post_held(vb_iface_t *s, int force)
{
    if (!s->hold.full || (!force && !s->hold.after) || vb_sq_free(&s->ud_sq) < 1)
        return;
    struct ibv_send_wr wr;
    struct ibv_sge sge[2];
    s->hold.full = 0;
    fill_wr(s, s->hold.ah, s->hold.qpn, s->hold.t, &wr, sge);
    post_raw(s, &wr, 1);
}

static void post_list(vb_iface_t *s, struct ibv_send_wr *wr, int n)
{
    post_raw(s, wr, n);
    if (s->hold.full)
        post_held(s, 0);
}

/* Posts the packets of p that wait for room in its window, giving each its
 * psn and a fresh ack at the last moment. */
static void push_unsent(vb_iface_t *s, vb_peer_t *p)
{
    struct ibv_send_wr wr[VB_UD_SEND_BATCH];
    struct ibv_sge sge[VB_UD_SEND_BATCH][2];
    int nw = 0, sent = 0;
    unsigned space = vb_rel_tx_space(&p->tx, &s->rel);
    while (p->unsent && space && vb_sq_free(&s->ud_sq) > 8) {
        vb_tx_t *t = p->unsent;
        vb_ud_hdr_t *h = (vb_ud_hdr_t *)t->data;
        int want_ack;
        h->psn = t->psn = vb_rel_tx_send(&p->tx, &s->rel, s->now, &want_ack);
        h->ack = vb_rel_rx_ack(&p->rx);
        /* The last packet of a zero-copy message its sender waits for asks for the ack
         * (not left to the receiver's delay); other messages' acks come as usual. */
        if (t->zc && t->zc->waited && (h->type & VB_UD_LAST))
            want_ack = 1;
        h->type = (uint8_t)((h->type & ~VB_UD_WANT_ACK) | (want_ack ? VB_UD_WANT_ACK : 0));
        p->unsent = t->next;
        p->nunsent--;
        space--;
        sent++;
        if (prep_wr(s, p, t, &wr[nw], sge[nw]) && ++nw == VB_UD_SEND_BATCH) {
            post_list(s, wr, nw);
            nw = 0;
        }
    }
    if (nw)
        post_list(s, wr, nw);
    if (sent && !p->rx.nak)
        vb_rel_rx_acked(&p->rx); /* our ack rode along (a NAK needs its own packet) */
}

void vb_zc_release(vb_tx_t *t)
{
    vb_zc_t *z = t->zc;
    t->zc = NULL;
    t->zdata = NULL;
    t->zlen = 0;
    if (--z->left == 0) {
        tp_comp_t *c = z->comp;
        int status = z->status;
        vb_iface_t *s = z->s;
        free(z);
        vb_comp_fire(s, c, status);
    }
}

/* Cuts the message into packets at the tail of p's unacknowledged list and
 * posts what the window lets go now; the rest goes as acks open it. Up to
 * one message's worth waits behind the window, so the pipe stays full
 * without one peer taking every send buffer. With mr (zero copy), a packet's
 * send buffer holds only the headers, its payload being read from mr; z is
 * then the message's completion record. */
static int ud_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len, const struct ibv_mr *mr, vb_zc_t *z)
{
    size_t total = hdr_len + len;
    unsigned seg = p->seg;
    unsigned nseg = total ? (unsigned)((total + seg - 1) / seg) : 1;
    if (nseg > s->ud_pool.nfree || (p->nunsent && p->nunsent + nseg > VB_UD_MAX_PKTS))
        return CORE_EBUSY;
    if (z)
        z->left = nseg;
    size_t off = 0;
    s->now = core_wtime();
    for (unsigned k = 0; k < nseg; k++) {
        vb_tx_t *t = vb_pool_get(&s->ud_pool);
        size_t n = total - off < seg ? total - off : seg;
        vb_ud_hdr_t *h = (vb_ud_hdr_t *)t->data;
        h->src = s->uid;
        h->type = VB_UD_DATA | (k == 0 ? VB_UD_FIRST : 0) | (k == nseg - 1 ? VB_UD_LAST : 0);
        h->id = (uint8_t)id;
        h->hdr_len = (uint16_t)hdr_len;
        h->len = (uint32_t)len;
        if (z) {
            size_t hn = off < hdr_len ? (hdr_len - off < n ? hdr_len - off : n) : 0;
            gather(t->data + sizeof(*h), hdr, hdr_len, NULL, off, hn);
            t->len = (uint32_t)(sizeof(*h) + hn);
            t->zc = z;
            t->zlen = (uint32_t)(n - hn);
            t->zdata = t->zlen ? (const uint8_t *)payload + (off + hn - hdr_len) : NULL;
            t->zlkey = mr->lkey;
        } else {
            gather(t->data + sizeof(*h), hdr, hdr_len, payload, off, n);
            t->len = (uint32_t)(sizeof(*h) + n);
        }
        if (p->unacked_tail)
            p->unacked_tail->next = t;
        else
            p->unacked = t;
        p->unacked_tail = t;
        if (!p->unsent)
            p->unsent = t;
        p->nunsent++;
        off += n;
    }
    s->stats.ud_sent += nseg;
    s->stats.ud_zc += z ? nseg : 0;
    push_unsent(s, p);
    vb_active_add(s, p);
    return 0;
}

int vb_ud_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len)
{
    return ud_send(s, p, id, hdr, hdr_len, payload, len, NULL, NULL);
}

int vb_ud_send_zc(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                  const void *payload, size_t len, const struct ibv_mr *mr, tp_comp_t *comp,
                  int waited)
{
    vb_zc_t *z = malloc(sizeof(*z));
    if (!z)
        return CORE_ENOMEM;
    z->comp = comp;
    z->s = s;
    z->status = 0;
    z->waited = waited;
    int rc = ud_send(s, p, id, hdr, hdr_len, payload, len, mr, z);
    if (rc) {
        free(z);
        return rc;
    }
    return CORE_INPROGRESS;
}

/* Sends packet t again, with a fresh ack. */
static int repost(vb_iface_t *s, vb_peer_t *p, vb_tx_t *t)
{
    struct ibv_send_wr wr;
    struct ibv_sge sge[2];
    if (vb_sq_free(&s->ud_sq) < 8)
        return CORE_EBUSY;
    vb_ud_hdr_t *h = (vb_ud_hdr_t *)t->data;
    h->ack = vb_rel_rx_ack(&p->rx);
    h->type |= VB_UD_WANT_ACK; /* a resend is answered at once */
    s->stats.ud_resent++;
    core_count_add(&s->base.stats.resent, 1);
    if (prep_wr(s, p, t, &wr, sge))
        post_list(s, &wr, 1);
    return 0;
}

void vb_ud_send_ack(vb_iface_t *s, vb_peer_t *p, int ackreq)
{
    if (vb_sq_free(&s->ud_sq) < 2)
        return; /* the timer tries again */
    vb_ud_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.src = s->uid;
    h.ack = vb_rel_rx_ack(&p->rx);
    h.type = VB_UD_ACK | (ackreq ? VB_UD_ACKREQ : 0) |
             ((p->rx.nak & VB_REL_NAK) ? VB_UD_NAK : 0) |
             ((p->rx.nak & VB_REL_NAK_ALL) ? VB_UD_NAK_ALL : 0);
    s->stats.ud_acks_late += !ackreq && !p->rx.ack_now;
    vb_rel_rx_acked(&p->rx);
    s->stats.ud_acks++;
    if (sizeof(h) <= s->ud_inline) {
        struct ibv_send_wr wr;
        struct ibv_sge sge[2];
        vb_tx_t fake = { .data = (uint8_t *)&h, .len = sizeof(h), .pool = &s->ud_pool };
        if (prep_wr(s, p, &fake, &wr, sge))
            post_list(s, &wr, 1);
        return;
    }
    vb_tx_t *t = vb_pool_get(&s->ud_pool);
    if (!t)
        return;
    memcpy(t->data, &h, sizeof(h));
    t->len = sizeof(h);
    t->acked = 1; /* nothing to wait for: free once the HCA has read it */
    struct ibv_send_wr wr;
    struct ibv_sge sge[2];
    if (prep_wr(s, p, t, &wr, sge))
        post_list(s, &wr, 1);
    else
        vb_pool_put(t);
}

/* Applies an ack from p: frees acknowledged packets, resends what it asks. */
static void ack_in(vb_iface_t *s, vb_peer_t *p, uint16_t ack, int nak)
{
    int what;
    unsigned n = vb_rel_tx_ack(&p->tx, &s->rel, ack, nak, s->now, &what);
    while (n-- && p->unacked) {
        vb_tx_t *t = p->unacked;
        p->unacked = t->next;
        t->next = NULL;
        t->acked = 1;
        if (t->inflight == 0)
            vb_pool_put(t);
    }
    if (!p->unacked) {
        p->unacked_tail = NULL;
        if (p->path == VB_PATH_DRAIN) {
            p->path = VB_PATH_RC; /* everything sent on UD has been dispatched there */
            core_debug("verbs: rank %d now on RC", p->ep.peer);
        }
        return;
    }
    if (what == VB_REL_RESEND_ONE) {
        repost(s, p, p->unacked);
    } else if (what == VB_REL_RESEND_ALL) {
        /* Everything the receiver may have dropped, a message's worth at
         * least even when the congestion window has shrunk. */
        unsigned n = (unsigned)p->tx.cwnd > VB_UD_MAX_PKTS ? (unsigned)p->tx.cwnd : VB_UD_MAX_PKTS;
        for (vb_tx_t *t = p->unacked; t && t != p->unsent && n--; t = t->next)
            if (repost(s, p, t) != 0)
                break;
    }
    push_unsent(s, p); /* the window may have opened */
}

int vb_ud_timers(vb_iface_t *s, vb_peer_t *p)
{
    int ev = 0;
    if (s->hold.full)
        post_held(s, 1); /* no packet came to overtake it */
    if (p->unsent)
        push_unsent(s, p); /* it found the send queue full */
    if (vb_rel_rx_ack_due(&p->rx, s->now)) {
        vb_ud_send_ack(s, p, 0);
        ev++;
    }
    switch (vb_rel_tx_timer(&p->tx, &s->rel, s->now)) {
    case VB_REL_RESEND_ONE:
        if (p->unacked && p->unacked != p->unsent)
            repost(s, p, p->unacked);
        ev++;
        break;
    case VB_REL_DEAD:
        if (s->closing || p->gone || p->left || p->ep.peer >= s->size) {
            /* It left without acknowledging our goodbye: nothing more to do. A process of
             * another job finalizes when it likes (and one that died ends the whole run): one
             * that never acknowledged has left before our first packets reached it. */
            if (!s->closing && !p->gone && !p->left) {
                core_warn("verbs: process %d of another job on %s (uid %u) stopped answering: "
                          "%u UD packets unacknowledged for %.0f s; it has left, what is "
                          "sent to it fails", p->ep.peer, core_rank_host(s->rt, p->ep.peer),
                          p->uid, vb_rel_tx_inflight(&p->tx), s->now - p->tx.since);
                tp_peer_lost(&s->base, p->ep.peer);
            }
            p->gone = 1;
            while (p->unacked) {
                vb_tx_t *t = p->unacked;
                p->unacked = t->next;
                t->next = NULL;
                t->acked = 1;
                if (t->zc)
                    t->zc->status = CORE_EPEER; /* its sender is told: not delivered */
                if (t->inflight == 0)
                    vb_pool_put(t);
            }
            p->unacked_tail = NULL;
            p->unsent = NULL;
            p->nunsent = 0;
            p->tx.una = p->tx.next;
            p->tx.deadline = 0;
            break;
        }
        core_fatal("verbs: rank %d on %s stopped answering: %u UD packets unacknowledged for "
                   "%.0f s (its UD QP %u, ours %u on %s port %u). It died, hangs outside MPI, or "
                   "the network path failed (RDMPI_VERBS_PEER_TIMEOUT=%g s)",
                   p->ep.peer, core_rank_host(s->rt, p->ep.peer), vb_rel_tx_inflight(&p->tx),
                   s->now - p->tx.since, p->card.qpn, s->ud->qp_num, s->dev.name, s->dev.port,
                   s->rel.peer_timeout);
    default:
        break;
    }
    return ev;
}

/* ---- receiving ---- */

/* Hands a packet's message (or its piece) to the handler. Returns 0, or -1 when p sent
 * something malformed (reported, p marked failed: the caller stops). */
static int deliver(vb_iface_t *s, vb_peer_t *p, const vb_ud_pkt_t *k)
{
    const vb_ud_hdr_t *h = &k->h;
    const char *why = NULL;
    unsigned fl = h->type & (VB_UD_FIRST | VB_UD_LAST);
    uint32_t before = (fl & VB_UD_FIRST) ? 0 : p->rs.got; /* bytes of the message before k */
    if (vb_reasm_step(&p->rs, k, &why) != 0) {
        vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "UD packet", why);
        return -1;
    }
    int rc = 0;
    if (fl == (VB_UD_FIRST | VB_UD_LAST)) {
        rc = vb_dispatch(s, p, h->id, k->data, h->hdr_len, k->data + h->hdr_len, h->len);
        goto out;
    }
    vb_reasm_t *r = p->reasm;
    if (fl & VB_UD_FIRST) {
        uint64_t total = (uint64_t)h->hdr_len + h->len; /* at most VB_REASM_MAX (decoded) */
        int pieces = tp_am_valid(s->base.am, h->id) && s->base.am[h->id].piece;
        free(r);
        r = malloc(sizeof(*r) + (size_t)(pieces ? h->hdr_len : total));
        p->reasm = r;
        if (!r)
            core_fatal("verbs: out of memory reassembling a %llu-byte message from rank %d",
                       (unsigned long long)total, p->ep.peer);
        r->buf = (uint8_t *)(r + 1);
        r->pieces = (uint8_t)pieces;
    }
    if (fl & VB_UD_LAST)
        p->reasm = NULL; /* detached before its last handler call, as a whole message is */
    if (r->pieces) {
        uint32_t skip = 0;
        if (fl & VB_UD_FIRST) { /* the header is whole in the first packet (decoded) */
            memcpy(r->buf, k->data, h->hdr_len);
            skip = h->hdr_len;
        }
        const tp_am_entry_t *e = &s->base.am[h->id];
        int left = vb_leave(s); /* the layer above's handler: as vb_dispatch */
        rc = e->piece(e->arg, p->ep.peer, r->buf, h->hdr_len, before + skip - h->hdr_len,
                      k->data + skip, k->dn - skip, h->len);
        vb_return(s, left);
    } else {
        memcpy(r->buf + before, k->data, k->dn);
        if (fl & VB_UD_LAST)
            rc = vb_dispatch(s, p, h->id, r->buf, h->hdr_len, r->buf + h->hdr_len, h->len);
    }
    if (fl & VB_UD_LAST)
        free(r);
out:
    if (rc) {
        vb_peer_malformed(s, p, h->id, rc, NULL, NULL);
        return -1;
    }
    return 0;
}

/* Handles one UD packet in receive buffer idx; returns 1 if it stays held. */
static int packet(vb_iface_t *s, uint32_t idx, const uint8_t *pkt, uint32_t n, uint32_t src_qp)
{
    vb_ud_pkt_t k;
    const char *why;
    if (vb_ud_decode(pkt, n, CORE_UID_MAX, &k, &why) != 0) {
        /* Who sent it is known only from a header we trust: the sender's uid and QP. */
        uint32_t src = n >= sizeof(vb_ud_hdr_t) ? ((const vb_ud_hdr_t *)pkt)->src : UINT32_MAX;
        vb_peer_t *p = src < CORE_UID_MAX ? vb_peer_of_uid(s, src) : NULL;
        if (p && p->card.qpn == src_qp && !p->failed)
            vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "UD packet", why);
        else
            core_debug("verbs: dropping a UD packet from QP %u: %s", src_qp, why);
        return 0;
    }
    const vb_ud_hdr_t *h = &k.h;
    /* The uid must name a process we know (a rank of ours, or of another job once the layer
     * above added it: a process we have not heard of yet sends again, reliably, until we
     * have), and the packet must come from the QP that process published in its job's
     * data; the Q_Key already kept out every process without the launcher's job key. */
    vb_peer_t *p = vb_peer_of_uid(s, h->src);
    if (!p || p->card.qpn != src_qp || p->failed) {
        core_debug("verbs: dropping a UD packet from QP %u claiming uid %u", src_qp, h->src);
        return 0;
    }
    unsigned kind = h->type & VB_UD_KIND;
    int nak = 0;
    if (kind == VB_UD_ACK)
        nak = ((h->type & VB_UD_NAK) ? VB_REL_NAK : 0) | ((h->type & VB_UD_NAK_ALL) ? VB_REL_NAK_ALL : 0);
    ack_in(s, p, h->ack, nak);
    if (kind == VB_UD_ACK) {
        if (h->type & VB_UD_ACKREQ) {
            p->rx.ack_now = 1;
            vb_active_add(s, p);
        }
        return 0;
    }
    int r = vb_rel_rx_accept(&p->rx, &s->rel, h->psn, s->now);
    if (h->type & VB_UD_WANT_ACK)
        vb_rel_rx_ack_asked(&p->rx);
    vb_active_add(s, p);
    if (r == VB_REL_DUP) {
        s->stats.ud_dups++;
        return 0;
    }
    if (r == VB_REL_AHEAD) {
        s->stats.ud_ahead++;
        return vb_rel_rx_hold(&p->rx, &s->ooo, h->src, h->psn, idx << 13 | n);
    }
    if (deliver(s, p, &k) != 0)
        return 0;
    uint32_t v;
    while (!p->failed && vb_rel_rx_next_held(&p->rx, &s->rel, &s->ooo, h->src, s->now, &v)) {
        uint32_t j = v >> 13;
        vb_ud_pkt_t held;
        /* Decoded when it arrived; decoding again costs little and keeps one path. */
        if (vb_ud_decode(s->ud_rx + (size_t)j * s->ud_rx_bufsz + VB_GRH, v & 0x1fff,
                         CORE_UID_MAX, &held, &why) == 0)
            deliver(s, p, &held);
        s->ud_refill[s->ud_nrefill++] = j;
    }
    return 0;
}

void vb_ud_recv(vb_iface_t *s, const struct ibv_wc *wc)
{
    uint32_t idx = (uint32_t)(wc->wr_id >> 3);
    s->ud_rq_posted--;
    if (wc->status != IBV_WC_SUCCESS) {
        if (!(s->closing && wc->status == IBV_WC_WR_FLUSH_ERR))
            vb_wc_fatal(s, wc, -1, "receiving a UD packet");
        return;
    }
    const uint8_t *buf = s->ud_rx + (size_t)idx * s->ud_rx_bufsz;
    int held = wc->byte_len >= VB_GRH &&
               packet(s, idx, buf + VB_GRH, wc->byte_len - VB_GRH, wc->src_qp);
    if (!held)
        s->ud_refill[s->ud_nrefill++] = idx;
}
