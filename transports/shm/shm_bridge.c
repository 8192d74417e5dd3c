/*
 * shm between processes of different jobs of one run on one node (docs/dynamic.md, design
 * a): a second shm interface, opened by tp_layer_open_dynamic, with one bridge segment per
 * pair (shm_bseg.c) instead of the job's segment, which cannot grow.
 *
 * Setting up a pair (the control messages travel tcp, the carrier, transport.h):
 *   lower uid, at its first send: creates the segment, says OFFER, and answers every send
 *     with busy (p2p queues) until ACK: then it reads the other side's single-copy probe
 *     result, probes the other side itself, writes its verdict and the pair is up;
 *   higher uid, at its first send: says WANT (the lower uid then offers) and is busy until
 *     the offer; on OFFER (whether it asked or not): attaches, probes the creator, writes
 *     its result, says ACK, adopts the pair as its endpoint and polls its ring; it writes
 *     only once the creator's verdict is in the header;
 *   either side that cannot (no /dev/shm room, a header that fails its check, shm not
 *   allowed) says REFUSE and both stay on tcp: the layer's endpoint becomes tcp's, and what
 *   p2p queued meanwhile goes there (nothing was written in the rings).
 * Single copy (CMA) is on for the pair only when both read each other: the endpoint's own
 * caps (tp_ep_caps) then offer get and put, else p2p pipelines through the ring.
 *
 * Goodbyes as tcp's between jobs: at finalize a BYE record goes into each ring; a process of
 * another job answers it from progress at once, and tells the layer the peer has left
 * (tp_peer_lost). Sends past the peer's BYE fail at the sender; once both BYEs are through
 * and ours was read, the segment is unmapped.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/log.h"
#include "core/procs.h"
#include "core/progress.h"
#include "transports/shm/shm.h"

#define BR_BATCH 32          /* records per ring per progress call */
#define TP_SHM_ID_BYE 254    /* ring record id of a bridge's goodbye (not an AM) */

enum br_state {
    BR_NEW,     /* nothing yet */
    BR_OFFERED, /* lower: segment made, OFFER sent, waiting for ACK or REFUSE */
    BR_WANTED,  /* higher: WANT sent, waiting for OFFER or REFUSE */
    BR_CMA,     /* higher: attached, ACK sent, waiting for the creator's single-copy verdict */
    BR_UP,
    BR_REFUSED, /* on tcp */
    BR_DONE,    /* goodbyes through: unmapped */
    BR_LOST,    /* the peer left before the pair was up */
};

typedef struct bridge {
    tp_ep_t base;
    tp_caps_t caps;
    enum br_state state;
    int lower;           /* we made the segment */
    tp_shm_bseg_t seg;
    tp_shm_prod_t prod;
    tp_shm_cons_t cons;
    int32_t peer_pid;    /* the only process a remote key of this peer may name */
    int bye_sent, bye_rcvd, failed, active;
} bridge_t;

typedef struct biface {
    tp_iface_t base;
    core_runtime_t *rt;
    const tp_shm_config_t *cfg;
    size_t ring_size;
    bridge_t **br;       /* by process index (proc_cap) */
    int *active;         /* indices of bridges whose incoming ring is polled */
    int nactive, npending; /* pending: offered or wanted, not answered */
    int nup;             /* bridges that came up: processes of other jobs on this node */
    int finishing;
    char memh_token;
    _Alignas(8) volatile uint64_t cma_magic;
} biface_t;

static biface_t *biface(tp_iface_t *iface)
{
    return (biface_t *)iface;
}

static uint32_t uid_of(biface_t *s, int idx)
{
    return (uint32_t)core_proc_uid(s->rt, idx);
}

static bridge_t *bridge_of(biface_t *s, int peer)
{
    if (peer < s->rt->size || peer >= s->rt->nprocs || peer >= s->rt->proc_cap)
        return NULL;
    bridge_t *b = s->br[peer];
    if (!b && (b = calloc(1, sizeof(*b))) != NULL) {
        b->base.iface = &s->base;
        b->base.peer = peer;
        b->caps = s->base.caps;
        b->base.caps = &b->caps;
        b->lower = uid_of(s, s->rt->rank) < uid_of(s, peer);
        s->br[peer] = b;
    }
    return b;
}

static void set_pending(biface_t *s, bridge_t *b, enum br_state st)
{
    int was = b->state == BR_OFFERED || b->state == BR_WANTED;
    int now = st == BR_OFFERED || st == BR_WANTED;
    s->npending += now - was;
    b->state = st;
}

static void activate(biface_t *s, bridge_t *b)
{
    if (b->active)
        return;
    b->active = 1;
    s->active[s->nactive++] = b->base.peer;
}

static void seg_name(biface_t *s, bridge_t *b)
{
    uint32_t me = uid_of(s, s->rt->rank), peer = uid_of(s, b->base.peer);
    tp_shm_bseg_name(b->seg.name, sizeof(b->seg.name), s->rt->job_key, b->lower ? me : peer,
                     b->lower ? peer : me);
}

/* The rings: ours to write and the peer's to read. Both are faulted in at once (as the job
 * segment's rings at first use: a fault per page of the first lap costs more than the
 * messages). */
static int rings_init(bridge_t *b)
{
    void *out = tp_shm_bseg_ring(&b->seg, b->lower ? 0 : 1);
    void *in = tp_shm_bseg_ring(&b->seg, b->lower ? 1 : 0);
    int rc = tp_shm_prod_init(&b->prod, out, b->seg.ring_size);
    if (!rc)
        rc = tp_shm_cons_init(&b->cons, in, b->seg.ring_size);
#ifdef MADV_POPULATE_WRITE
    if (!rc)
        madvise(tp_shm_bseg_ring(&b->seg, 0), 2 * b->seg.stride, MADV_POPULATE_WRITE);
#endif
    return rc;
}

/* The pair goes over tcp: the layer's endpoint becomes tcp's. */
static void refuse(biface_t *s, bridge_t *b, int tell)
{
    if (tell)
        tp_ctrl_send(&s->base, b->base.peer, TP_CTRL_SHM_REFUSE);
    tp_shm_bseg_destroy(&b->seg);
    set_pending(s, b, BR_REFUSED);
    core_debug("shm: process %d of another job stays on tcp", b->base.peer);
    if (tp_ep_fallback(&s->base, b->base.peer, NULL) != 0)
        core_warn("shm: no transport left for process %d of another job", b->base.peer);
}

/* The lower uid: makes the segment and offers it. */
static void offer(biface_t *s, bridge_t *b)
{
    seg_name(s, b);
    uint32_t me = uid_of(s, s->rt->rank), peer = uid_of(s, b->base.peer);
    int rc = s->cfg->test_bridge_fail == TP_SHM_TEST_FAIL_CREATE
                 ? CORE_ENOMEM
                 : tp_shm_bseg_create(&b->seg, me, peer, s->ring_size, (int32_t)getpid(),
                                      (uint64_t)(uintptr_t)&s->cma_magic);
    if (!rc)
        rc = rings_init(b);
    if (!rc)
        rc = tp_ctrl_send(&s->base, b->base.peer, TP_CTRL_SHM_OFFER);
    if (rc) {
        refuse(s, b, 1);
        return;
    }
    set_pending(s, b, BR_OFFERED);
}

/* The higher uid, offered the segment: attaches and answers. The bridge must carry both
 * directions (p2p answers a message over the endpoint it would send with, and checks its
 * caps): it is refused when the layer already sends to the peer some other way. */
static void accept_offer(biface_t *s, bridge_t *b)
{
    if (tp_ep_adopt(&s->base, &b->base) != 0) {
        refuse(s, b, 1);
        return;
    }
    seg_name(s, b);
    uint32_t me = uid_of(s, s->rt->rank), peer = uid_of(s, b->base.peer);
    if (s->cfg->test_bridge_fail == TP_SHM_TEST_FAIL_ATTACH ||
        tp_shm_bseg_attach(&b->seg, peer, me) != 0 || rings_init(b) != 0) {
        refuse(s, b, 1);
        return;
    }
    tp_shm_bridge_hdr_t *h = b->seg.base;
    b->peer_pid = h->pid[0];
    int cma = s->cfg->shm_cma && tp_shm_cma_try(b->peer_pid, h->probe[0]);
    h->pid[1] = (int32_t)getpid();
    h->probe[1] = (uint64_t)(uintptr_t)&s->cma_magic;
    atomic_store_explicit(&h->cma[1], cma ? TP_SHM_CMA_YES : TP_SHM_CMA_NO, memory_order_release);
    if (tp_ctrl_send(&s->base, b->base.peer, TP_CTRL_SHM_ACK) != 0) {
        refuse(s, b, 0);
        return;
    }
    set_pending(s, b, BR_CMA);
    activate(s, b);
}

/* A bridge is up: the node runs a process of another job besides ours. Counted with our
 * job's, they may exceed its cores (a spawn on a full node): a waiting process then yields at
 * once (RDMPI_YIELD=auto) rather than spinning the other job's processes out of the CPU. */
static void count_up(biface_t *s)
{
    core_runtime_t *rt = s->rt;
    if (++s->nup + rt->local_size > rt->ncores && !rt->oversubscribed) {
        rt->oversubscribed = 1;
        core_wait_policy(rt);
        core_debug("shm: %d processes of other jobs share this node's %d cores: yielding when "
                   "idle", s->nup, rt->ncores);
    }
}

static void set_cma(biface_t *s, bridge_t *b, int on)
{
    if (on) {
        b->caps.flags |= TP_CAP_GET | TP_CAP_PUT;
        b->caps.max_rkey = sizeof(int32_t);
        b->caps.eager_limit = tp_shm_eager_limit(s->cfg, 1, s->ring_size, b->caps.max_am);
    }
    core_debug("shm: bridge to process %d up, single copy %s", b->base.peer, on ? "on" : "off");
}

/* The lower uid, acknowledged: probes the attacher and writes the pair's verdict. */
static void acked(biface_t *s, bridge_t *b)
{
    tp_shm_bridge_hdr_t *h = b->seg.base;
    uint32_t theirs = atomic_load_explicit(&h->cma[1], memory_order_acquire);
    b->peer_pid = h->pid[1];
    int cma = s->cfg->shm_cma && theirs == TP_SHM_CMA_YES && b->peer_pid > 0 &&
              tp_shm_cma_try(b->peer_pid, h->probe[1]);
    set_cma(s, b, cma);
    atomic_store_explicit(&h->cma[0], cma ? TP_SHM_CMA_YES : TP_SHM_CMA_NO,
                          memory_order_release);
    set_pending(s, b, BR_UP);
    activate(s, b);
    count_up(s);
}

/* The higher uid: the creator's verdict, once written. */
static int verdict(biface_t *s, bridge_t *b)
{
    tp_shm_bridge_hdr_t *h = b->seg.base;
    uint32_t v = atomic_load_explicit(&h->cma[0], memory_order_acquire);
    if (v == TP_SHM_CMA_UNKNOWN)
        return 0;
    set_cma(s, b, v == TP_SHM_CMA_YES &&
                      atomic_load_explicit(&h->cma[1], memory_order_relaxed) == TP_SHM_CMA_YES);
    b->state = BR_UP;
    count_up(s);
    return 1;
}

static void bridge_ctrl_recv(tp_iface_t *iface, int peer, unsigned type)
{
    biface_t *s = biface(iface);
    bridge_t *b = bridge_of(s, peer);
    if (!b) {
        if (type == TP_CTRL_SHM_OFFER || type == TP_CTRL_SHM_WANT)
            tp_ctrl_send(iface, peer, TP_CTRL_SHM_REFUSE);
        return;
    }
    if (s->finishing && (type == TP_CTRL_SHM_OFFER || type == TP_CTRL_SHM_WANT) &&
        (b->state == BR_NEW || b->state == BR_WANTED)) {
        refuse(s, b, 1); /* in our MPI_Finalize: not worth a segment; tcp says goodbye */
        return;
    }
    switch (type) {
    case TP_CTRL_SHM_OFFER:
        if (b->lower) /* only the lower uid offers: a confused peer stays on tcp */
            refuse(s, b, 1);
        else if (b->state == BR_NEW || b->state == BR_WANTED)
            accept_offer(s, b);
        else if (b->state == BR_REFUSED) /* it must not wait for an answer */
            tp_ctrl_send(iface, peer, TP_CTRL_SHM_REFUSE);
        break;
    case TP_CTRL_SHM_WANT:
        if (!b->lower)
            refuse(s, b, 1);
        else if (b->state == BR_NEW && tp_ep_adopt(iface, &b->base) != 0)
            refuse(s, b, 1); /* we send to it some other way already */
        else if (b->state == BR_NEW)
            offer(s, b);
        else if (b->state == BR_REFUSED)
            tp_ctrl_send(iface, peer, TP_CTRL_SHM_REFUSE);
        break;
    case TP_CTRL_SHM_ACK:
        if (b->state == BR_OFFERED)
            acked(s, b);
        break;
    case TP_CTRL_SHM_REFUSE:
        if (b->state == BR_OFFERED || b->state == BR_WANTED || b->state == BR_NEW)
            refuse(s, b, 0);
        break;
    case TP_CTRL_LOST:
        /* Once up, the ring's BYE says it (after every message before it); before, tcp. */
        if (b->state != BR_UP && b->state != BR_REFUSED && b->state != BR_DONE) {
            tp_shm_bseg_destroy(&b->seg);
            set_pending(s, b, BR_LOST);
            tp_peer_lost(iface, peer);
        }
        break;
    }
}

static int bridge_reachable(biface_t *s, int peer)
{
    if (peer < s->rt->size || peer >= s->rt->nprocs || core_proc_foreign(s->rt, peer))
        return 0;
    return strcmp(core_rank_host(s->rt, peer), s->rt->hostname) == 0;
}

int tp_shm_bridge_reachable(tp_iface_t *iface, int peer)
{
    return bridge_reachable(biface(iface), peer);
}

static int bridge_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    biface_t *s = biface(iface);
    bridge_t *b = bridge_of(s, peer);
    if (!b)
        return CORE_ENOMEM;
    if (b->state == BR_NEW) {
        if (b->lower) {
            offer(s, b);
        } else if (tp_ctrl_send(iface, peer, TP_CTRL_SHM_WANT) == 0) {
            set_pending(s, b, BR_WANTED);
        } else {
            b->state = BR_REFUSED;
        }
    }
    if (b->state == BR_REFUSED)
        return tp_ep_fallback(iface, peer, ep_p);
    *ep_p = &b->base;
    return 0;
}

static void bridge_ep_destroy(tp_ep_t *ep)
{
    (void)ep; /* owned by the interface */
}

static int bridge_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                          const void *payload, size_t len)
{
    bridge_t *b = (bridge_t *)ep;
    biface_t *s = biface(ep->iface);
    if (id >= TP_AM_MAX || hdr_len > b->caps.max_am_hdr || len > b->caps.max_am)
        return CORE_EINVAL;
    switch (b->state) {
    case BR_UP:
        if (b->bye_rcvd || b->bye_sent) /* the peer has finished: as tcp's tcp_am_send */
            return s->finishing ? 0 : CORE_EPEER;
        return tp_shm_ring_push(&b->prod, id, hdr, hdr_len, payload, len);
    case BR_REFUSED: { /* someone kept this endpoint: the carrier's serves */
        tp_ep_t *c;
        int rc = tp_ep_fallback(ep->iface, ep->peer, &c);
        return rc ? rc : tp_am_send(c, id, hdr, hdr_len, payload, len);
    }
    case BR_DONE:
    case BR_LOST:
        return s->finishing ? 0 : CORE_EPEER;
    default:
        return CORE_EBUSY; /* not up yet: p2p queues */
    }
}

static void say_bye(bridge_t *b)
{
    if (!b->bye_sent && tp_shm_ring_push(&b->prod, TP_SHM_ID_BYE, NULL, 0, NULL, 0) == 0)
        b->bye_sent = 1;
}

static void in_failed(biface_t *s, bridge_t *b, unsigned id, int rc, uint64_t bad)
{
    char why[96];
    b->failed = 1;
    if (id == TP_AM_MAX) {
        snprintf(why, sizeof(why), "bridge record header 0x%016llx", (unsigned long long)bad);
        core_wire_fail(s->rt, b->base.peer, "shm", "ring record", why);
    } else {
        tp_am_refused(&s->base, b->base.peer, id, rc);
    }
}

/* Drains one bridge's incoming ring. */
static int drain_ring(biface_t *s, bridge_t *b)
{
    int events = 0, rc;
    tp_shm_rec_t rec;
    uint64_t bad = 0;
    if (b->state == BR_CMA && !verdict(s, b))
        return 0; /* the creator writes only after its verdict */
    for (int k = 0; k < BR_BATCH && (rc = tp_shm_ring_peek(&b->cons, &rec, &bad)) != 0; k++) {
        if (rc < 0) {
            in_failed(s, b, TP_AM_MAX, rc, bad);
            break;
        }
        if (rec.id == TP_SHM_ID_BYE) {
            if (rec.hdr_len || rec.len) {
                in_failed(s, b, TP_AM_MAX, CORE_EPROTO, 0);
                break;
            }
            b->bye_rcvd = 1;
            say_bye(b); /* answered now, not at our own finalize */
            tp_peer_lost(&s->base, b->base.peer);
        } else if (b->bye_rcvd) {
            rc = core_wire_reject(s->rt, "a message after the goodbye");
        } else {
            rc = tp_am_dispatch(s->base.am, rec.id, b->base.peer, rec.hdr, rec.hdr_len,
                                rec.payload, rec.len);
        }
        if (rc < 0) {
            in_failed(s, b, rec.id, rc, 0);
            break;
        }
        tp_shm_ring_release(&b->cons);
        events++;
    }
    return events;
}

static int bridge_progress(void *iface)
{
    biface_t *s = iface;
    int events = 0;
    for (int i = 0; i < s->nactive; i++) {
        bridge_t *b = s->br[s->active[i]];
        if (b->state != BR_UP && b->state != BR_CMA)
            continue;
        if (!b->failed && !tp_shm_ring_empty(&b->cons))
            events += drain_ring(s, b);
        else if (b->state == BR_CMA)
            events += verdict(s, b);
        if (b->bye_rcvd && !b->bye_sent)
            say_bye(b);
        if (b->bye_rcvd && b->bye_sent && tp_shm_ring_drained(&b->prod)) {
            /* Both goodbyes through and ours read: nothing more uses the segment. */
            tp_shm_bseg_destroy(&b->seg);
            b->state = BR_DONE;
            s->active[i--] = s->active[--s->nactive];
            b->active = 0;
            events++;
        }
    }
    return events;
}

/* Busy too while the pair is being set up: nothing sent is delivered before. */
static int bridge_flush(tp_ep_t *ep)
{
    bridge_t *b = (bridge_t *)ep;
    switch (b->state) {
    case BR_OFFERED:
    case BR_WANTED:
    case BR_CMA:
        return CORE_EBUSY;
    case BR_UP:
        return tp_shm_ring_drained(&b->prod) ? 0 : CORE_EBUSY;
    default:
        return 0;
    }
}

/* Goodbyes on every bridge that is up; busy until each peer's is in, or while an offer
 * waits for its answer (the peer answers from its progress, or its tcp goodbye ends it). */
static int bridge_drain(tp_iface_t *iface)
{
    biface_t *s = biface(iface);
    int busy = s->npending > 0;
    s->finishing = 1;
    for (int i = 0; i < s->nactive; i++) {
        bridge_t *b = s->br[s->active[i]];
        if (b->state == BR_CMA)
            verdict(s, b);
        if (b->state == BR_CMA) {
            busy = 1;
            continue;
        }
        say_bye(b);
        busy |= !b->bye_sent || !b->bye_rcvd;
    }
    return busy ? CORE_EBUSY : 0;
}

/* A bridge's rings have no doorbell (the job segment's bells are per local rank of one
 * job): while one is up or being set up the rank cannot sleep, and yields instead. */
static int bridge_arm(tp_iface_t *iface, tp_arm_t *a)
{
    biface_t *s = biface(iface);
    (void)a; /* an offer comes over tcp, which wakes us */
    return s->nactive || s->npending ? CORE_EUNSUPPORTED : 0;
}

static void bridge_close(tp_iface_t *iface)
{
    biface_t *s = biface(iface);
    for (int p = 0; p < s->rt->proc_cap; p++)
        if (s->br[p]) {
            tp_shm_bseg_destroy(&s->br[p]->seg);
            free(s->br[p]);
        }
    free(s->br);
    free(s->active);
    free(s);
}

static int bridge_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    (void)addr;
    (void)len;
    *memh_p = (tp_memh_t *)(void *)&biface(iface)->memh_token;
    return 0;
}

static void bridge_mem_dereg(tp_iface_t *iface, tp_memh_t *memh)
{
    (void)iface;
    (void)memh;
}

static size_t bridge_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf)
{
    int32_t pid = (int32_t)getpid();
    (void)iface;
    (void)memh;
    memcpy(buf, &pid, sizeof(pid));
    return sizeof(pid);
}

/* CMA between the pair, only where both probes passed, only with the peer's own pid. */
static int cma_copy(tp_ep_t *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
                    int write)
{
    bridge_t *b = (bridge_t *)ep;
    int32_t pid;
    if (!(b->caps.flags & TP_CAP_GET) || b->state != BR_UP)
        return CORE_EUNSUPPORTED;
    memcpy(&pid, rkey, sizeof(pid));
    if (pid != b->peer_pid)
        return CORE_EPROTO; /* a remote key naming another process than the peer */
    int err = tp_shm_cma_move(pid, local, len, raddr, write);
    if (err) {
        core_error("shm: process_vm_%s with process %d of another job (pid %d) failed: %s",
                   write ? "writev" : "readv", ep->peer, (int)pid, strerror(err));
        return CORE_EIO;
    }
    return 0;
}

static int bridge_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                      const void *rkey, tp_comp_t *comp)
{
    (void)lmemh;
    (void)comp;
    return cma_copy(ep, local, len, raddr, rkey, 0);
}

static int bridge_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh,
                      uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    (void)lmemh;
    (void)comp;
    return cma_copy(ep, (void *)local, len, raddr, rkey, 1);
}

const tp_ops_t tp_shm_bridge_ops = {
    .close = bridge_close,
    .ep_create = bridge_ep_create,
    .ep_destroy = bridge_ep_destroy,
    .am_send = bridge_am_send,
    .mem_reg = bridge_mem_reg,
    .mem_dereg = bridge_mem_dereg,
    .rkey_pack = bridge_rkey_pack,
    .get = bridge_get,
    .put = bridge_put,
    .progress = bridge_progress,
    .flush = bridge_flush,
    .drain = bridge_drain,
    .arm = bridge_arm,
    .ctrl_recv = bridge_ctrl_recv,
};

/* The ring size: RDMPI_SHM_BRIDGE_RING, a power of two (rounded down, with a warning). */
static size_t ring_size_of(const tp_shm_config_t *cfg)
{
    size_t want = cfg->shm_bridge_ring, p = TP_SHM_RING_FLOOR;
    while (p <= want / 2 && p < TP_SHM_RING_CEIL)
        p *= 2;
    if (p != want)
        core_warn("shm: RDMPI_SHM_BRIDGE_RING=%zu is not a power of two; using %zu", want, p);
    return p;
}

int tp_shm_bridge_open(core_runtime_t *rt, tp_iface_t **iface_p)
{
    biface_t *s = calloc(1, sizeof(*s));
    if (!s)
        return CORE_ENOMEM;
    s->base.ops = &tp_shm_bridge_ops;
    s->base.name = "shm";
    s->base.rt = rt;
    s->base.other_jobs = 1;
    s->rt = rt;
    if (!(s->cfg = core_config_add(&rt->cfg, &tp_shm_config_group)) ||
        !(s->br = calloc((size_t)rt->proc_cap, sizeof(*s->br))) ||
        !(s->active = calloc((size_t)rt->proc_cap, sizeof(*s->active)))) {
        free(s->br);
        free(s);
        return CORE_ENOMEM;
    }
    s->ring_size = ring_size_of(s->cfg);
    tp_caps_t *caps = &s->base.caps;
    size_t max_am = s->ring_size / 4 - TP_SHM_RING_REC_HDR - TP_SHM_MAX_AM_HDR;
    caps->max_am_hdr = TP_SHM_MAX_AM_HDR;
    caps->max_am = max_am;
    caps->max_inline = 256;
    caps->eager_limit = tp_shm_eager_limit(s->cfg, 0, s->ring_size, max_am);
    caps->flags = TP_CAP_WAIT; /* get/put per pair, in the endpoint's caps */
    if (s->cfg->shm_cma)
        tp_shm_cma_allow(&s->cma_magic);
    *iface_p = &s->base;
    return 0;
}
