/*
 * The shm transport: active messages between ranks of one node through the
 * rings of the node's segment (shm_seg.c), and single-copy get/put through
 * CMA (shm_cma.c).
 *
 * Lifecycle: open() (before the bootstrap fence) creates the segment on
 * local rank 0 and publishes its name; ready() (after the fence) maps it on
 * the other ranks, sets up the incoming rings and probes CMA. An endpoint is
 * the producer side of the my->peer ring; progress() drains the peer->me
 * rings, handing records to the handlers in place.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "transports/shm/shm.h"
#include "transports/shm/shm_bell.h"

#define SHM_KEY_SEG "rdmpi.shm.seg"

/* What local rank 0 publishes (node-local) about the segment: the others
 * open that name and map it only if it has that size. */
typedef struct seg_card {
    uint64_t len;
    char name[sizeof(((tp_shm_seg_t *)0)->name)]; /* NUL-terminated; only the string is sent */
} seg_card_t;
#define SHM_PROGRESS_BATCH 32 /* records per ring per progress call */

static void shm_close(tp_iface_t *iface);
static int shm_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p);
static void shm_ep_destroy(tp_ep_t *ep);
static int shm_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len);
static int shm_progress(void *iface);
static int shm_progress_outside(void *iface);
static int shm_unread(void *iface);
static int shm_flush(tp_ep_t *ep);
static size_t shm_backlog(tp_ep_t *ep);
static int shm_arm(tp_iface_t *iface, tp_arm_t *a);

static const tp_ops_t shm_ops = {
    .close = shm_close,
    .ep_create = shm_ep_create,
    .ep_destroy = shm_ep_destroy,
    .am_send = shm_am_send,
    .mem_reg = tp_shm_mem_reg,
    .mem_dereg = tp_shm_mem_dereg,
    .rkey_pack = tp_shm_rkey_pack,
    .get = tp_shm_get,
    .put = tp_shm_put,
    .progress = shm_progress,
    .progress_outside = shm_progress_outside,
    .unread = shm_unread,
    .flush = shm_flush,
    .backlog = shm_backlog,
    .arm = shm_arm,
    /* no drain: nothing is owed at finalize (see below) */
};

/* Limits follow the ring size, which only rank 0 decides; they are set at
 * open from the local choice and again at ready from the segment. A quarter
 * of a ring per message keeps several large messages in flight. */
static void set_limits(tp_shm_iface_t *s)
{
    tp_caps_t *caps = &s->base.caps;
    size_t max_am = s->ring_size / 4 - TP_SHM_RING_REC_HDR - TP_SHM_MAX_AM_HDR;
    caps->max_am_hdr = TP_SHM_MAX_AM_HDR;
    caps->max_am = max_am;
    caps->max_inline = 256;
    caps->eager_limit = tp_shm_eager_limit(s->cfg, (caps->flags & TP_CAP_GET) != 0, s->ring_size, max_am);
    caps->eager_idle_limit =
        tp_shm_eager_idle_limit(s->cfg, (caps->flags & TP_CAP_GET) != 0, s->ring_size, max_am);
    caps->max_rkey = sizeof(int32_t);
    /* the producer side of a ring is the endpoint's alone (shm_am_send): S(peer) covers it;
     * the consumer side is the engine's, P (shm_progress_outside) */
    caps->flags |= TP_CAP_WAIT | TP_CAP_THREADS | TP_CAP_POLL_OUTSIDE;
}

static int local_index(tp_shm_iface_t *s, int world_rank)
{
    for (int i = 0; i < s->nlocal; i++)
        if (s->rt->local_ranks[i] == world_rank)
            return i;
    return -1;
}

static int shm_open_iface(core_runtime_t *rt, tp_iface_t **iface_p)
{
    if (rt->local_size < 2)
        return CORE_EUNSUPPORTED;
    tp_shm_iface_t *s = calloc(1, sizeof(*s));
    if (!s)
        return CORE_ENOMEM;
    s->base.ops = &shm_ops;
    s->base.name = "shm";
    s->base.rt = rt;
    s->rt = rt;
    if (!(s->cfg = core_config_add(&rt->cfg, &tp_shm_config_group))) {
        free(s);
        return CORE_ENOMEM;
    }
    s->me = rt->local_rank;
    s->nlocal = rt->local_size;
    s->nsender_words = (s->nlocal + 63) / 64;
    s->ring_size = tp_shm_ring_size_pick(rt, s->cfg);
    s->eps = calloc((size_t)s->nlocal, sizeof(*s->eps));
    s->in = calloc((size_t)s->nlocal, sizeof(*s->in));
    s->out = calloc((size_t)s->nlocal, sizeof(*s->out));
    int rc = CORE_ENOMEM;
    if (!s->eps || !s->in || !s->out)
        goto err_free;

    if (s->me == 0) {
        rc = tp_shm_seg_create(s, s->ring_size);
        if (rc)
            goto err_free;
        seg_card_t card = {.len = s->seg.len};
        memcpy(card.name, s->seg.name, sizeof(card.name));
        rc = core_boot_put(rt, SHM_KEY_SEG, &card,
                           offsetof(seg_card_t, name) + strlen(card.name) + 1, 1);
        if (rc)
            goto err_destroy;
    }
    tp_shm_cma_open(s);
    set_limits(s);
    *iface_p = &s->base;
    return 0;

err_destroy:
    tp_shm_seg_destroy(s);
err_free:
    free(s->in);
    free(s->out);
    free(s->eps);
    free(s);
    return rc;
}

/* Finds the segment local rank 0 published and its size; a rank 0 that
 * failed to make one has said why, so the others bow out quietly. */
static int find_segment(tp_shm_iface_t *s, size_t *expect)
{
    void *val;
    size_t len;
    int rc = core_boot_get(s->rt, s->rt->local_ranks[0], SHM_KEY_SEG, &val, &len);
    if (rc == CORE_ENOTFOUND) {
        core_info("shm: local rank 0 published no segment: shared memory not used");
        return CORE_EUNSUPPORTED;
    }
    if (rc)
        return rc;
    size_t off = offsetof(seg_card_t, name);
    if (len <= off || len - off > sizeof(s->seg.name) || ((char *)val)[len - 1] != '\0' ||
        strlen((char *)val + off) != len - off - 1) {
        core_error("shm: malformed segment name from local rank 0");
        free(val);
        return CORE_EINTERN;
    }
    uint64_t seg_len;
    memcpy(&seg_len, val, sizeof(seg_len));
    memcpy(s->seg.name, (char *)val + off, len - off);
    free(val);
    *expect = seg_len > SIZE_MAX ? 0 : (size_t)seg_len;
    return 0;
}

static int shm_ready(tp_iface_t *iface)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int rc;
    if (!s->seg.base) {
        size_t expect = 0;
        if ((rc = find_segment(s, &expect)) != 0 || (rc = tp_shm_seg_attach(s, expect)) != 0)
            return rc;
    }
    /* The ring size comes from the segment local rank 0 wrote: checked here too. At least
     * the floor (what rank 0 picks): set_limits' max_am is then positive and a record of
     * it fits, which shm_am_send counts on (tp_shm_ring_push_fit). */
    tp_shm_cons_t probe;
    if (s->ring_size < TP_SHM_RING_FLOOR ||
        tp_shm_cons_init(&probe, tp_shm_seg_ring(s, s->me, s->me), s->ring_size) != 0) {
        core_error("shm: the segment's ring size %zu is not a power of two of at least %u",
                   s->ring_size, TP_SHM_RING_FLOOR);
        return CORE_EINTERN;
    }
    s->nin = 0;
    s->senders = tp_shm_seg_senders(s, s->me, s->nsender_words);
    s->senders_seen = calloc((size_t)s->nsender_words, sizeof(uint64_t));
    if (!s->senders || !s->senders_seen) {
        core_error("shm: %d local ranks: %s", s->nlocal,
                   s->senders ? "out of memory" : "too many for the segment's senders bitmap");
        return s->senders ? CORE_ENOMEM : CORE_EUNSUPPORTED;
    }
    s->sleepers = &((tp_shm_seg_hdr_t *)s->seg.base)->sleepers;
    s->bell = tp_shm_seg_bell(s, s->me);
    tp_shm_bell_clear(s->bell);
    /* Rings without a fence (shm_bell.h) unless the node is oversubscribed: there ranks go
     * to sleep often, and every sleep would cost a membarrier (IPIs to the busy cores, ~25
     * us under load), while the message rate is the scheduler's anyway. Announced in the
     * segment (seq_cst, before any record of ours) for the sleepers. */
    if (!s->cfg->shm_bell_fence && !s->rt->oversubscribed && tp_shm_bell_light_init() == 0) {
        atomic_store_explicit(&((tp_shm_seg_hdr_t *)s->seg.base)->light, 1,
                              memory_order_seq_cst);
        s->light = 1;
    }
    tp_shm_cma_probe(s);
    set_limits(s); /* after the probe: the eager limit depends on single copy */
    return 0;
}

static int shm_reachable(tp_iface_t *iface, int peer)
{
    if (iface->ops == &tp_shm_bridge_ops)
        return tp_shm_bridge_reachable(iface, peer);
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int i = local_index(s, peer);
    return i >= 0 && i != s->me;
}

static void shm_close(tp_iface_t *iface)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    tp_shm_seg_destroy(s);
    free(s->senders_seen);
    free(s->pids);
    free(s->coop);
    free(s->in);
    free(s->out);
    free(s->eps);
    free(s);
}

/* Endpoints live in the interface (one per local peer) and are set up on
 * first use, so only the rings actually used get touched: the producer sets
 * its bit in the peer's senders bitmap before its first record, and the peer
 * reads only the rings of the bits it has seen (new_senders). A bogus bit
 * (the segment is writable by every local rank) only costs the peer a look
 * at an empty ring. */
static int shm_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int lp = local_index(s, peer);
    if (lp < 0 || lp == s->me || !s->seg.base)
        return CORE_EPEER;
    tp_shm_ep_t *ep = &s->eps[lp];
    /* local rank 0: before ready. Written once: under MULTIPLE a thread outside G reads it
     * in shm_am_send while the thread in G creates the endpoint of another peer (TSan). */
    if (!s->sleepers)
        s->sleepers = &((tp_shm_seg_hdr_t *)s->seg.base)->sleepers;
    if (!ep->ready) {
        void *ring = tp_shm_seg_ring(s, s->me, lp);
        int rc = tp_shm_prod_init(&ep->prod, ring, s->ring_size);
        if (rc)
            return rc;
        /* Not tp_shm_prod_keep(&ep->prod, TP_SHM_RING_KEEP): keeping to the first page while
         * the consumer keeps up made the 2-rank collectives' 1 KiB cells cheaper, but halved
         * osu_bw at 1-2 KiB (2.5 against 5.1 GB/s; with a 64 KiB part too, and with the
         * part grown on every full ring or for large records): early wraps in a window of
         * messages cost more than the first lap's faults. Off until that is understood. */
        _Atomic uint64_t *bits = tp_shm_seg_senders(s, lp, s->nsender_words);
        if (!bits)
            return CORE_EPEER;
        atomic_fetch_or_explicit(&bits[s->me / 64], 1ull << (s->me % 64), memory_order_release);
        tp_shm_fill_init(&ep->fill, s->ring_size);
        ep->base.iface = iface;
        ep->base.peer = peer;
        ep->lpeer = lp;
        ep->bell = tp_shm_seg_bell(s, lp);
        ep->ready = 1;
        int n = atomic_load_explicit(&s->nout, memory_order_relaxed);
        s->out[n] = lp;
        atomic_store_explicit(&s->nout, n + 1, memory_order_release);
    }
    *ep_p = &ep->base;
    return 0;
}

static void shm_ep_destroy(tp_ep_t *ep)
{
    (void)ep; /* owned by the interface; the ring state must survive for flush */
}

/* Copies the message into the my->peer ring: 0 means the buffers are free
 * again. Safe from inside a handler: it touches only the producer state of
 * an outgoing ring, never the incoming ring progress is draining. */
static int shm_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len)
{
    tp_shm_ep_t *e = (tp_shm_ep_t *)ep;
    const tp_caps_t *caps = &ep->iface->caps;
    if (id >= TP_AM_MAX || hdr_len > caps->max_am_hdr || len > caps->max_am)
        return CORE_EINVAL;
    /* the limits above keep the record within the ring's (set_limits) */
    int rc = tp_shm_ring_push_fit(&e->prod, id, hdr, hdr_len, payload, len);
    atomic_store_explicit(&e->pushed, e->prod.head, memory_order_relaxed);
    uint64_t off = e->prod.head & e->prod.mask;
    if (off > e->fill.at) /* once (tp_shm_fill_init says when) */
        tp_shm_seg_fill(tp_shm_iface(ep->iface), e->prod.ring, &e->fill);
    /* Until some rank of the node has slept, no fence and no look at the bell: the first
     * sleeper sets the flag before it arms its bell, so at worst a record pushed at that
     * very moment waits for the end of its bounded sleep, once per job. */
    tp_shm_iface_t *s = tp_shm_iface(ep->iface);
    if (rc == 0 && atomic_load_explicit(s->sleepers, memory_order_relaxed)) {
        if (s->light)
            tp_shm_bell_ring_light(e->bell);
        else
            tp_shm_bell_ring(e->bell);
    }
    return rc;
}

/* A local peer broke the ring protocol: its ring is read no more (whatever it writes
 * there is ignored) and the failure is reported once. */
static void in_failed(tp_shm_iface_t *s, tp_shm_in_t *in, unsigned id, int rc, uint64_t bad)
{
    char why[128];
    in->failed = 1;
    if (rc == CORE_EPROTO && id == TP_AM_MAX) {
        snprintf(why, sizeof(why), "record header 0x%016llx at offset %llu of its %zu-byte ring",
                 (unsigned long long)bad, (unsigned long long)(in->cons.tail & in->cons.mask),
                 s->ring_size);
        core_wire_fail(s->rt, in->src, "shm", "ring record", why);
    } else if (id == TP_SHM_ID_COOP) {
        core_wire_fail(s->rt, in->src, "shm", "copy request", NULL);
    } else {
        tp_am_refused(&s->base, in->src, id, rc);
    }
}

/* Adds the rings of the local ranks that started writing to us since the last look. The
 * bitmap is one load per 64 local ranks while nothing changes. */
static void __attribute__((noinline)) new_senders(tp_shm_iface_t *s)
{
    for (int w = 0; s->senders && w < s->nsender_words; w++) {
        uint64_t bits = atomic_load_explicit(&s->senders[w], memory_order_acquire);
        uint64_t fresh = bits & ~s->senders_seen[w];
        if (!fresh)
            continue;
        s->senders_seen[w] = bits;
        for (; fresh; fresh &= fresh - 1) {
            int lsrc = w * 64 + __builtin_ctzll(fresh);
            if (lsrc >= s->nlocal || lsrc == s->me || s->nin >= s->nlocal)
                continue;
            tp_shm_in_t *in = &s->in[s->nin];
            if (tp_shm_cons_init(&in->cons, tp_shm_seg_ring(s, lsrc, s->me), s->ring_size))
                continue; /* the size was checked at ready */
            in->src = s->rt->local_ranks[lsrc];
            in->lsrc = lsrc;
            tp_shm_fill_init(&in->fill, s->ring_size);
            in->failed = 0;
            s->nin++;
        }
    }
}

/* Drains up to a batch from every incoming ring in use. An idle ring costs
 * one load of the header slot at its consumer index. */
/* Whether the first word of the senders bitmap changed (every rank of a node of up to 64,
 * which is all of them in most jobs, is there): the idle poll of a blocked call runs this. */
CORE_INLINE int senders_changed(const tp_shm_iface_t *s)
{
    return s->nsender_words > 1 ||
           atomic_load_explicit(&s->senders[0], memory_order_relaxed) != s->senders_seen[0];
}

/* Whether an incoming ring has a record to read (and is not failed); maps the ring whole
 * the first time its consumer passes the first page (tp_shm_seg_fill). */
static inline int in_ready(tp_shm_iface_t *s, tp_shm_in_t *in)
{
    if (tp_shm_ring_empty(&in->cons) || in->failed)
        return 0;
    uint64_t off = in->cons.tail & in->cons.mask;
    if (off > in->fill.at) /* once (tp_shm_fill_init says when) */
        tp_shm_seg_fill(s, tp_shm_seg_ring(s, in->lsrc, s->me), &in->fill);
    return 1;
}

/* A pass of the engine P outside G (MULTIPLE, core_wait_req_outside): the incoming rings
 * only, and only the records whose handler may run there (tp_am_outside_ok: p2p's eager
 * messages); the first other record (a cooperative copy's request, a rendezvous, RMA ...)
 * stays at its ring's tail for a pass inside G, and the pass ends (its waiter then enters G).
 * Nothing of the cooperative copies nor of the batched reads (getq) is touched: a thread
 * inside G starts those without P (a rendezvous' get from an MPI_Irecv), so they are G's
 * and move in passes that hold it. The senders bitmap and the rings' consumer ends are P's. */
static int shm_progress_outside(void *iface)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int events = 0;
    if (s->senders && senders_changed(s))
        new_senders(s);
    for (int i = 0; i < s->nin; i++) {
        tp_shm_in_t *in = &s->in[i];
        if (!in_ready(s, in))
            continue;
        tp_shm_rec_t rec;
        uint64_t bad = 0;
        int rc;
        for (int k = 0;
             k < SHM_PROGRESS_BATCH && (rc = tp_shm_ring_peek(&in->cons, &rec, &bad)) != 0; k++) {
            if (rc < 0) {
                in_failed(s, in, TP_AM_MAX, rc, bad);
                break;
            }
            if (rec.id == TP_SHM_ID_COOP) {
                core_cs_pass_defer();
                return events;
            }
            if (!tp_am_outside_ok(s->base.am, rec.id))
                return events;
            rc = tp_am_dispatch(s->base.am, rec.id, in->src, rec.hdr, rec.hdr_len, rec.payload,
                                rec.len);
            if (rc == CORE_EBUSY && core_cs_pass_deferring())
                return events; /* its handler left it for a pass inside G */
            if (rc) {
                in_failed(s, in, rec.id, rc, 0);
                break;
            }
            tp_shm_ring_release(&in->cons);
            events++;
        }
    }
    return events;
}

static int shm_progress(void *iface)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int events = s->coop_pending ? tp_shm_coop_progress(s) : 0;
    if (s->senders && senders_changed(s))
        new_senders(s);
    for (int i = 0; i < s->nin; i++) {
        tp_shm_in_t *in = &s->in[i];
        if (!in_ready(s, in))
            continue;
        tp_shm_rec_t rec;
        uint64_t bad = 0;
        int rc;
        s->getq.on = 1;
        for (int k = 0;
             k < SHM_PROGRESS_BATCH && (rc = tp_shm_ring_peek(&in->cons, &rec, &bad)) != 0; k++) {
            if (rc < 0) {
                in_failed(s, in, TP_AM_MAX, rc, bad);
                break;
            }
            if (rec.id == TP_SHM_ID_COOP)
                rc = tp_shm_coop_help(s, in->lsrc, rec.hdr, rec.hdr_len);
            else
                rc = tp_am_dispatch(s->base.am, rec.id, in->src, rec.hdr, rec.hdr_len, rec.payload,
                                    rec.len);
            if (rc) {
                in_failed(s, in, rec.id, rc, 0);
                break;
            }
            tp_shm_ring_release(&in->cons);
            events++;
        }
        s->getq.on = 0; /* the completions may start more reads: those go at once */
        if (s->getq.n)
            tp_shm_getq_flush(s);
    }
    return events;
}

/* Rings our doorbell for the peers (shm_bell.h), then looks at every incoming ring once
 * more: a record published before the bell was visible is seen here, any later one rings. A
 * cooperative copy under way needs polling: no sleep then. */
static int shm_arm(tp_iface_t *iface, tp_arm_t *a)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    if (s->coop_pending || !s->bell)
        return CORE_EBUSY;
    if (!atomic_load_explicit(s->sleepers, memory_order_relaxed))
        atomic_store_explicit(s->sleepers, 1, memory_order_seq_cst);
    tp_shm_bell_arm(s->bell);
    /* after the arm's fence: a sender that set the flag later still fenced before its
     * records (shm_bell.h); a failed membarrier leaves such senders unfenced: no sleep */
    if (atomic_load_explicit(&((tp_shm_seg_hdr_t *)s->seg.base)->light, memory_order_relaxed) &&
        tp_shm_bell_light_sleep() != 0) {
        tp_shm_bell_clear(s->bell);
        return CORE_EBUSY;
    }
    new_senders(s); /* a sender sets its bit before its record, and rings after it */
    for (int i = 0; i < s->nin; i++)
        if (!s->in[i].failed && !tp_shm_ring_empty(&s->in[i].cons)) {
            tp_shm_bell_clear(s->bell);
            return CORE_EBUSY;
        }
    a->word = s->bell;
    return 0;
}

static int shm_flush(tp_ep_t *ep)
{
    tp_shm_ep_t *e = (tp_shm_ep_t *)ep;
    return tp_shm_ring_drained(&e->prod) ? 0 : CORE_EBUSY;
}

/* Whether a local peer has records of ours to read (what shm_am_send pushed; a cooperative
 * copy's request is not counted). Outside G, so from the shared tail and the pushed mirror,
 * never the producer state a sending thread owns. */
static int shm_unread(void *iface)
{
    tp_shm_iface_t *s = tp_shm_iface(iface);
    int n = atomic_load_explicit(&s->nout, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        tp_shm_ep_t *e = &s->eps[s->out[i]];
        uint64_t pushed = atomic_load_explicit(&e->pushed, memory_order_relaxed);
        uint64_t tail = atomic_load_explicit(&e->prod.ring->tail, memory_order_relaxed);
        if ((int64_t)(pushed - tail) > 0)
            return 1;
    }
    return 0;
}

static size_t shm_backlog(tp_ep_t *ep)
{
    return (size_t)tp_shm_ring_backlog(&((tp_shm_ep_t *)ep)->prod);
}

/* No drain op: nothing is owed at finalize. What we pushed stays readable in
 * the segment after we unmap it (peers keep their mappings), rendezvous reads
 * of our buffers finished before p2p let finalize go on, and cooperative
 * copies finish without our help. */

const tp_component_t tp_shm_component = {
    .name = "shm",
    .node_local = 1,
    .open = shm_open_iface,
    .ready = shm_ready,
    .reachable = shm_reachable,
    .other_jobs = 1, /* through bridges (shm_bridge.c), an interface of their own */
    .open_dynamic = tp_shm_bridge_open,
    .create_outside = 1, /* shm_ep_create sets up only that peer's ring producer (its
                          * senders bit atomically); bridges are opened for other jobs */
};
