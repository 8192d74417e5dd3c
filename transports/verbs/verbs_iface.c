/*
 * The verbs component: opening the device (one PD, one CQ for everything,
 * the UD QP, and in rc/hybrid mode the SRQ), publishing the address card,
 * peers created on first contact, the progress loop (CQ polled in batches,
 * receive queues refilled in batches, timers every 200 us for the peers on
 * the active list), the routing of active messages between UD and RC,
 * arming the CQ's completion channel for a rank about to sleep (arm), and
 * an orderly close (RC queues flushed, BYE exchanged, then teardown).
 *
 * Processes of other jobs of the same launcher (spawned, parents, connected by
 * accept/connect or MPI_Intercomm_create) are peers like our ranks: their card
 * is read from their job's data (core_boot_get by process index), our UD
 * Q_Key, derived from the launcher's job key, is theirs too, and a packet is
 * taken only from the QP that the process named by its header's uid published
 * (as within a job). Processes of another rdmpirun run are not reached (tcp
 * carries those, authenticated with the bridge key). Between jobs there is no
 * common finalize barrier: a process of another job says BYE over UD when it
 * finalizes, after its data (UD is sequenced, and RC was flushed first), and we
 * answer at once from progress (bye_in), fail sends to it from then on and tell
 * the layer above (tp_peer_lost). The goodbye stays on verbs rather than on a
 * tcp side channel: it must come after the peer's last message, which only the
 * transport carrying the messages can order, and a second transport would have
 * to be connected to every such peer just for it. What a tcp side channel would
 * give, a refused connection to a process that has already left, is had by
 * saying BYE at close to every process of another job we know (talked to or
 * not), so that one we never sent anything still hears it (a receive posted for
 * it fails).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"
#include "core/secret.h"
#include "transports/verbs/verbs.h"
#include "core/hot.h"

#define TIMER_PERIOD 0.0002
#define LINGER 0.02         /* after close is agreed: still answer resends */

static void vb_close(tp_iface_t *iface);
static int vb_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p);
static void vb_ep_destroy(tp_ep_t *ep);
static int vb_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len);
static int vb_am_send_zc(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len, tp_memh_t *memh, tp_comp_t *comp,
                         unsigned flags);
static int vb_progress(void *iface);
static int vb_poll_comp(tp_iface_t *iface);
static int vb_flush(tp_ep_t *ep);
static int vb_drain(tp_iface_t *iface);
static int vb_arm(tp_iface_t *iface, tp_arm_t *a);

/* The operations the layer above calls, each under V (verbs.h: vb_iface_t.lock): the
 * functions they wrap assume it held. progress, poll_comp and arm take it themselves. */
static int op_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_am_send(ep, id, hdr, hdr_len, payload, len);
    vb_unlock(s, l);
    return rc;
}

static int op_am_send_zc(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len, tp_memh_t *memh, tp_comp_t *comp,
                         unsigned flags)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_am_send_zc(ep, id, hdr, hdr_len, payload, len, memh, comp, flags);
    vb_unlock(s, l);
    return rc;
}

static int op_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    int rc = vb_mem_reg(iface, addr, len, memh_p);
    vb_unlock(s, l);
    return rc;
}

static void op_mem_dereg(tp_iface_t *iface, tp_memh_t *memh)
{
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    vb_mem_dereg(iface, memh);
    vb_unlock(s, l);
}

static CORE_HOT int op_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                  const void *rkey, tp_comp_t *comp)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_get(ep, local, len, lmemh, raddr, rkey, comp);
    vb_unlock(s, l);
    return rc;
}

static CORE_HOT int op_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                  const void *rkey, tp_comp_t *comp)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_put(ep, local, len, lmemh, raddr, rkey, comp);
    vb_unlock(s, l);
    return rc;
}

static int op_atomic(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *result,
                     tp_memh_t *lmemh, uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_atomic(ep, op, operand, compare, result, lmemh, raddr, rkey, comp);
    vb_unlock(s, l);
    return rc;
}

static int op_flush(tp_ep_t *ep)
{
    vb_iface_t *s = vb_iface(ep->iface);
    int l = vb_lock(s);
    int rc = vb_flush(ep);
    vb_unlock(s, l);
    return rc;
}

static int op_drain(tp_iface_t *iface)
{
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    int rc = vb_drain(iface);
    vb_unlock(s, l);
    return rc;
}

/* rkey_pack reads only the handle, which its owner (a message inside G) holds: no V. */
static const tp_ops_t vb_ops = {
    .close = vb_close,
    .ep_create = vb_ep_create,
    .ep_destroy = vb_ep_destroy,
    .am_send = op_am_send,
    .am_send_zc = op_am_send_zc,
    .mem_reg = op_mem_reg,
    .mem_dereg = op_mem_dereg,
    .rkey_pack = vb_rkey_pack,
    .get = op_get,
    .put = op_put,
    .atomic = op_atomic,
    .progress = vb_progress,
    .poll_comp = vb_poll_comp,
    .flush = op_flush,
    .drain = op_drain,
    .arm = vb_arm,
};

/* ---- V: the interface's lock (verbs.h) ---- */

CORE_HOT void vb_comp_fire(vb_iface_t *s, tp_comp_t *comp, int status)
{
    if (!s->held) {
        comp->done(comp, status);
        return;
    }
    if (s->ndefer == s->defer_cap) {
        unsigned cap = s->defer_cap ? 2 * s->defer_cap : 16;
        struct vb_defer *d = realloc(s->defer, cap * sizeof(*d));
        if (!d)
            core_fatal("verbs: out of memory deferring a completion");
        s->defer = d;
        s->defer_cap = cap;
    }
    s->defer[s->ndefer++] = (struct vb_defer){ comp, status };
}

void vb_defer_run(vb_iface_t *s)
{
    /* under V, a few at a time: a completion fired may defer more (its send's progress) */
    for (;;) {
        struct vb_defer d[VB_POLL_BATCH];
        int l = vb_lock(s);
        unsigned n = s->ndefer < VB_POLL_BATCH ? s->ndefer : VB_POLL_BATCH;
        memcpy(d, s->defer, n * sizeof(d[0]));
        s->ndefer -= n;
        memmove(s->defer, s->defer + n, s->ndefer * sizeof(d[0]));
        vb_unlock(s, l);
        if (!n)
            return;
        for (unsigned i = 0; i < n; i++)
            d[i].comp->done(d[i].comp, d[i].status);
    }
}

int vb_dispatch_up(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len)
{
    /* The state is whole here: a handler may send to any peer (inside G it always could),
     * and now a thread outside G may too while V is left. */
    int left = vb_leave(s);
    int rc = s->base.am[id].cb(s->base.am[id].arg, p->ep.peer, hdr, hdr_len, payload, len);
    vb_return(s, left);
    return rc;
}

uint64_t vb_rand(vb_iface_t *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- send queue book-keeping and buffer pools ---- */

int vb_sq_init(vb_sq_t *q, uint32_t size)
{
    q->ent = calloc(size, sizeof(*q->ent));
    if (!q->ent)
        return CORE_ENOMEM;
    q->size = size;
    q->head = q->tail = q->unsig = 0;
    return 0;
}

void vb_sq_fini(vb_sq_t *q)
{
    free(q->ent);
    q->ent = NULL;
}

CORE_HOT unsigned vb_sq_retire(vb_sq_t *q, uint32_t slot, uintptr_t *done, unsigned max)
{
    /* one division per call, not per entry (each is a helper call under TCG) */
    uint32_t i = q->tail % q->size;
    uint32_t n = (slot >= i ? slot - i : slot + q->size - i) + 1;
    unsigned nd = 0;
    if (n > q->head - q->tail)
        n = q->head - q->tail; /* cannot happen: a completion for nothing posted */
    while (n--) {
        uintptr_t e = q->ent[i];
        q->ent[i] = 0;
        q->tail++;
        if (++i == q->size)
            i = 0;
        unsigned tag = e & VB_SQ_TAG;
        if (tag == VB_SQ_TX)
            vb_tx_retired((vb_tx_t *)(e & ~(uintptr_t)VB_SQ_TAG));
        else if (tag && nd < max)
            done[nd++] = e;
    }
    return nd;
}

void vb_tx_retired(vb_tx_t *t)
{
    if (t->inflight)
        t->inflight--;
    if (t->inflight == 0 && t->acked)
        vb_pool_put(t);
}

int vb_pool_init(vb_iface_t *s, vb_pool_t *pl, unsigned n, size_t bufsz)
{
    size_t bytes = (size_t)n * bufsz;
    memset(pl, 0, sizeof(*pl));
    pl->descs = calloc(n, sizeof(*pl->descs));
    if (!pl->descs || posix_memalign((void **)&pl->slab, 4096, bytes) != 0)
        goto err_free;
    pl->mr = ibv_reg_mr(s->pd, pl->slab, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!pl->mr) {
        core_error("verbs: registering %zu bytes of send buffers failed: %s (check ulimit -l)",
                   bytes, strerror(errno));
        goto err_free;
    }
    pl->bufsz = bufsz;
    pl->n = n;
    for (unsigned i = n; i-- > 0;) {
        vb_tx_t *t = &pl->descs[i];
        t->data = pl->slab + (size_t)i * bufsz;
        t->pool = pl;
        vb_pool_put(t);
    }
    return 0;
err_free:
    free(pl->slab);
    free(pl->descs);
    memset(pl, 0, sizeof(*pl));
    return CORE_ENOMEM;
}

void vb_pool_fini(vb_pool_t *pl)
{
    if (pl->mr)
        ibv_dereg_mr(pl->mr);
    free(pl->slab);
    free(pl->descs);
    memset(pl, 0, sizeof(*pl));
}

/* ---- peers ---- */

void vb_active_add(vb_iface_t *s, vb_peer_t *p)
{
    if (!core_list_linked(&p->alink))
        core_list_push_front(&s->active, &p->alink);
}

int vb_npeers_now(const vb_iface_t *s)
{
    int n = s->rt->nprocs > s->size ? s->rt->nprocs : s->size;
    return n < s->npeers ? n : s->npeers;
}

/* The process table of other jobs (core/procs.h), read without calling into it. */
static const struct core_proc *dyn_proc(const vb_iface_t *s, int idx)
{
    return idx >= s->size && idx < vb_npeers_now(s) && s->rt->procs ? &s->rt->procs[idx - s->size]
                                                                     : NULL;
}

vb_peer_t *vb_peer_of_uid(vb_iface_t *s, uint32_t uid)
{
    const core_runtime_t *rt = s->rt;
    int ndyn = rt->procs ? vb_npeers_now(s) - s->size : 0;
    int idx = vb_uid_index(uid, rt->uid_base, s->size, rt->procs, ndyn);
    return idx < 0 ? NULL : vb_peer_get(s, idx);
}

/* The peer of a process index, set up from its card on first contact (a send
 * to it, or a packet from it). NULL when it has no usable card, and for a
 * process of another job not added yet (its job, where its card is, is not
 * known) or of another run (tcp only). wait: the card of a process of another
 * job may not be published yet (it opens its transports for other jobs when
 * it connects, or in its MPI_Init while we already address it): look again for
 * a while (core_boot_get), as tcp does for its address, so that both sides
 * choose verbs; without wait one look (a packet from it comes after its card;
 * at close we only say goodbye to those that have one). */
static vb_peer_t *peer_find(vb_iface_t *s, int rank, int wait)
{
    if (rank < 0 || rank >= vb_npeers_now(s))
        return NULL;
    if (s->peers[rank])
        return s->peers[rank];
    uint32_t uid = (uint32_t)(s->rt->uid_base + rank);
    if (rank >= s->size) {
        const struct core_proc *q = dyn_proc(s, rank);
        if (!q || q->rank < 0 || q->run)
            return NULL;
        uid = (uint32_t)q->uid;
    }
    void *val;
    size_t len;
    int rc = rank < s->size || wait ? core_boot_get(s->rt, rank, VB_CARD_KEY, &val, &len)
                                    : core_boot_get_now(s->rt, rank, VB_CARD_KEY, &val, &len);
    if (rc != 0) {
        core_debug("verbs: rank %d published no RDMA address", rank);
        return NULL;
    }
    vb_card_t card;
    int ok = len == sizeof(card);
    if (ok)
        memcpy(&card, val, sizeof(card));
    free(val);
    /* core_boot_get's wait leaves the critical section (MPI_THREAD_MULTIPLE): another
     * thread's progress may have met the peer meanwhile (a packet from it); its state
     * (sequence numbers) is the one to keep. */
    if (s->peers[rank])
        return s->peers[rank];
    if (!ok || card.version != 1) {
        core_warn("verbs: rank %d published an RDMA address of another version", rank);
        return NULL;
    }
    if ((card.link_layer == IBV_LINK_LAYER_INFINIBAND) !=
        (s->dev.pattr.link_layer == IBV_LINK_LAYER_INFINIBAND)) {
        core_debug("verbs: rank %d is on another kind of network (link layer %u vs %u)", rank,
                   card.link_layer, s->dev.pattr.link_layer);
        return NULL;
    }
    vb_peer_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->card = card;
    core_list_init(&p->alink);
    if (vb_ud_create_ah(s, &card, &p->ah) != 0) {
        free(p);
        return NULL;
    }
    int mtu = vb_mtu_bytes(s->mtu), theirs = vb_mtu_bytes((enum ibv_mtu)card.mtu);
    if (theirs && theirs < mtu)
        mtu = theirs;
    p->seg = (uint16_t)(mtu - sizeof(vb_ud_hdr_t));
    vb_rel_tx_init(&p->tx, &s->rel);
    vb_rel_rx_init(&p->rx);
    p->ep.iface = &s->base;
    p->ep.peer = rank;
    p->uid = uid;
    s->peers[rank] = p;
    return p;
}

vb_peer_t *vb_peer_get(vb_iface_t *s, int rank)
{
    return peer_find(s, rank, 0);
}

static int vb_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    /* under V: progress (under V too) may be creating the same peer from its packet; not
     * needed for a process of another job (inside G only: vb_reachable found it) */
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    vb_peer_t *p = vb_peer_get(s, peer);
    vb_unlock(s, l);
    if (!p)
        return CORE_EPEER;
    *ep_p = &p->ep;
    return 0;
}

static void vb_ep_destroy(tp_ep_t *ep)
{
    (void)ep; /* peers live until close: their sequence state must survive */
}

/* ---- active messages ---- */

int vb_send_other(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                  const void *payload, size_t len)
{
    if (p->path == VB_PATH_DRAIN) {
        /* RC is up, but what went on UD must be acknowledged first. */
        if (!p->ackreq_sent) {
            vb_ud_send_ack(s, p, 1);
            p->ackreq_sent = 1;
        }
        return CORE_EBUSY;
    }
    if (p->rc_state == VB_RC_NONE && !p->rc && s->mode != VB_MODE_UD &&
        ++p->nmsgs >= (uint32_t)s->rc_msgs)
        vb_rc_connect(s, p);
    return vb_ud_send(s, p, id, hdr, hdr_len, payload, len);
}

static int vb_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    vb_iface_t *s = vb_iface(ep->iface);
    vb_peer_t *p = (vb_peer_t *)ep;
    if (id >= TP_AM_MAX || hdr_len > VB_MAX_AM_HDR || len > s->base.caps.max_am)
        return CORE_EINVAL;
    if (p->left || (p->gone && vb_other_job(s, p))) {
        /* A process of another job that finalized reads nothing more: what the application
         * still sends it is an error for the sender (MPI_ERR_OTHER), as over tcp; in our
         * own close the protocol's late messages go nowhere quietly. */
        return s->closing ? 0 : CORE_EPEER;
    }
    return vb_send(s, p, id, hdr, hdr_len, payload, len);
}

/* Zero copy where the message goes on UD from a device registration that covers its
 * payload; else (the peer on RC, or the registration failed) copied, done at once. */
static int vb_am_send_zc(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len, tp_memh_t *memh, tp_comp_t *comp,
                         unsigned flags)
{
    vb_iface_t *s = vb_iface(ep->iface);
    vb_peer_t *p = (vb_peer_t *)ep;
    const uint8_t *b = payload;
    if (!s->ud_zc || !memh || !memh->mr || p->path != VB_PATH_UD || len == 0 ||
        b < memh->addr || len > memh->len || (size_t)(b - memh->addr) > memh->len - len ||
        p->rc_state != VB_RC_NONE)
        return vb_am_send(ep, id, hdr, hdr_len, payload, len);
    if (id >= TP_AM_MAX || hdr_len > VB_MAX_AM_HDR || len > s->base.caps.max_am)
        return CORE_EINVAL;
    if (p->left || (p->gone && vb_other_job(s, p)))
        return s->closing ? 0 : CORE_EPEER;
    return vb_ud_send_zc(s, p, id, hdr, hdr_len, payload, len, memh->mr, comp,
                         (flags & TP_ZC_WAITED) != 0);
}

static const char *const vb_am_names[VB_AM_END - TP_AM_MAX] = {
    "CONN_REQ", "CONN_REP", "CONN_RTU", "CONN_REJ", "GET_REQ", "GET_RESP", "PUT", "PUT_ACK",
    "BYE", "CREDIT", "NOP",
};

void vb_peer_malformed(vb_iface_t *s, vb_peer_t *p, unsigned id, int rc, const char *what,
                       const char *why)
{
    if (p->failed)
        return;
    p->failed = 1;
    if (id < TP_AM_MAX)
        tp_am_refused(&s->base, p->ep.peer, id, rc);
    else if (id < VB_AM_END)
        core_wire_fail(s->rt, p->ep.peer, "verbs", vb_am_names[id - TP_AM_MAX], why);
    else if (what)
        core_wire_fail(s->rt, p->ep.peer, "verbs", what, why);
    else
        tp_am_refused(&s->base, p->ep.peer, id, rc); /* says the id is not in use */
}

/* Our goodbye to a process of another job that said its own (once: bye_sent). */
static void bye_answer(vb_iface_t *s, vb_peer_t *p)
{
    if (!p->bye_sent && vb_ud_send(s, p, VB_AM_BYE, NULL, 0, NULL, 0) == 0)
        p->bye_sent = 1; /* else the timer tries again (peer_idle keeps it active) */
}

/* A process of another job said BYE at its MPI_Finalize while we go on, perhaps for long:
 * it waits for our goodbye, so it is answered now (not at our finalize), after what we
 * sent it before (UD is sequenced). Everything it sent has arrived (it flushed RC and UD
 * first), so what waits for it fails (tp_peer_lost), and so does every later send to it
 * (vb_am_send). Our own job's ranks say BYE only past the finalize barrier. */
static void bye_in(vb_iface_t *s, vb_peer_t *p)
{
    p->left = 1;
    bye_answer(s, p);
    core_debug("verbs: process %d of another job (uid %u) said goodbye", p->ep.peer, p->uid);
    tp_peer_lost(&s->base, p->ep.peer);
}

int vb_dispatch_other(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    switch (id) {
    case VB_AM_CONN_REQ:
    case VB_AM_CONN_REP:
    case VB_AM_CONN_RTU:
    case VB_AM_CONN_REJ: {
        size_t want = id == VB_AM_CONN_REQ || id == VB_AM_CONN_REP ? sizeof(vb_conn_t) : 0;
        if (hdr_len != want || len != 0)
            return core_wire_reject(s->rt, "%zu + %zu bytes (expected %zu + 0)", hdr_len, len,
                                    want);
        vb_rc_conn_msg(s, p, id, hdr, hdr_len);
        return 0;
    }
    case VB_AM_GET_REQ:
    case VB_AM_GET_RESP:
    case VB_AM_PUT:
    case VB_AM_PUT_ACK:
        if (hdr_len != sizeof(vb_xfer_t))
            return core_wire_reject(s->rt, "a %zu-byte header (expected %zu)", hdr_len,
                                    sizeof(vb_xfer_t));
        vb_xfer_msg(s, p, id, hdr, payload, len);
        return 0;
    case VB_AM_BYE:
        if (hdr_len != 0 || len != 0)
            return core_wire_reject(s->rt, "%zu + %zu bytes (expected none)", hdr_len, len);
        p->bye_rcvd = 1;
        p->rx.ack_now = 1;
        vb_active_add(s, p);
        if (vb_other_job(s, p) && !s->closing && !p->left)
            bye_in(s, p);
        return 0;
    case VB_AM_CREDIT:
    case VB_AM_NOP:
        return 0;
    default:
        return CORE_EPROTO; /* reported by vb_peer_malformed as an unknown handler id */
    }
}

static int vb_flush(tp_ep_t *ep)
{
    vb_iface_t *s = vb_iface(ep->iface);
    vb_peer_t *p = (vb_peer_t *)ep;
    if (p->unacked)
        return CORE_EBUSY;
    if (p->rc && p->rc->sq.head != p->rc->sq.tail) {
        vb_rc_flush(s, p);
        return CORE_EBUSY;
    }
    return 0;
}

/* Finalize: every peer has our data acknowledged and our RC queue empty.
 * The goodbye over UD stays in close, which answers resends meanwhile. */
static int vb_drain(tp_iface_t *iface)
{
    vb_iface_t *s = vb_iface(iface);
    int busy = 0;
    for (int i = 0; s->peers && i < vb_npeers_now(s); i++) {
        vb_peer_t *p = s->peers[i];
        if (p && !p->gone && !p->left && vb_flush(&p->ep) == CORE_EBUSY)
            busy = 1;
    }
    return busy ? CORE_EBUSY : 0;
}

/* ---- errors ---- */

void vb_wc_fatal(vb_iface_t *s, const struct ibv_wc *wc, int peer, const char *what)
{
    const char *hint = vb_wc_hint(wc->status);
    if (peer >= 0 && peer < vb_npeers_now(s)) {
        const vb_peer_t *p = s->peers[peer];
        char rq[48] = "";
        if (p && p->rc && p->rc->rqpn)
            snprintf(rq, sizeof(rq), " (connected to its QP %u)", p->rc->rqpn);
        core_fatal("verbs: %s rank %d on %s failed: %s (status %d, vendor error 0x%x) on QP %u%s "
                   "of %s port %u%s%s",
                   what, peer, core_rank_host(s->rt, peer), ibv_wc_status_str(wc->status),
                   (int)wc->status, wc->vendor_err, wc->qp_num, rq, s->dev.name, s->dev.port,
                   *hint ? ": " : "", hint);
    }
    core_fatal("verbs: %s failed: %s (status %d, vendor error 0x%x) on QP %u of %s port %u%s%s",
               what, ibv_wc_status_str(wc->status), (int)wc->status, wc->vendor_err, wc->qp_num,
               s->dev.name, s->dev.port, *hint ? ": " : "", hint);
}

static int peer_of_qp(vb_iface_t *s, struct ibv_qp *qp)
{
    for (int i = 0; i < vb_npeers_now(s); i++)
        if (s->peers[i] && s->peers[i]->rc && s->peers[i]->rc->qp == qp)
            return i;
    return -1;
}

/* Asynchronous events: fatal ones end the job with the peer named. */
static void async_events(vb_iface_t *s)
{
    struct ibv_async_event ev;
    while (ibv_get_async_event(s->dev.ctx, &ev) == 0) {
        enum ibv_event_type t = ev.event_type;
        int peer = -1;
        uint32_t qpn = 0;
        if (t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR || t == IBV_EVENT_QP_ACCESS_ERR) {
            peer = peer_of_qp(s, ev.element.qp);
            qpn = ev.element.qp->qp_num;
        }
        ibv_ack_async_event(&ev);
        switch (t) {
        case IBV_EVENT_QP_FATAL:
        case IBV_EVENT_QP_REQ_ERR:
        case IBV_EVENT_QP_ACCESS_ERR:
            /* A process of another job that left destroyed its end: nothing was owed. */
            if (s->closing || (peer >= 0 && (s->peers[peer]->left || s->peers[peer]->gone)))
                break;
            if (peer >= 0)
                core_fatal("verbs: the connection to rank %d on %s failed: %s (QP %u, connected "
                           "to its QP %u, of %s port %u)", peer, core_rank_host(s->rt, peer),
                           ibv_event_type_str(t), qpn, s->peers[peer]->rc->rqpn, s->dev.name,
                           s->dev.port);
            core_fatal("verbs: the UD queue pair failed: %s (QP %u of %s port %u)",
                       ibv_event_type_str(t), qpn, s->dev.name, s->dev.port);
        case IBV_EVENT_CQ_ERR:
        case IBV_EVENT_SRQ_ERR:
        case IBV_EVENT_DEVICE_FATAL:
        case IBV_EVENT_PORT_ERR:
            if (s->closing && t == IBV_EVENT_PORT_ERR)
                break;
            core_fatal("verbs: %s on %s port %u", ibv_event_type_str(t), s->dev.name,
                       s->dev.port);
        default:
            core_debug("verbs: async event %s", ibv_event_type_str(t));
            break;
        }
    }
}

/* ---- progress ---- */

static CORE_HOT void handle_wc(vb_iface_t *s, const struct ibv_wc *wc)
{
    switch (VB_WR_KIND(wc->wr_id)) {
    case VB_WR_UD_RECV:
        vb_ud_recv(s, wc);
        break;
    case VB_WR_SRQ_RECV:
        vb_rc_recv(s, wc);
        break;
    case VB_WR_UD_SEND:
        if (wc->status != IBV_WC_SUCCESS) {
            if (s->closing && wc->status == IBV_WC_WR_FLUSH_ERR)
                break;
            vb_wc_fatal(s, wc, -1, "sending a UD packet");
        }
        vb_sq_retire(&s->ud_sq, (uint32_t)(wc->wr_id >> 3) & 0x1fffffff, NULL, 0);
        break;
    case VB_WR_RC_SEND:
        vb_rc_send_done(s, wc);
        break;
    default:
        core_error("verbs: completion of unknown kind (wr_id 0x%llx)",
                   (unsigned long long)wc->wr_id);
        break;
    }
}

static int peer_idle(const vb_peer_t *p)
{
    if (p->left) /* nothing more goes to it: only our goodbye, until it is acknowledged */
        return p->bye_sent && !p->unacked && !vb_rel_rx_ack_owed(&p->rx);
    return !p->unacked && !vb_rel_rx_ack_owed(&p->rx) && !p->pending && !p->ctl &&
           p->path != VB_PATH_DRAIN &&
           !(p->rc && (p->rc->owed > 0 || p->rc->fp_owed > 0) && p->path == VB_PATH_RC);
}

/* A peer that stays busy (on the active list) with nothing about it
 * changing is stuck: unacknowledged packets nobody answers, a handshake or
 * RDMA that never starts, a drain that never ends, credits never returned.
 * The UD timeout ends the job for the first of these; the others would hang
 * without a word, so say once what the peer is waiting for. */
static uint64_t stall_sig(const vb_iface_t *s, const vb_peer_t *p)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t v[] = { p->tx.una, p->tx.next, p->rx.expected, p->ctl, p->path, p->rc_state,
                     (uintptr_t)p->pending, p->rc ? (uint64_t)p->rc->credits : 0,
                     p->rc ? p->rc->sq.tail : 0, p->rc ? (uint64_t)p->rc->owed : 0,
                     s->stats.rc_sent };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

static void stall_check(vb_iface_t *s, vb_peer_t *p)
{
    static const char *const paths[] = { "UD", "draining UD before RC", "RC" };
    static const char *const states[] = { "none", "request sent", "reply sent", "up", "refused" };
    uint64_t sig = stall_sig(s, p);
    double limit = s->rel.peer_timeout / 3;
    if (sig != p->stall_sig || p->stall_since == 0) {
        p->stall_sig = sig;
        p->stall_since = s->now;
        p->stall_warned = 0;
        return;
    }
    if (p->stall_warned || s->closing || p->bye_rcvd || p->gone ||
        s->now - p->stall_since < limit)
        return;
    p->stall_warned = 1;
    unsigned jobs = 0, ops = 0;
    for (const vb_job_t *j = s->jobs; j; j = j->next)
        jobs += j->peer == p->ep.peer;
    for (const vb_op_t *op = p->pending; op; op = op->next)
        ops++;
    core_warn("verbs: no progress with rank %d on %s for %.0f s: path %s, RC connection %s, "
              "handshake messages to send 0x%x, %u UD packets unacknowledged (%u not sent yet), "
              "ack owed %d, %u RDMA operations waiting, %u copied transfers queued, RC credits %d "
              "(owed to it %d)", p->ep.peer, core_rank_host(s->rt, p->ep.peer),
              s->now - p->stall_since, paths[p->path < 3 ? p->path : 0],
              states[p->rc_state < 5 ? p->rc_state : 0], p->ctl, vb_rel_tx_inflight(&p->tx),
              p->nunsent, vb_rel_rx_ack_owed(&p->rx), ops, jobs, p->rc ? p->rc->credits : 0,
              p->rc ? p->rc->owed : 0);
}

static int timers(vb_iface_t *s)
{
    double now = core_wtime();
    if (now < s->next_timer)
        return 0;
    s->now = now;
    s->next_timer = now + TIMER_PERIOD;
    int ev = 0;
    core_list_t *it, *tmp;
    core_list_each_safe(it, tmp, &s->active) {
        vb_peer_t *p = core_list_elem(it, vb_peer_t, alink);
        if (p->left && !p->bye_sent && !s->closing)
            bye_answer(s, p);
        ev += vb_ud_timers(s, p);
        if (p->rc)
            vb_rc_timers(s, p);
        if (p->pending)
            vb_ops_start(s, p);
        if (peer_idle(p)) {
            core_list_unlink(&p->alink);
            p->stall_since = 0;
        } else {
            stall_check(s, p);
        }
    }
    if ((++s->timer_ticks & 63) == 0)
        async_events(s);
    return ev;
}

/* One poll of the completion queue (sends, receives, RDMA and atomics share it). */
static CORE_HOT int cq_poll(vb_iface_t *s)
{
    struct ibv_wc wc[VB_POLL_BATCH];
    int ev = 0;
    int n = ibv_poll_cq(s->cq, VB_POLL_BATCH, wc);
    if (n > 0) {
        /* Only UD's reliability needs the time of arrival: an RC message
         * is not worth a clock read (~30 instructions, ~10% of its path). */
        for (int i = 0; i < n; i++)
            if (VB_WR_KIND(wc[i].wr_id) == VB_WR_UD_RECV) {
                s->now = core_wtime();
                break;
            }
        for (int i = 0; i < n; i++)
            handle_wc(s, &wc[i]);
        /* Used receive buffers go back in batches on a pass that finds
         * nothing (below), not between a message and the reply it may
         * trigger (~100 instructions per message on rxe); here only when
         * the queue runs low. */
        if (s->ud_rq_posted < s->ud_rq / 2)
            vb_ud_post_recvs(s);
        if (s->srq && s->srq_posted < s->srq_size / 2)
            vb_rc_post_recvs(s);
        ev += n;
    } else if (n == 0) {
        if (s->ud_nrefill >= VB_POST_BATCH)
            vb_ud_post_recvs(s);
        if (s->srq_nrefill >= VB_POST_BATCH)
            vb_rc_post_recvs(s);
    } else {
        core_fatal("verbs: polling the completion queue of %s failed", s->dev.name);
    }
    return ev;
}

/* A busy wait for an RDMA or atomic completion: the completion queue alone (no rings,
 * copied transfers or timers; tp_poll_comp runs the whole progress now and then). */
static CORE_HOT int vb_poll_comp(tp_iface_t *iface)
{
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    int ev = cq_poll(s);
    vb_unlock(s, l);
    if (__builtin_expect(l, 0))
        vb_defer_run(s);
    return ev;
}

/* Under V but around the calls into the layer above (vb_dispatch, deferred completions). */
static int vb_progress(void *iface)
{
    vb_iface_t *s = vb_iface(iface);
    int l = vb_lock(s);
    int ev = s->nfp ? vb_fp_poll(s) : 0;
    ev += cq_poll(s);
    if (s->jobs)
        ev += vb_jobs_progress(s);
    /* Timers need the clock: look at it on every 8th call. */
    if ((++s->tick & 7) == 0)
        ev += timers(s);
    vb_unlock(s, l);
    if (__builtin_expect(l, 0))
        vb_defer_run(s);
    return ev;
}

/* ---- sleeping ---- */

/* Takes the completion events that woke us (or came while awake) off the
 * channel: each must be acknowledged before the CQ can be destroyed. */
static void chan_drain(vb_iface_t *s)
{
    struct ibv_cq *cq;
    void *ctx;
    unsigned n = 0;
    while (ibv_get_cq_event(s->chan, &cq, &ctx) == 0)
        n++;
    if (n)
        ibv_ack_cq_events(s->cq, n);
}

/* Asks for an event at the next completion, then polls once more: what
 * completed before the request would raise no event. Peers with timers
 * (UD acks and resends, credits to return) shorten the sleep. */
static int vb_arm(tp_iface_t *iface, tp_arm_t *a)
{
    vb_iface_t *s = vb_iface(iface);
    /* Fast-path rings (verbs_fp.c) written without immediate raise no event: a rank that
     * offered one (it did not expect to sleep) cannot sleep. */
    if (s->nfp_silent > 0)
        return CORE_EUNSUPPORTED;
    chan_drain(s);
    int l = vb_lock(s);
    int busy = s->jobs || s->hold.full;
    if (!busy && !core_list_empty(&s->active)) {
        double t = s->next_timer - core_wtime();
        if (t < a->max_sleep)
            a->max_sleep = t > 0 ? t : 0;
    }
    vb_unlock(s, l);
    if (busy)
        return CORE_EBUSY;
    if (ibv_req_notify_cq(s->cq, 0) != 0 || vb_progress(iface) > 0)
        return CORE_EBUSY;
    a->fd = s->chan->fd;
    return 0;
}

/* ---- open and close ---- */

static void set_caps(vb_iface_t *s)
{
    tp_caps_t *c = &s->base.caps;
    c->max_am_hdr = VB_MAX_AM_HDR;
    c->eager_limit = s->eager;
    c->max_rkey = sizeof(vb_rkey_t);
    if (s->mode == VB_MODE_UD) {
        /* At most VB_UD_MAX_PKTS packets: a lost packet then leaves no more
         * behind it than the out-of-order store can usually hold. And whole
         * packets: the pipelined rendezvous sends chunks of max_am, and
         * 64 KiB at a 4 KiB MTU would take 16 full packets and a 17th of
         * 144 bytes (6% more packets for the same data). */
        size_t seg = (size_t)vb_mtu_bytes(s->mtu) - sizeof(vb_ud_hdr_t);
        size_t pkts = (VB_UD_MAX_AM + VB_MAX_AM_HDR) / seg;
        if (pkts > VB_UD_MAX_PKTS)
            pkts = VB_UD_MAX_PKTS;
        c->max_am = pkts * seg - VB_MAX_AM_HDR;
        if (c->eager_limit > c->max_am)
            c->eager_limit = c->max_am;
        c->max_inline = s->ud_inline > sizeof(vb_ud_hdr_t) ? s->ud_inline - sizeof(vb_ud_hdr_t) : 0;
        c->flags = s->ud_zc ? TP_CAP_AM_ZC : 0;
    } else {
        c->max_am = c->eager_limit;
        c->max_inline = s->rc_inline > sizeof(vb_rc_hdr_t) ? s->rc_inline - sizeof(vb_rc_hdr_t) : 0;
        c->flags = TP_CAP_GET | TP_CAP_PUT;
        /* an inline RDMA write carries its data in the work request (vb_rc_post_op): the
         * device needs no local key; the copy path (no connection) needs none either */
        c->put_inline = s->rc_inline;
        /* RC QPs with responder resources for atomics, on memory registered for them */
        if (vb_reg_access(s) & IBV_ACCESS_REMOTE_ATOMIC)
            c->flags |= TP_CAP_ATOMIC;
    }
    if (s->chan)
        c->flags |= TP_CAP_WAIT;
    /* every operation runs under V (vb_ops): an eager send may come from outside G */
    c->flags |= TP_CAP_THREADS;
}

static void check_memlock(vb_iface_t *s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (64u << 20))
        core_warn("verbs: the locked-memory limit is %llu KiB: RDMA registration may fail "
                  "(raise ulimit -l)", (unsigned long long)rl.rlim_cur / 1024);
}

/* The UD Q_Key from the job key: a UD QP of another job (or a process
 * outside any job) on the fabric cannot guess it, so its datagrams are
 * dropped by our QP's hardware. */
static uint32_t job_qkey(const uint8_t job_key[CORE_KEY_LEN])
{
    uint8_t d[16];
    core_kdf(job_key, "rdmpi ud qkey", d, sizeof(d));
    uint32_t q = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
                 (uint32_t)d[3] << 24;
    return (q & 0x7fffffffu) | 1u; /* high bit clear: not a controlled (privileged) Q_Key */
}

static int publish_card(vb_iface_t *s)
{
    vb_card_t c;
    memset(&c, 0, sizeof(c));
    c.version = 1;
    c.link_layer = s->dev.pattr.link_layer;
    c.port = s->dev.port;
    c.mtu = (uint8_t)s->mtu;
    c.lid = s->dev.pattr.lid;
    c.qpn = s->ud->qp_num;
    memcpy(c.gid, s->dev.gid.raw, 16);
    return core_boot_put(s->rt, VB_CARD_KEY, &c, sizeof(c), 0);
}

static int vb_open(core_runtime_t *rt, tp_iface_t **iface_p)
{
    /* Alone without a launcher there is no peer; a job of one rank under one has its
     * other jobs' processes (opened for them: tp_layer_open_dynamic, or spawned). */
    if (rt->size < 2 && !rt->pmix_up)
        return CORE_EUNSUPPORTED;
    vb_iface_t *s = calloc(1, sizeof(*s));
    if (!s)
        return CORE_ENOMEM;
    pthread_mutex_init(&s->lock, NULL);
    const vb_config_t *cfg = core_config_add(&rt->cfg, &tp_verbs_config_group);
    if (!cfg) {
        free(s);
        return CORE_ENOMEM;
    }
    s->base.ops = &vb_ops;
    s->base.name = "verbs";
    s->base.rt = rt;
    s->base.other_jobs = 1; /* one interface serves our ranks and other jobs' processes alike
                             * (a second one would publish a second card over the first) */
    s->rt = rt;
    s->cfg = cfg;
    s->mode = cfg->verbs_mode;
    s->me = rt->rank;
    s->size = rt->size;
    s->npeers = rt->proc_cap > rt->size ? rt->proc_cap : rt->size;
    s->uid = (uint32_t)(rt->uid_base + rt->rank);
    s->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)rt->rank << 32) ^ (uint64_t)getpid();
    s->drop = cfg->verbs_ud_drop;
    s->qkey = job_qkey(rt->job_key);
    core_list_init(&s->active);
    core_list_init(&s->memhs);
    int rc = vb_dev_open(cfg, &s->dev, 0);
    if (rc) {
        free(s);
        return CORE_EUNSUPPORTED;
    }
    check_memlock(s);
    int flags = fcntl(s->dev.ctx->async_fd, F_GETFL);
    fcntl(s->dev.ctx->async_fd, F_SETFL, flags | O_NONBLOCK);

    s->mtu = s->dev.pattr.active_mtu;
    if (cfg->verbs_mtu && vb_mtu_enum(cfg->verbs_mtu) < s->mtu)
        s->mtu = vb_mtu_enum(cfg->verbs_mtu);
    s->eager = cfg->verbs_eager_limit;
    if (s->eager > VB_UD_MAX_AM || s->eager < 64) {
        s->eager = s->eager < 64 ? 64 : VB_UD_MAX_AM;
        core_warn("verbs: RDMPI_VERBS_EAGER_LIMIT=%zu is out of range; using %zu",
                  cfg->verbs_eager_limit, s->eager);
    }
    s->max_msg = s->dev.pattr.max_msg_sz ? s->dev.pattr.max_msg_sz : (1u << 30);
    if (s->max_msg > (1u << 30))
        s->max_msg = 1u << 30;
    /* The window must hold the largest message cut into the smallest packets. */
    unsigned need = (unsigned)((VB_MAX_AM_HDR + (s->mode == VB_MODE_UD ? VB_UD_MAX_AM
                                                  : s->eager) + 239) / 240) + 1;
    s->rel.window = cfg->verbs_ud_window > 1 ? (unsigned)cfg->verbs_ud_window : 2;
    if (s->rel.window < need)
        s->rel.window = need;
    if (s->rel.window > 16384)
        s->rel.window = 16384;
    /* The sender asks for an ack once half its window is out; the receiver's own count
     * only stands in when that request is lost. */
    s->rel.ack_every = s->rel.window / 2;
    s->rel.ack_delay = cfg->verbs_ud_rto / 10;
    s->rel.rto_min = cfg->verbs_ud_rto > 0 ? cfg->verbs_ud_rto : 0.01;
    s->rel.ack_max = s->rel.rto_min / 2; /* below the sender's smallest timeout */
    s->rel.rto_init = 5 * s->rel.rto_min;
    s->rel.rto_max = s->rel.rto_min > 1.0 ? s->rel.rto_min : 1.0;
    s->rel.peer_timeout = cfg->verbs_peer_timeout > 0 ? cfg->verbs_peer_timeout : 30;

    s->peers = calloc((size_t)s->npeers, sizeof(*s->peers));
    s->pd = ibv_alloc_pd(s->dev.ctx);
    if (!s->peers || !s->pd) {
        core_error("verbs: cannot allocate a protection domain on %s", s->dev.name);
        rc = CORE_ENOMEM;
        goto err_close;
    }
    const char *why;
    s->rcache = vb_rcache_create(s->pd, vb_reg_access(s), cfg, &why);
    if (!s->rcache)
        core_info("verbs: registration cache off: %s; registering per message", why);
    /* One CQ for every queue: UD send + receive, the SRQ, and the RC send
     * queues, whose number the CQ's size then bounds. */
    int want = VB_UD_SQ + cfg->verbs_rq_size * 2 + 64;
    int per_rc = VB_RC_SQ;
    /* rc mode: one per rank, and a few for processes of other jobs (more stay on UD) */
    int most = s->size + VB_RC_OTHER_JOBS;
    int nrc = s->mode == VB_MODE_RC ? most : s->mode == VB_MODE_HYBRID ? cfg->verbs_max_rc : 0;
    if (nrc > most)
        nrc = most;
    s->cq_size = want + nrc * per_rc;
    if (s->cq_size > s->dev.attr.max_cqe)
        s->cq_size = s->dev.attr.max_cqe;
    s->max_rc = (s->cq_size - want) / per_rc;
    if (s->max_rc > nrc)
        s->max_rc = nrc;
    if (s->max_rc < 0)
        s->max_rc = 0;
    s->rc_msgs = s->mode == VB_MODE_RC ? 1 : cfg->verbs_rc_msgs > 0 ? cfg->verbs_rc_msgs : 1;
    s->chan = ibv_create_comp_channel(s->dev.ctx);
    if (s->chan) {
        flags = fcntl(s->chan->fd, F_GETFL);
        fcntl(s->chan->fd, F_SETFL, flags | O_NONBLOCK);
    } else {
        core_debug("verbs: no completion channel on %s (%s): ranks poll while they wait",
                   s->dev.name, strerror(errno));
    }
    s->cq = ibv_create_cq(s->dev.ctx, s->cq_size, NULL, s->chan, 0);
    if (!s->cq) {
        core_error("verbs: cannot create a completion queue of %d entries on %s: %s",
                   s->cq_size, s->dev.name, strerror(errno));
        rc = CORE_EIO;
        goto err_close;
    }
    if ((rc = vb_ud_open(s)) != 0)
        goto err_close;
    if (s->mode != VB_MODE_UD && vb_rc_open(s) != 0) {
        core_warn("verbs: RC queue pairs unusable on %s: every peer stays on UD", s->dev.name);
        vb_rc_close(s);
        s->mode = VB_MODE_UD;
    }
    if ((rc = vb_fp_open(s)) != 0)
        goto err_close;
    set_caps(s);
    if ((rc = publish_card(s)) != 0)
        goto err_close;
    core_info("verbs: %s port %u (%s), GID index %d, UD MTU %d, mode %s, RC up to %d peers, "
              "inline %u (UD %u)", s->dev.name, s->dev.port,
              s->dev.pattr.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "RoCE",
              s->dev.gid_index, vb_mtu_bytes(s->mtu),
              s->mode == VB_MODE_UD ? "ud" : s->mode == VB_MODE_RC ? "rc" : "hybrid",
              s->max_rc, s->rc_inline, s->ud_inline);
    *iface_p = &s->base;
    return 0;

err_close:
    vb_close(&s->base);
    return rc;
}

static int vb_ready(tp_iface_t *iface)
{
    (void)iface; /* peers' cards are read when first needed */
    return 0;
}

static int vb_reachable(tp_iface_t *iface, int peer)
{
    vb_iface_t *s = vb_iface(iface);
    /* A process of another job: inside G only, and not under V, since looking for its card
     * may leave G (core_boot_get waits for it): a thread holding V there would keep the
     * progress that G's next holder runs waiting for V while it waits for G. */
    if (peer >= s->size)
        return peer_find(s, peer, 1) != NULL;
    /* a rank of ours: under V, from inside G or a thread outside it (create_outside) */
    int l = vb_lock(s);
    int ok = peer_find(s, peer, 1) != NULL;
    vb_unlock(s, l);
    return ok;
}

/* Peers who must hear our BYE: those that exchanged anything with us, and every process of
 * another job we know (know_other_jobs), which may wait for us without ever having sent
 * anything (a receive it posted for us fails on our goodbye); not one that said goodbye
 * first (left: it heard our answer). */
static int talked(const vb_iface_t *s, const vb_peer_t *p)
{
    return p && !p->gone && !p->left &&
           (p->tx.next != 0 || p->rx.expected != 0 || p->rc || vb_other_job(s, p));
}

/* Peers for every process of another job of our launcher added so far, which has a card
 * (it opened verbs): so that each hears our goodbye. */
static void know_other_jobs(vb_iface_t *s)
{
    for (int i = s->size; i < vb_npeers_now(s); i++)
        if (!s->peers[i])
            (void)vb_peer_get(s, i); /* NULL: no verbs there, or of another run */
}

/* Drives progress until done(s) or the deadline; returns done's last value. */
static int close_wait(vb_iface_t *s, int (*done)(vb_iface_t *), double deadline)
{
    int ok;
    while (!(ok = done(s)) && core_wtime() < deadline)
        vb_progress(&s->base);
    return ok;
}

static int rc_flushed(vb_iface_t *s)
{
    for (int i = 0; i < vb_npeers_now(s); i++) {
        vb_peer_t *p = s->peers[i];
        if (p && p->rc && p->rc_state == VB_RC_UP && !p->gone && p->rc->sq.head != p->rc->sq.tail)
            return 0;
    }
    return 1;
}

static int byes_sent(vb_iface_t *s)
{
    int all = 1;
    for (int i = 0; i < vb_npeers_now(s); i++) {
        vb_peer_t *p = s->peers[i];
        if (!talked(s, p) || p->bye_sent)
            continue;
        if (vb_ud_send(s, p, VB_AM_BYE, NULL, 0, NULL, 0) == 0)
            p->bye_sent = 1;
        else
            all = 0;
    }
    return all;
}

static int byes_done(vb_iface_t *s)
{
    for (int i = 0; i < vb_npeers_now(s); i++) {
        vb_peer_t *p = s->peers[i];
        if (talked(s, p) && (!p->bye_rcvd || p->unacked))
            return 0;
    }
    return 1;
}

/* A peer's messages must all have arrived before its queue pair goes away,
 * and ours at it: flush RC, tell everyone BYE over UD (after all our data),
 * wait for their BYE and for ours to be acknowledged, linger briefly to
 * answer a resend whose ack was lost, then tear down. */
static void close_peers(vb_iface_t *s)
{
    double limit = s->rel.peer_timeout < 10 ? s->rel.peer_timeout : 10;
    double deadline = core_wtime() + limit;
    know_other_jobs(s);
    s->closing = 1;
    for (int i = 0; i < vb_npeers_now(s); i++) {
        vb_peer_t *p = s->peers[i];
        if (p && p->rc && p->rc_state == VB_RC_UP)
            vb_rc_flush(s, p);
    }
    if (!close_wait(s, rc_flushed, deadline))
        core_debug("verbs: RC send queues not drained at close");
    if (!close_wait(s, byes_sent, deadline) || !close_wait(s, byes_done, deadline))
        core_debug("verbs: not every peer said goodbye at close");
    double linger = core_wtime() + LINGER;
    while (core_wtime() < linger)
        vb_progress(&s->base);
}

static void vb_close(tp_iface_t *iface)
{
    vb_iface_t *s = vb_iface(iface);
    if (s->ud && s->peers)
        close_peers(s);
    core_debug("verbs: UD packets sent %llu (%llu zero copy), resent %llu, standalone acks %llu (%llu when "
               "their delay ran out), dropped on purpose %llu, duplicates %llu, held out of "
               "order %llu; RC sends %llu (%llu inline), RDMA-written messages %llu, RDMA %llu",
               (unsigned long long)s->stats.ud_sent, (unsigned long long)s->stats.ud_zc,
               (unsigned long long)s->stats.ud_resent,
               (unsigned long long)s->stats.ud_acks, (unsigned long long)s->stats.ud_acks_late,
               (unsigned long long)s->stats.ud_dropped, (unsigned long long)s->stats.ud_dups,
               (unsigned long long)s->stats.ud_ahead, (unsigned long long)s->stats.rc_sent,
               (unsigned long long)s->stats.rc_inline, (unsigned long long)s->stats.fp_sent,
               (unsigned long long)s->stats.rdma);
    for (int i = 0; s->peers && i < s->npeers; i++) {
        vb_peer_t *p = s->peers[i];
        if (!p)
            continue;
        vb_rc_peer_fini(s, p);
        vb_ud_peer_fini(s, p);
        free(p);
    }
    vb_mem_close(s);
    vb_fp_close(s);
    vb_rc_close(s);
    vb_ud_close(s);
    if (s->cq) {
        if (s->chan)
            chan_drain(s);
        ibv_destroy_cq(s->cq);
    }
    if (s->chan)
        ibv_destroy_comp_channel(s->chan);
    if (s->pd)
        ibv_dealloc_pd(s->pd);
    vb_dev_close(&s->dev);
    free(s->peers);
    free(s->defer);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const tp_component_t tp_verbs_component = {
    .name = "verbs",
    .open = vb_open,
    .ready = vb_ready,
    .reachable = vb_reachable,
    .other_jobs = 1,
    .create_outside = 1, /* under V (vb_reachable, vb_ep_create) */
};
