/*
 * The transports layer's instance (transport.h, tp_layer_t): opening the
 * allowed transports, the per-peer endpoint table and the choice of
 * transport for each peer (the first, in order of preference, that reaches
 * it), the active-message handler table, sleeping on the transports, and
 * finalize's drain and close.
 */
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bootstrap.h"
#include "core/futex.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "transports/transport.h"

#define DRAIN_TIMEOUT 10.0 /* seconds finalize waits for the transports' goodbyes */
#define SLEEP_MAX 0.01     /* longest sleep: a missed wake-up costs no more */
#define MIXED_SLICE 0.001  /* longest futex sleep while descriptors wait too */

static int ep_choose(tp_layer_t *tp, int peer, tp_ep_t **ep_p);

static const tp_component_t *component_of(const tp_iface_t *iface)
{
    for (int k = 0; tp_components[k]; k++)
        if (!strcmp(tp_components[k]->name, iface->name))
            return tp_components[k];
    return NULL;
}

static int transport_allowed(const tp_layer_t *tp, const char *name)
{
    const char *list = tp->cfg->transports;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

int tp_layer_init(tp_layer_t *tp, core_runtime_t *rt)
{
    memset(tp, 0, sizeof(*tp));
    tp->rt = rt;
    if (!(tp->cfg = core_config_add(&rt->cfg, &tp_config_group)))
        return CORE_ENOMEM;
    tp->eps = calloc((size_t)rt->proc_cap, sizeof(tp_ep_t *)); /* other jobs' processes too */
    tp->lost = calloc((size_t)rt->proc_cap ? (size_t)rt->proc_cap : 1, 1);
    if (!tp->eps || !tp->lost)
        return CORE_ENOMEM;
    /* S(peer) for every rank of this job (transport.h): used only under MULTIPLE; zeroed
     * is free. Recursive: a transport writing its queued bytes under S(peer) may find the
     * connection lost and close it, which takes S(peer) again (tcp). */
    if (rt->size > 0 && !(tp->send_locks = calloc((size_t)rt->size, sizeof(core_rlock_t))))
        return CORE_ENOMEM;
    tp->nsend_locks = rt->size;
    if (rt->size > 0 && !(tp->making = calloc((size_t)rt->size, 1)))
        return CORE_ENOMEM;
    return 0;
}

/*
 * Sleeps until a transport has something or max_sleep passes (0); returns
 * without sleeping 1 when one of them has work now, 2 when one cannot wake
 * a sleeper now (the progress engine's sleep). Transports wake a sleeper in one of two ways: a descriptor that
 * becomes readable (verbs' completion channel), or a futex word in shared
 * memory that the sender rings (shm's doorbell: a futex wake-up is ~1.1 us
 * from sender to running receiver here, and costs the sender nothing while
 * the receiver is awake). A rank with only descriptors sleeps in poll(),
 * one with only a word in futex_wait. One with both (shm and verbs) cannot
 * wait on both in one call: it sleeps on the word, which carries the
 * node-local traffic whose latency is smallest, for at most MIXED_SLICE, and
 * looks at the descriptors between slices. A poll thread that rings our own
 * word when a descriptor turns readable would wake it sooner, at the price
 * of a thread per rank and a second hop on every verbs wake-up; a node-local
 * descriptor that shm senders write (an eventfd passed with pidfd_getfd, a
 * FIFO) would unify both, at the price of a syscall per shm wake and a
 * descriptor per pair. Measured need first: mixed sleeping only happens in
 * oversubscribed multi-node jobs.
 */
static int sleep_on_transports(void *arg)
{
    tp_layer_t *tp = arg;
    struct pollfd pfd[TP_MAX_IFACES];
    _Atomic uint32_t *words[TP_MAX_IFACES];
    tp_arm_t a = { .fd = -1, .word = NULL, .max_sleep = SLEEP_MAX };
    int n = 0, nw = 0, busy = 0;
    for (int i = 0; i < tp->niface && !busy; i++) {
        tp_iface_t *iface = tp->ifaces[i];
        a.fd = -1;
        a.word = NULL;
        int rc = iface->ops->arm(iface, &a);
        if (rc != 0) {
            busy = rc == CORE_EUNSUPPORTED ? 2 : 1;
            break;
        }
        if (a.fd >= 0) {
            pfd[n].fd = a.fd;
            pfd[n].events = POLLIN;
            pfd[n++].revents = 0;
        }
        if (a.word)
            words[nw++] = a.word;
    }
    if (!busy) {
        double t = a.max_sleep > 0 ? a.max_sleep : 0.001;
        if (nw == 0) {
            int ms = (int)(t * 1000);
            poll(pfd, (nfds_t)n, ms > 0 ? ms : 1);
        } else if (n == 0 || poll(pfd, (nfds_t)n, 0) == 0) {
            /* One word per interface that has one: only shm has, so nw is 1. */
            core_futex_wait(words[0], 1, n && t > MIXED_SLICE ? MIXED_SLICE : t);
        }
    }
    for (int k = 0; k < nw; k++)
        atomic_store_explicit(words[k], 0, memory_order_relaxed);
    return busy;
}

/* Whether every open interface can wake a sleeping rank: then the layer may sleep. */
static void set_sleep(tp_layer_t *tp)
{
    unsigned all = TP_CAP_WAIT;
    for (int i = 0; i < tp->niface; i++)
        all &= tp->ifaces[i]->caps.flags;
    core_progress_set_sleep(tp->rt, all ? sleep_on_transports : NULL, tp);
}

static int open_one(tp_layer_t *tp, const tp_component_t *c, int dynamic)
{
    tp_iface_t *iface;
    int rc = dynamic && c->open_dynamic ? c->open_dynamic(tp->rt, &iface) : c->open(tp->rt, &iface);
    if (rc)
        return rc;
    iface->am = tp->am;
    iface->layer = tp;
    /* its counters go to the threads' shards under MULTIPLE (core/count.h); without room in
     * them they stay locked increments */
    (void)core_count_register((uint64_t *)&iface->stats, sizeof(iface->stats) / sizeof(uint64_t));
    tp->ifaces[tp->niface] = iface;
    /* release: a thread creating an endpoint outside G reads the interfaces up to niface
     * (tp_ep_get_outside) */
    __atomic_store_n(&tp->niface, tp->niface + 1, __ATOMIC_RELEASE);
    if (iface->ops->progress &&
        (rc = core_progress_add_poller(tp->rt, iface->ops->progress, iface,
                                       iface->caps.flags & TP_CAP_POLL_OUTSIDE
                                           ? iface->ops->progress_outside : NULL,
                                       iface->ops->unread)) != 0)
        return rc;
    core_debug("transport %s open", c->name);
    return 0;
}

int tp_layer_open_dynamic(tp_layer_t *tp)
{
    int found = 0;
    for (int i = 0; tp_components[i]; i++) {
        const tp_component_t *c = tp_components[i];
        int open = 0;
        if (!c->other_jobs || !transport_allowed(tp, c->name))
            continue;
        for (int k = 0; k < tp->niface; k++)
            open |= !strcmp(tp->ifaces[k]->name, c->name) && tp->ifaces[k]->other_jobs;
        if (!open) {
            if (tp->niface >= TP_MAX_IFACES)
                continue;
            /* before niface grows: no endpoint is created outside G from now on (a bridge's
             * reachable and ep_create are its progress's) */
            __atomic_store_n(&tp->dynamic, 1, __ATOMIC_RELAXED);
            int rc = open_one(tp, c, 1);
            if (rc == CORE_EUNSUPPORTED)
                continue;
            if (rc) {
                core_error("the %s transport failed to start: %s", c->name, core_strerror(rc));
                return rc;
            }
            if (!c->open_dynamic && c->ready && (rc = c->ready(tp->ifaces[tp->niface - 1])) != 0)
                return rc;
            set_sleep(tp);
            if ((rc = core_boot_commit(tp->rt)) != 0)
                return rc;
        }
        found = 1;
    }
    if (!found)
        core_error("no transport reaches processes of other jobs (tcp does; RDMPI_TRANSPORTS=%s)",
                   tp->cfg->transports);
    return found ? 0 : CORE_EUNSUPPORTED;
}

int tp_layer_open(tp_layer_t *tp)
{
    core_runtime_t *rt = tp->rt;
    /* Whether a node-local transport besides self serves every peer (and
     * self serves us: without it, messages to ourselves need tcp). */
    int local_covers = rt->size == 1 && transport_allowed(tp, "self");
    for (int i = 0; tp_components[i] && tp->niface < TP_MAX_IFACES; i++) {
        const tp_component_t *c = tp_components[i];
        if (!transport_allowed(tp, c->name))
            continue;
        /* A spawned job talks to its parents at once: what reaches them opens now. */
        if (!c->node_local && local_covers && !(rt->spawned && c->other_jobs)) {
            core_debug("transport %s not needed: every rank is on this node", c->name);
            continue;
        }
        int rc = open_one(tp, c, 0);
        if (rc == CORE_EUNSUPPORTED)
            continue;
        if (rc) {
            core_error("the %s transport failed to start: %s", c->name, core_strerror(rc));
            return rc;
        }
        if (c->node_local && rt->local_size == rt->size && rt->local_size > 1 &&
            strcmp(c->name, "self") != 0 && transport_allowed(tp, "self"))
            local_covers = 1;
    }
    set_sleep(tp);
    return 0;
}

int tp_layer_ready(tp_layer_t *tp)
{
    for (int i = 0; i < tp->niface; i++) {
        const tp_component_t *c = component_of(tp->ifaces[i]);
        int rc = c && c->ready && !(c->open_dynamic && tp->ifaces[i]->other_jobs)
                     ? c->ready(tp->ifaces[i]) : 0;
        if (rc) {
            core_error("the %s transport failed to connect: %s", tp->ifaces[i]->name,
                       core_strerror(rc));
            return rc;
        }
    }
    return 0;
}

/* Inside G, the latch of peer (a rank of this job, under MULTIPLE): waits while a thread
 * outside G creates its endpoint (that thread needs neither G nor anything G's holder has),
 * then takes it. Returns 1 when the caller then creates the endpoint (and clears the latch),
 * 0 when nothing is to be done with the latch (no MULTIPLE, another job's process, or this
 * thread creates it already, further up its stack: a transport's ep_create that got here). */
static int making_enter(tp_layer_t *tp, int peer)
{
    if (!core_handles.shared || !tp->making || peer < 0 || peer >= tp->nsend_locks)
        return 0;
    for (;;) {
        unsigned char v = TP_MAKING_NONE;
        if (__atomic_compare_exchange_n(&tp->making[peer], &v, TP_MAKING_INSIDE, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
        if (v == TP_MAKING_INSIDE)
            return 0;
        sched_yield();
    }
}

static void making_leave(tp_layer_t *tp, int peer, int entered)
{
    if (entered)
        __atomic_store_n(&tp->making[peer], TP_MAKING_NONE, __ATOMIC_RELEASE);
}

int tp_ep_get_slow(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    int entered = making_enter(tp, peer);
    /* acquire: a thread outside G may have created it meanwhile */
    tp_ep_t *made = __atomic_load_n(&tp->eps[peer], __ATOMIC_ACQUIRE);
    if (made) {
        making_leave(tp, peer, entered);
        *ep_p = made;
        return 0;
    }
    int rc = ep_choose(tp, peer, ep_p);
    making_leave(tp, peer, entered);
    return rc;
}

int tp_ep_get_outside(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    if (!tp->making || peer < 0 || peer >= tp->nsend_locks)
        return 1;
    unsigned char v = TP_MAKING_NONE;
    if (!__atomic_compare_exchange_n(&tp->making[peer], &v, TP_MAKING_OUTSIDE, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 1; /* another thread creates it: G's path waits for it */
    int rc = 1;
    tp_ep_t *ep = __atomic_load_n(&tp->eps[peer], __ATOMIC_ACQUIRE);
    if (ep) {
        *ep_p = ep;
        rc = 0;
        goto out;
    }
    /* acquire: the interfaces below niface are whole; read before dynamic (open_dynamic
     * sets it before niface grows) */
    int n = __atomic_load_n(&tp->niface, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&tp->dynamic, __ATOMIC_RELAXED))
        goto out;
    /* tp_ep_get_slow's choice, over the same interfaces in the same order: the first
     * transport that reaches the peer; one that may not be asked outside G first ends it */
    for (int k = 0; tp_components[k]; k++)
        for (int i = 0; i < n; i++) {
            tp_iface_t *iface = tp->ifaces[i];
            const tp_component_t *c = tp_components[k];
            if (strcmp(c->name, iface->name) != 0)
                continue;
            if (!c->create_outside)
                goto out;
            if (!c->reachable(iface, peer))
                continue;
            if (iface->ops->ep_create(iface, peer, &ep) != 0)
                goto out; /* G's path tries again, and reports it */
            __atomic_store_n(&tp->eps[peer], ep, __ATOMIC_RELEASE);
            *ep_p = ep;
            rc = 0;
            goto out;
        }
out:
    __atomic_store_n(&tp->making[peer], TP_MAKING_NONE, __ATOMIC_RELEASE);
    return rc;
}

/* The first transport, in order of preference, that reaches peer: its endpoint, created and
 * published. Inside G. */
static int ep_choose(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    core_runtime_t *rt = tp->rt;
    /* In order of preference, whatever the order of opening: shm's bridges, opened for
     * other jobs later, come before a tcp opened at startup. */
    for (int k = 0; tp_components[k]; k++)
        for (int i = 0; i < tp->niface; i++) {
            tp_iface_t *iface = tp->ifaces[i];
            const tp_component_t *c = tp_components[k];
            if (strcmp(c->name, iface->name) != 0 || !c->reachable(iface, peer))
                continue;
            tp_ep_t *ep = NULL;
            int rc = iface->ops->ep_create(iface, peer, &ep);
            if (rc) {
                core_error("cannot connect to rank %d on %s over %s: %s", peer,
                           core_rank_host(rt, peer), iface->name, core_strerror(rc));
                return rc;
            }
            /* release: threads outside G read it with acquire (tp_ep_get) */
            __atomic_store_n(&tp->eps[peer], ep, __ATOMIC_RELEASE);
            *ep_p = ep;
            return 0;
        }
    core_error("no transport reaches rank %d on host %s (RDMPI_TRANSPORTS=%s)", peer,
               core_rank_host(rt, peer), tp->cfg->transports);
    return CORE_EPEER;
}

int tp_am_send_shared(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    core_rlock_t *m = tp_send_lock_of(ep);
    if (!m)
        return tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
    core_rlock_lock(m);
    int rc = tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
    core_rlock_unlock(m);
    return rc;
}

int tp_ep_settle(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    core_wait_ctx_t w;
    core_wait_begin(&w, "settling the transport to a peer", NULL);
    while (tp->eps[peer] && tp->eps[peer]->iface->ops->flush(tp->eps[peer]) == CORE_EBUSY &&
           !tp_peer_is_lost(tp, peer))
        core_wait_idle(&w, core_progress());
    core_wait_end(&w);
    /* A peer that left once the endpoint was made (a spawned job that finalized right after
     * its last message) was reached over that endpoint's transport all the same. */
    *ep_p = tp->eps[peer];
    return *ep_p ? 0 : CORE_EPEER;
}

/*
 * Every transport finishes with its peers before any is closed (transport.h,
 * drain): while one waits for goodbyes, the others keep answering, so a peer
 * that still needs our acks or queued bytes on another transport gets them.
 * Bounded: a peer that died leaves us closing anyway, with a warning.
 */
void tp_layer_drain(tp_layer_t *tp)
{
    double deadline = core_wtime() + DRAIN_TIMEOUT;
    core_wait_ctx_t w;
    core_wait_begin(&w, "MPI_Finalize (saying goodbye to peers)", NULL);
    for (;;) {
        int busy = 0;
        for (int i = 0; i < tp->niface; i++) {
            tp_iface_t *t = tp->ifaces[i];
            if (t->ops->drain && t->ops->drain(t) == CORE_EBUSY)
                busy |= 1 << i;
        }
        if (!busy)
            break;
        if (core_wtime() > deadline) {
            char names[128] = "";
            size_t n = 0;
            for (int i = 0; i < tp->niface && n + 16 < sizeof(names); i++)
                if (busy & (1 << i))
                    n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
                                          tp->ifaces[i]->name);
            core_warn("MPI_Finalize: transport %s still busy with peers after %.0f s; closing",
                      names, DRAIN_TIMEOUT);
            break;
        }
        core_wait_idle(&w, core_progress());
    }
    core_wait_end(&w);
}

void tp_layer_fini(tp_layer_t *tp)
{
    core_runtime_t *rt = tp->rt;
    for (int i = 0; tp->eps && i < rt->nprocs; i++)
        if (tp->eps[i]) {
            tp->eps[i]->iface->ops->ep_destroy(tp->eps[i]);
            tp->eps[i] = NULL; /* a transport closing after another may still report peers */
        }
    for (int i = tp->niface - 1; i >= 0; i--) {
        core_count_unregister((uint64_t *)&tp->ifaces[i]->stats);
        tp->ifaces[i]->ops->close(tp->ifaces[i]);
    }
    tp->niface = 0;
    /* The pollers pointed at the closed interfaces. */
    rt->npollers = 0;
    core_progress_set_sleep(rt, NULL, NULL);
    free(tp->eps);
    tp->eps = NULL;
    free(tp->lost);
    tp->lost = NULL;
    tp->nlost = 0;
    free(tp->send_locks);
    tp->send_locks = NULL;
    tp->nsend_locks = 0;
    free(tp->making);
    tp->making = NULL;
}

void tp_peer_lost(tp_iface_t *iface, int peer)
{
    tp_layer_t *tp = iface->layer;
    if (!tp || !tp->lost || peer < 0 || peer >= tp->rt->proc_cap || tp->lost[peer])
        return;
    tp_ep_t *ep = peer < tp->rt->nprocs ? tp->eps[peer] : NULL;
    if (ep && ep->iface != iface) {
        /* The carrier of another transport's control messages: that transport knows
         * whether its own messages are all in (a bridge's goodbye travels its ring). */
        if (ep->iface->ops->ctrl_recv)
            ep->iface->ops->ctrl_recv(ep->iface, peer, TP_CTRL_LOST);
        return;
    }
    tp->lost[peer] = 1;
    /* atomic: a receive posted outside the critical section reads it (p2p's recv_needs_cs) */
    __atomic_store_n(&tp->nlost, tp->nlost + 1, __ATOMIC_RELEASE);
    core_debug("process %d (another job) has left: what waits for it fails", peer);
    if (tp->on_lost)
        tp->on_lost(tp->on_lost_arg);
}

int tp_layer_stats(const tp_layer_t *tp, const char *name, tp_stats_t *out)
{
    *out = (tp_stats_t){ 0 };
    for (int i = 0; i < tp->niface; i++)
        if (!strcmp(tp->ifaces[i]->name, name)) {
            const uint64_t *from = (const uint64_t *)&tp->ifaces[i]->stats;
            uint64_t *to = (uint64_t *)out;
            for (size_t k = 0; k < sizeof(*out) / sizeof(uint64_t); k++) /* only uint64_t */
                to[k] = core_count_read(&from[k]);
            return 1;
        }
    return 0;
}

/* The interface that carries control messages (tcp): one with ctrl_send. */
static tp_iface_t *carrier_of(tp_layer_t *tp, const tp_iface_t *not)
{
    for (int i = 0; i < tp->niface; i++)
        if (tp->ifaces[i] != not && tp->ifaces[i]->ops->ctrl_send && tp->ifaces[i]->other_jobs)
            return tp->ifaces[i];
    return NULL;
}

/* The carrier's own endpoint to peer (not the layer's choice for it). */
static int carrier_ep(tp_iface_t *carrier, int peer, tp_ep_t **ep_p)
{
    return carrier->ops->ep_create(carrier, peer, ep_p);
}

int tp_ctrl_send(tp_iface_t *from, int peer, unsigned type)
{
    tp_layer_t *tp = from->layer;
    tp_iface_t *carrier = tp ? carrier_of(tp, from) : NULL;
    tp_ep_t *ep;
    if (!carrier)
        return CORE_EUNSUPPORTED;
    int rc = carrier_ep(carrier, peer, &ep);
    return rc ? rc : carrier->ops->ctrl_send(ep, type);
}

void tp_ctrl_recv(tp_iface_t *carrier, int peer, unsigned type)
{
    tp_layer_t *tp = carrier->layer;
    if (!tp)
        return;
    for (int i = 0; i < tp->niface; i++)
        if (tp->ifaces[i] != carrier && tp->ifaces[i]->ops->ctrl_recv &&
            tp->ifaces[i]->other_jobs) {
            tp->ifaces[i]->ops->ctrl_recv(tp->ifaces[i], peer, type);
            return;
        }
    /* Nobody here takes bridges (RDMPI_TRANSPORTS leaves shm out): the peer stays on the
     * carrier. A refusal or acknowledgement needs no answer. */
    tp_ep_t *ep;
    if ((type == TP_CTRL_SHM_OFFER || type == TP_CTRL_SHM_WANT) &&
        carrier_ep(carrier, peer, &ep) == 0)
        carrier->ops->ctrl_send(ep, TP_CTRL_SHM_REFUSE);
}

int tp_ep_adopt(tp_iface_t *iface, tp_ep_t *ep)
{
    tp_layer_t *tp = iface->layer;
    if (!tp || ep->peer < 0 || ep->peer >= tp->rt->nprocs)
        return CORE_EINVAL;
    if (tp->eps[ep->peer] && tp->eps[ep->peer]->iface != iface)
        return CORE_EBUSY;
    tp->eps[ep->peer] = ep;
    return 0;
}

int tp_ep_fallback(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    tp_layer_t *tp = iface->layer;
    tp_iface_t *carrier = tp ? carrier_of(tp, iface) : NULL;
    tp_ep_t *ep;
    if (!carrier)
        return CORE_EUNSUPPORTED;
    int rc = carrier_ep(carrier, peer, &ep);
    if (rc)
        return rc;
    if (peer < tp->rt->nprocs && (!tp->eps[peer] || tp->eps[peer]->iface == iface))
        tp->eps[peer] = ep;
    if (ep_p)
        *ep_p = ep;
    return 0;
}
