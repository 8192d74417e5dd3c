/*
 * RC connections, made on demand. The handshake travels as sequenced UD
 * messages (so it is reliable and ordered with the data before it):
 *   A: create QP (INIT)            -- REQ(qpn, psn, mtu) -->
 *   B: create QP, RTR + RTS        <-- REP(qpn, psn, mtu) --
 *   A: RTR + RTS, may send         -- RTU -->   B: may send
 * B may not send before RTU, since A's QP is not ready to receive before it
 * has seen REP. When both ranks ask at once, the lower rank's request wins:
 * the lower rank ignores the higher one's REQ, and the higher rank answers
 * the lower one's REQ with the QP it had created for its own. A rank at its
 * RC limit answers REJ and both stay on UD.
 *
 * All RC QPs share one SRQ of buffers sized for the eager limit; each peer
 * may have RDMPI_VERBS_RC_CREDITS messages outstanding, the receiver
 * returning credits on its own messages or, past half, in a credit-only
 * message. Messages up to the QP's max_inline_data go inline straight from
 * the caller's header and payload (three SGEs) and unsignaled; larger ones
 * are copied to a registered bounce buffer and signaled. rnr_retry 7 makes
 * an empty SRQ a delay rather than an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/log.h"
#include "core/procs.h"
#include "transports/verbs/verbs.h"
#include "core/hot.h"

#define RD_ATOM_MAX 16

static uint32_t rc_sq_depth(const vb_iface_t *s)
{
    return VB_RC_SQ < s->dev.attr.max_qp_wr ? VB_RC_SQ : (uint32_t)s->dev.attr.max_qp_wr;
}

static struct ibv_qp *create_qp(vb_iface_t *s, uint32_t inl, int sge)
{
    struct ibv_qp_init_attr ia;
    memset(&ia, 0, sizeof(ia));
    ia.send_cq = s->cq;
    ia.recv_cq = s->cq;
    ia.srq = s->srq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = rc_sq_depth(s);
    ia.cap.max_send_sge = (uint32_t)sge;
    ia.cap.max_inline_data = inl;
    return ibv_create_qp(s->pd, &ia);
}

/* Finds the inline size and SGE count RC QPs get on this device. */
static void probe_caps(vb_iface_t *s)
{
    int sge = s->dev.attr.max_sge < 3 ? s->dev.attr.max_sge : 3;
    struct ibv_qp *qp = create_qp(s, VB_INLINE_WANT, sge);
    if (!qp)
        qp = create_qp(s, 0, sge);
    s->rc_sge = sge;
    s->rc_inline = 0;
    if (!qp)
        return;
    struct ibv_qp_attr qa;
    struct ibv_qp_init_attr qia;
    if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia) == 0) {
        s->rc_inline = qia.cap.max_inline_data;
        s->rc_sge = (int)qia.cap.max_send_sge < sge ? (int)qia.cap.max_send_sge : sge;
    }
    ibv_destroy_qp(qp);
    if (s->rc_inline > VB_INLINE_WANT + 20)
        s->rc_inline = VB_INLINE_WANT + 20; /* staged on the stack when SGEs are short */
}

int vb_rc_open(vb_iface_t *s)
{
    if (s->dev.attr.max_srq_wr <= 0 || s->max_rc <= 0) {
        core_warn("verbs: %s: %s; every peer stays on UD", s->dev.name,
                  s->max_rc <= 0 ? "the completion queue is too small for RC queues"
                                 : "no shared receive queue support");
        s->mode = VB_MODE_UD;
        return 0;
    }
    uint32_t n = (uint32_t)s->cfg->verbs_rq_size;
    if (n > (uint32_t)s->dev.attr.max_srq_wr)
        n = (uint32_t)s->dev.attr.max_srq_wr;
    if (n < 2 * VB_POST_BATCH)
        n = 2 * VB_POST_BATCH;
    s->srq_size = n;
    s->srq_bufsz = (sizeof(vb_rc_hdr_t) + VB_MAX_AM_HDR + s->eager + 63) &
                   ~(size_t)63;
    size_t bytes = s->srq_bufsz * n;
    if (posix_memalign((void **)&s->srq_buf, 4096, bytes) != 0 ||
        !(s->srq_refill = malloc(n * sizeof(uint32_t))))
        return CORE_ENOMEM;
    s->srq_mr = ibv_reg_mr(s->pd, s->srq_buf, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!s->srq_mr) {
        core_warn("verbs: registering %zu bytes of RC receive buffers failed: %s (ulimit -l?)",
                  bytes, strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    struct ibv_srq_init_attr sa;
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = n;
    sa.attr.max_sge = 1;
    s->srq = ibv_create_srq(s->pd, &sa);
    if (!s->srq) {
        core_warn("verbs: cannot create a shared receive queue on %s: %s", s->dev.name,
                  strerror(errno));
        return CORE_EUNSUPPORTED;
    }
    if (vb_pool_init(s, &s->rc_pool, VB_RC_POOL, s->srq_bufsz) != 0)
        return CORE_EUNSUPPORTED;
    probe_caps(s);
    for (uint32_t i = 0; i < n; i++)
        s->srq_refill[s->srq_nrefill++] = i;
    return vb_rc_post_recvs(s);
}

void vb_rc_close(vb_iface_t *s)
{
    if (s->srq)
        ibv_destroy_srq(s->srq);
    s->srq = NULL;
    vb_pool_fini(&s->rc_pool);
    if (s->srq_mr)
        ibv_dereg_mr(s->srq_mr);
    s->srq_mr = NULL;
    free(s->srq_buf);
    s->srq_buf = NULL;
    free(s->srq_refill);
    s->srq_refill = NULL;
    s->srq_nrefill = s->srq_posted = 0;
}

int vb_rc_post_recvs(vb_iface_t *s)
{
    struct ibv_recv_wr wr[VB_POST_BATCH], *bad;
    struct ibv_sge sge[VB_POST_BATCH];
    unsigned done = 0;
    while (done < s->srq_nrefill) {
        unsigned n = s->srq_nrefill - done < VB_POST_BATCH ? s->srq_nrefill - done : VB_POST_BATCH;
        for (unsigned k = 0; k < n; k++) {
            uint32_t idx = s->srq_refill[done + k];
            sge[k].addr = (uintptr_t)(s->srq_buf + (size_t)idx * s->srq_bufsz);
            sge[k].length = (uint32_t)s->srq_bufsz;
            sge[k].lkey = s->srq_mr->lkey;
            wr[k].wr_id = (uint64_t)idx << 3 | VB_WR_SRQ_RECV;
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
        }
        if (ibv_post_srq_recv(s->srq, wr, &bad) != 0) {
            core_error("verbs: posting RC receive buffers failed: %s", strerror(errno));
            return CORE_EIO;
        }
        done += n;
        s->srq_posted += n;
    }
    s->srq_nrefill = 0;
    return 0;
}

/* ---- queue pairs and the handshake ---- */

static int qp_create(vb_iface_t *s, vb_peer_t *p)
{
    vb_rc_t *rc = calloc(1, sizeof(*rc));
    if (!rc)
        return CORE_ENOMEM;
    rc->qp = create_qp(s, s->rc_inline, s->rc_sge);
    if (!rc->qp) {
        core_warn("verbs: cannot create an RC queue pair for rank %d: %s", p->ep.peer,
                  strerror(errno));
        free(rc);
        return CORE_EIO;
    }
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = s->dev.port;
    a.qp_access_flags = (unsigned)vb_reg_access(s);
    if (ibv_modify_qp(rc->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0 ||
        vb_sq_init(&rc->sq, rc_sq_depth(s)) != 0) {
        core_warn("verbs: cannot initialise an RC queue pair for rank %d: %s", p->ep.peer,
                  strerror(errno));
        ibv_destroy_qp(rc->qp);
        free(rc);
        return CORE_EIO;
    }
    rc->psn = (uint32_t)vb_rand(s) & 0xffffff;
    rc->credits = s->cfg->verbs_rc_credits > 0 ? s->cfg->verbs_rc_credits : 1;
    rc->credits_max = rc->credits;
    p->rc = rc;
    s->nrc++;
    vb_fp_ring_create(s, p);
    return 0;
}

static int qp_connect(vb_iface_t *s, vb_peer_t *p, const vb_conn_t *c)
{
    vb_rc_t *rc = p->rc;
    struct ibv_qp_attr a;
    rc->rqpn = c->qpn;
    vb_fp_conn_take(p, c);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = s->dev.pattr.active_mtu < c->mtu ? s->dev.pattr.active_mtu : (enum ibv_mtu)c->mtu;
    a.dest_qp_num = c->qpn;
    a.rq_psn = c->psn;
    a.max_dest_rd_atomic = (uint8_t)(s->dev.attr.max_qp_rd_atom < RD_ATOM_MAX
                                         ? s->dev.attr.max_qp_rd_atom : RD_ATOM_MAX);
    a.min_rnr_timer = 12;
    vb_ud_fill_ah_attr(s, &p->card, &a.ah_attr);
    if (ibv_modify_qp(rc->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                          IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0)
        goto err;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = (uint8_t)s->cfg->verbs_rc_timeout;
    /* 6, not 7: Soft-RoCE (rxe) treats retry_cnt 7 as "retry forever" (as
     * the spec does only for rnr_retry), so a dead peer would never fail
     * the send and a job with only RC traffic to it would hang. */
    a.retry_cnt = 6;
    a.rnr_retry = 7; /* infinite: an empty SRQ only delays */
    a.sq_psn = rc->psn;
    a.max_rd_atomic = (uint8_t)(s->dev.attr.max_qp_init_rd_atom < RD_ATOM_MAX
                                    ? s->dev.attr.max_qp_init_rd_atom : RD_ATOM_MAX);
    if (ibv_modify_qp(rc->qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
        goto err;
    return 0;
err:
    core_fatal("verbs: cannot connect an RC queue pair to rank %d on %s (QP %u -> %u): %s",
               p->ep.peer, core_rank_host(s->rt, p->ep.peer), rc->qp->qp_num, c->qpn,
               strerror(errno));
}

void vb_rc_peer_fini(vb_iface_t *s, vb_peer_t *p)
{
    vb_rc_t *rc = p->rc;
    if (!rc)
        return;
    if (rc->qp)
        ibv_destroy_qp(rc->qp);
    vb_fp_ring_destroy(s, p); /* after the QP: nothing can be written into it any more */
    /* Bounce buffers still posted go with the pool. */
    vb_sq_fini(&rc->sq);
    free(rc);
    p->rc = NULL;
    s->nrc--;
}

static int ctl_send(vb_iface_t *s, vb_peer_t *p, unsigned id)
{
    vb_conn_t c;
    memset(&c, 0, sizeof(c));
    if (p->rc) {
        c.qpn = p->rc->qp->qp_num;
        c.psn = p->rc->psn;
        vb_fp_conn_fill(p, &c);
    }
    c.mtu = (uint8_t)s->dev.pattr.active_mtu;
    int hlen = id == VB_AM_CONN_REQ || id == VB_AM_CONN_REP ? (int)sizeof(c) : 0;
    return vb_ud_send(s, p, id, &c, (size_t)hlen, NULL, 0);
}

/* Sends the handshake messages in p->ctl that can go now. */
static void ctl_flush(vb_iface_t *s, vb_peer_t *p)
{
    static const struct { unsigned bit, id; } order[] = {
        { VB_CTL_REJ, VB_AM_CONN_REJ }, { VB_CTL_REQ, VB_AM_CONN_REQ },
        { VB_CTL_REP, VB_AM_CONN_REP }, { VB_CTL_RTU, VB_AM_CONN_RTU },
    };
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (!(p->ctl & order[i].bit))
            continue;
        if (ctl_send(s, p, order[i].id) != 0) {
            vb_active_add(s, p); /* the timers try again */
            return;
        }
        p->ctl &= (uint8_t)~order[i].bit;
    }
}

/* The connection is usable: data follows once UD is drained; RDMA at once. */
static void rc_up(vb_iface_t *s, vb_peer_t *p)
{
    p->rc_state = VB_RC_UP;
    p->path = p->unacked ? VB_PATH_DRAIN : VB_PATH_RC;
    p->ackreq_sent = 0;
    core_debug("verbs: RC connection to rank %d up (QP %u)", p->ep.peer, p->rc->qp->qp_num);
    if (p->path == VB_PATH_DRAIN)
        vb_active_add(s, p);
    vb_ops_start(s, p);
}

static void refuse(vb_iface_t *s, vb_peer_t *p)
{
    if (p->rc)
        vb_rc_peer_fini(s, p);
    p->rc_state = VB_RC_REFUSED;
    p->ctl &= (uint8_t)~(VB_CTL_REQ | VB_CTL_REP | VB_CTL_RTU);
    vb_ops_start(s, p); /* RDMA waiting for the connection is copied instead */
}

void vb_rc_connect(vb_iface_t *s, vb_peer_t *p)
{
    if (p->rc_state != VB_RC_NONE || p->rc)
        return;
    if (s->mode == VB_MODE_UD || s->nrc >= s->max_rc || qp_create(s, p) != 0) {
        p->rc_state = VB_RC_REFUSED;
        return;
    }
    p->rc_state = VB_RC_REQ_SENT;
    p->ctl |= VB_CTL_REQ;
    ctl_flush(s, p);
}

void vb_rc_conn_msg(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t len)
{
    vb_conn_t c;
    if ((id == VB_AM_CONN_REQ || id == VB_AM_CONN_REP) && len != sizeof(c))
        return;
    if (len)
        memcpy(&c, hdr, sizeof(c));
    switch (id) {
    case VB_AM_CONN_REQ:
        if (p->ep.peer == s->me && p->rc_state == VB_RC_REQ_SENT && p->rc) {
            /* Our own request, looped back (RDMPI_TRANSPORTS without self): the QP connects
             * to itself and is up at once; answering would wait forever for a REP to
             * a REQ_SENT state that the answer itself has left. */
            qp_connect(s, p, &c);
            rc_up(s, p);
            return;
        }
        if (p->rc_state == VB_RC_UP || p->rc_state == VB_RC_REP_SENT)
            return;
        if (p->rc_state == VB_RC_REQ_SENT && s->uid < p->uid)
            return; /* both asked: ours wins (the lower uid: unique across jobs), and they
                     * will answer it */
        if (!p->rc && (s->mode == VB_MODE_UD || s->nrc >= s->max_rc || qp_create(s, p) != 0)) {
            p->rc_state = VB_RC_REFUSED;
            p->ctl |= VB_CTL_REJ;
            ctl_flush(s, p);
            return;
        }
        qp_connect(s, p, &c);
        p->rc_state = VB_RC_REP_SENT;
        p->ctl = (uint8_t)((p->ctl & ~VB_CTL_REQ) | VB_CTL_REP);
        ctl_flush(s, p);
        return;
    case VB_AM_CONN_REP:
        if (p->rc_state != VB_RC_REQ_SENT || !p->rc)
            return;
        qp_connect(s, p, &c);
        p->ctl |= VB_CTL_RTU;
        ctl_flush(s, p);
        rc_up(s, p);
        return;
    case VB_AM_CONN_RTU:
        if (p->rc_state == VB_RC_REP_SENT)
            rc_up(s, p);
        return;
    case VB_AM_CONN_REJ:
        if (p->rc_state == VB_RC_REQ_SENT)
            refuse(s, p);
        return;
    default:
        return;
    }
}

void vb_rc_timers(vb_iface_t *s, vb_peer_t *p)
{
    if (p->ctl)
        ctl_flush(s, p);
    if (p->rc && p->path == VB_PATH_RC && (p->rc->owed > 0 || p->rc->fp_owed > 0) &&
        !p->bye_rcvd && !s->closing)
        vb_rc_send(s, p, VB_AM_CREDIT, NULL, 0, NULL, 0);
}

void vb_rc_return_credits(vb_iface_t *s, vb_peer_t *p)
{
    if (p->rc && !p->bye_rcvd && !s->closing &&
        vb_rc_send(s, p, VB_AM_CREDIT, NULL, 0, NULL, 0) != 0)
        vb_active_add(s, p);
}

/* ---- sending ---- */

CORE_HOT void vb_rc_post(vb_iface_t *s, vb_peer_t *p, struct ibv_send_wr *wr)
{
    struct ibv_send_wr *bad;
    if (ibv_post_send(p->rc->qp, wr, &bad) != 0)
        core_fatal("verbs: posting to the RC queue pair of rank %d on %s failed: %s", p->ep.peer,
                   core_rank_host(s->rt, p->ep.peer), strerror(errno));
}

int vb_rc_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len)
{
    vb_rc_t *rc = p->rc;
    int counted = id != VB_AM_CREDIT && id != VB_AM_NOP;
    if (counted && rc->credits <= 0)
        return CORE_EBUSY;
    if (vb_sq_free(&rc->sq) < (counted ? 3u : 1u))
        return CORE_EBUSY;
    vb_rc_hdr_t rh;
    rh.id = (uint8_t)id;
    rh.hdr_len = (uint8_t)hdr_len;
    rh.credits = (uint16_t)(rc->owed < 0xffff ? rc->owed : 0xffff);
    rh.src = s->uid;
    rh.seq = counted ? rc->tx_seq : 0;
    rh.fcredits = (uint16_t)(rc->fp_owed < 0xffff ? rc->fp_owed : 0xffff);
    size_t total = sizeof(rh) + hdr_len + len;
    struct ibv_send_wr wr;
    vb_wr_init(&wr);
    struct ibv_sge sge[3];
    uint8_t stage[VB_INLINE_WANT + 20];
    int sig = id == VB_AM_NOP, n = 0;
    uintptr_t ent = 0;
    if (total <= s->rc_inline && s->rc_sge >= 3) {
        /* Inline straight from the caller's buffers: no copy, no lkey. */
        sge[n++] = (struct ibv_sge){ (uintptr_t)&rh, sizeof(rh), 0 };
        if (hdr_len)
            sge[n++] = (struct ibv_sge){ (uintptr_t)hdr, (uint32_t)hdr_len, 0 };
        if (len)
            sge[n++] = (struct ibv_sge){ (uintptr_t)payload, (uint32_t)len, 0 };
        wr.send_flags = IBV_SEND_INLINE;
        s->stats.rc_inline++;
    } else if (total <= s->rc_inline) {
        memcpy(stage, &rh, sizeof(rh));
        memcpy(stage + sizeof(rh), hdr, hdr_len);
        if (len)
            memcpy(stage + sizeof(rh) + hdr_len, payload, len);
        sge[n++] = (struct ibv_sge){ (uintptr_t)stage, (uint32_t)total, 0 };
        wr.send_flags = IBV_SEND_INLINE;
        s->stats.rc_inline++;
    } else {
        vb_tx_t *t = vb_rc_bounce(&s->rc_pool, total);
        if (!t)
            return CORE_EBUSY;
        memcpy(t->data, &rh, sizeof(rh));
        memcpy(t->data + sizeof(rh), hdr, hdr_len);
        if (len)
            memcpy(t->data + sizeof(rh) + hdr_len, payload, len);
        sge[n++] = (struct ibv_sge){ (uintptr_t)t->data, (uint32_t)total, t->pool->mr->lkey };
        sig = 1;
        ent = (uintptr_t)t | VB_SQ_TX;
    }
    uint32_t slot = vb_sq_push(&rc->sq, ent, &sig);
    wr.wr_id = (uint64_t)(uint32_t)p->ep.peer << 32 | (uint64_t)slot << 3 | VB_WR_RC_SEND;
    wr.sg_list = sge;
    wr.num_sge = n;
    wr.opcode = IBV_WR_SEND;
    if (sig)
        wr.send_flags |= IBV_SEND_SIGNALED;
    vb_rc_post(s, p, &wr);
    rc->owed -= rh.credits;
    rc->fp_owed -= rh.fcredits;
    if (counted) {
        rc->credits--;
        rc->tx_seq++;
    }
    s->stats.rc_sent++;
    return 0;
}

int vb_rc_flush(vb_iface_t *s, vb_peer_t *p)
{
    if (!p->rc || p->rc_state != VB_RC_UP || p->rc->sq.head == p->rc->sq.tail)
        return 0;
    if (p->rc->sq.unsig == 0)
        return 0; /* the last WQE is signaled: its completion retires them all */
    return vb_rc_send(s, p, VB_AM_NOP, NULL, 0, NULL, 0);
}

/* A device atomic: one WQE, the old value landing in op->local (8 registered bytes). */
static int post_atomic(vb_iface_t *s, vb_peer_t *p, vb_op_t *op)
{
    vb_rc_t *rc = p->rc;
    if (vb_sq_free(&rc->sq) < 3)
        return CORE_EBUSY;
    int sig = 1;
    uint32_t slot = vb_sq_push(&rc->sq, (uintptr_t)op | VB_SQ_OP, &sig);
    struct ibv_sge sge = { (uintptr_t)op->local, 8, op->lmemh->mr->lkey };
    struct ibv_send_wr wr;
    vb_wr_init(&wr);   /* every field of wr.atomic is set below */
    wr.wr_id = (uint64_t)(uint32_t)p->ep.peer << 32 | (uint64_t)slot << 3 | VB_WR_RC_SEND;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op->kind == VB_OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.atomic.remote_addr = op->raddr;
    wr.wr.atomic.rkey = op->key.rkey;
    wr.wr.atomic.compare_add = op->kind == VB_OP_FADD ? op->operand : op->compare;
    wr.wr.atomic.swap = op->operand;
    vb_rc_post(s, p, &wr);
    s->stats.rdma++;
    return 0;
}

CORE_HOT int vb_rc_post_op(vb_iface_t *s, vb_peer_t *p, vb_op_t *op)
{
    if (op->kind == VB_OP_FADD || op->kind == VB_OP_CSWAP)
        return post_atomic(s, p, op);
    vb_rc_t *rc = p->rc;
    size_t chunk = s->max_msg;
    /* (no division for the usual one chunk: a helper call under TCG) */
    size_t nch = op->len <= chunk ? 1 : (op->len + chunk - 1) / chunk;
    if (vb_sq_free(&rc->sq) < nch + 2)
        return CORE_EBUSY;
    struct ibv_send_wr wr[VB_POST_BATCH];
    struct ibv_sge sge[VB_POST_BATCH];
    size_t off = 0;
    int nw = 0;
    for (size_t k = 0; k < nch; k++) {
        size_t n = op->len - off < chunk ? op->len - off : chunk;
        int last = k + 1 == nch, sig = last;
        uint32_t slot = vb_sq_push(&rc->sq, last ? (uintptr_t)op | VB_SQ_OP : 0, &sig);
        /* no lmemh: an inline write of at most rc_inline bytes (vb_put), one chunk */
        sge[nw] = (struct ibv_sge){ (uintptr_t)op->local + off, (uint32_t)n,
                                    op->lmemh ? op->lmemh->mr->lkey : 0 };
        vb_wr_init(&wr[nw]);   /* not a 128-byte memset per operation */
        wr[nw].wr_id = (uint64_t)(uint32_t)p->ep.peer << 32 | (uint64_t)slot << 3 | VB_WR_RC_SEND;
        wr[nw].sg_list = &sge[nw];
        wr[nw].num_sge = 1;
        wr[nw].opcode = op->kind == VB_OP_GET ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
        wr[nw].send_flags = sig ? IBV_SEND_SIGNALED : 0;
        /* a small write goes in the work request itself: the device reads no memory
         * (rxe: no key lookup and copy from the registration in the kernel) */
        if (op->kind == VB_OP_PUT && n <= s->rc_inline)
            wr[nw].send_flags |= IBV_SEND_INLINE;
        wr[nw].wr.rdma.remote_addr = op->raddr + off;
        wr[nw].wr.rdma.rkey = op->key.rkey;
        wr[nw].next = NULL;
        if (nw > 0)
            wr[nw - 1].next = &wr[nw];
        if (++nw == VB_POST_BATCH || last) {
            vb_rc_post(s, p, wr);
            nw = 0;
        }
        off += n;
    }
    s->stats.rdma++;
    return 0;
}

_Static_assert(_Alignof(tp_comp_t) >= 4, "a completion's address carries the SQ tag");

CORE_HOT int vb_rc_post_direct(vb_iface_t *s, vb_peer_t *p, struct ibv_send_wr *wr,
                               tp_comp_t *comp)
{
    vb_rc_t *rc = p->rc;
    if (vb_sq_free(&rc->sq) < 3)   /* as vb_rc_post_op: room left for a credit or NOP */
        return CORE_EBUSY;
    /* signaled: its own completion fires comp (a later one's would retire it silently) */
    int sig = 1;
    uint32_t slot = vb_sq_push(&rc->sq, (uintptr_t)comp | VB_SQ_COMP, &sig);
    wr->wr_id = (uint64_t)(uint32_t)p->ep.peer << 32 | (uint64_t)slot << 3 | VB_WR_RC_SEND;
    wr->send_flags |= IBV_SEND_SIGNALED;
    vb_rc_post(s, p, wr);
    s->stats.rdma++;
    return 0;
}

/* ---- completions ---- */

CORE_HOT void vb_rc_send_done(vb_iface_t *s, const struct ibv_wc *wc)
{
    int peer = (int)(wc->wr_id >> 32);
    vb_peer_t *p = peer >= 0 && peer < vb_npeers_now(s) ? s->peers[peer] : NULL;
    if (wc->status != IBV_WC_SUCCESS) {
        if (s->closing && (wc->status == IBV_WC_WR_FLUSH_ERR || (p && (p->bye_rcvd || p->gone))))
            return;
        /* A process of another job that finalized destroyed its end of the connection:
         * what we still had in flight to it was sent past its goodbye. */
        if (p && (p->left || p->gone))
            return;
        vb_wc_fatal(s, wc, peer, "an RC transfer (send, RDMA read or write) to");
    }
    if (!p || !p->rc)
        return;
    uintptr_t done[2];
    unsigned n = vb_sq_retire(&p->rc->sq, (uint32_t)(wc->wr_id >> 3) & 0x1fffffff, done, 2);
    for (unsigned i = 0; i < n; i++) {
        tp_comp_t *comp;
        if ((done[i] & VB_SQ_TAG) == VB_SQ_COMP) {
            comp = (tp_comp_t *)(done[i] & ~(uintptr_t)VB_SQ_TAG);
        } else {
            vb_op_t *op = (vb_op_t *)(done[i] & ~(uintptr_t)VB_SQ_TAG);
            comp = op->comp;
            vb_op_release(s, op);
        }
        vb_comp_fire(s, comp, 0);
    }
    if (p->pending)
        vb_ops_start(s, p);
}

/* The peer of the RC QP numbered qpn, or NULL. */
static vb_peer_t *peer_of_qpn(vb_iface_t *s, uint32_t qpn)
{
    for (int i = 0; i < vb_npeers_now(s); i++)
        if (s->peers[i] && s->peers[i]->rc && s->peers[i]->rc->qp->qp_num == qpn)
            return s->peers[i];
    return NULL;
}

/* A ring write with immediate (verbs_fp.c) completed: the immediate names the writer by uid,
 * which must be the peer of the QP it came in on, and we must have asked that peer for
 * writes with immediate. */
static void imm_in(vb_iface_t *s, const struct ibv_wc *wc)
{
    uint32_t uid = ntohl(wc->imm_data);
    vb_peer_t *p = uid < CORE_UID_MAX ? vb_peer_of_uid(s, uid) : NULL;
    const char *why = NULL;
    if (!p || !p->rc || p->rc->qp->qp_num != wc->qp_num)
        why = "a write with immediate that names another rank as its writer";
    else if (!p->rc->fpr || !p->rc->fpr->imm)
        why = "a write with immediate into a ring not offered for them";
    if (!why) {
        if (!p->failed)
            vb_fp_imm_in(s, p);
        return;
    }
    vb_peer_t *q = peer_of_qpn(s, wc->qp_num);
    if (q)
        vb_peer_malformed(s, q, VB_AM_END, CORE_EPROTO, "RDMA write with immediate", why);
    else
        core_error("verbs: dropping a write with immediate on QP %u of no peer", wc->qp_num);
}

void vb_rc_recv(vb_iface_t *s, const struct ibv_wc *wc)
{
    uint32_t idx = (uint32_t)(wc->wr_id >> 3);
    s->srq_posted--;
    if (wc->status != IBV_WC_SUCCESS) {
        if (s->closing && wc->status == IBV_WC_WR_FLUSH_ERR)
            return;
        /* The SRQ is shared: the QP number says which connection failed. */
        int peer = -1;
        for (int i = 0; i < vb_npeers_now(s) && peer < 0; i++)
            if (s->peers[i] && s->peers[i]->rc && s->peers[i]->rc->qp->qp_num == wc->qp_num)
                peer = i;
        if (peer >= 0 && (s->peers[peer]->left || s->peers[peer]->gone))
            return; /* a process of another job that left: its end is gone */
        vb_wc_fatal(s, wc, peer, peer >= 0 ? "a receive on the RC connection from"
                                           : "a receive on an RC connection");
    }
    if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        imm_in(s, wc);
        s->srq_refill[s->srq_nrefill++] = idx;
        return;
    }
    const uint8_t *buf = s->srq_buf + (size_t)idx * s->srq_bufsz;
    vb_rc_hdr_t h;
    const char *why = NULL;
    int bad = vb_rc_decode(buf, wc->byte_len, CORE_UID_MAX, &h, &why);
    /* The QP it came in on says who sent it; the header's uid must agree. */
    vb_peer_t *p = bad ? NULL : vb_peer_of_uid(s, h.src);
    if (!p || !p->rc || p->rc->qp->qp_num != wc->qp_num) {
        vb_peer_t *q = NULL;
        for (int i = 0; i < vb_npeers_now(s) && !q; i++)
            if (s->peers[i] && s->peers[i]->rc && s->peers[i]->rc->qp->qp_num == wc->qp_num)
                q = s->peers[i];
        if (q)
            vb_peer_malformed(s, q, VB_AM_END, CORE_EPROTO, "RC message",
                              why ? why : "a message that names another rank as its sender");
        else
            core_error("verbs: dropping an RC message (%u bytes) on QP %u of no peer",
                       wc->byte_len, wc->qp_num);
    } else if (!p->failed && vb_rc_take_credits(p->rc, h.credits, h.fcredits)) {
        vb_peer_malformed(s, p, VB_AM_END, CORE_EPROTO, "RC message",
                          "more credits returned than messages sent");
    } else if (!p->failed) {
        vb_rc_t *rc = p->rc;
        if (h.id != VB_AM_CREDIT && h.id != VB_AM_NOP) {
            if (h.seq != rc->rx_seq)
                vb_fp_catch_up(s, p, h.seq);
            rc->rx_seq++;
            rc->owed++;
            int hrc = p->failed ? 0
                                : vb_dispatch(s, p, h.id, buf + sizeof(h), h.hdr_len,
                                              buf + sizeof(h) + h.hdr_len,
                                              wc->byte_len - sizeof(h) - h.hdr_len);
            if (hrc)
                vb_peer_malformed(s, p, h.id, hrc, NULL, NULL);
            else if (p->rc == rc && rc->owed >= (s->cfg->verbs_rc_credits + 1) / 2)
                vb_rc_return_credits(s, p);
        }
    }
    s->srq_refill[s->srq_nrefill++] = idx;
}
