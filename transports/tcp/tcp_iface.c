/*
 * The tcp transport: active messages over TCP sockets, for peers no faster
 * transport reaches (and, with RDMPI_TRANSPORTS=self,tcp, for all of them).
 *
 * Lifecycle: open() (before the bootstrap fence) picks an address
 * (RDMPI_TCP_IF), listens there and publishes "ip:port"; an endpoint is
 * created on first use by either side and connects then (tcp_conn.c);
 * progress() reads and dispatches frames and writes queued bytes; drain()
 * (at finalize, while every transport still makes progress) sends BYE on
 * every connection after the queued bytes and is done once the queues are
 * empty and every peer's BYE is in; close() finishes what a drain left
 * undone, for a bounded time, then closes the sockets.
 *
 * am_send writes straight to the socket when nothing is queued before it;
 * what the socket does not take is copied into the peer's queue, and once a
 * queue holds RDMPI_TCP_QUEUE_LIMIT bytes (or a full socket took nothing of
 * a large payload) am_send says busy, so p2p keeps large messages in the
 * user's buffer until the socket drains. No get/put: p2p runs its pipelined
 * rendezvous over active messages, whose chunks move with one copy each way:
 * am_send_hold sends the end of a chunk the socket took part of from the
 * user's buffer (not copied into the queue; the send completes once it has
 * gone), and the receiver reads a chunk's payload straight into the posted
 * receive (tp_am_place_t, tcp_frame.h: tp_tcp_rx_direct). am_post (a
 * nonblocking eager send) queues small frames without writing, so that a
 * window of Isends leaves in one write at the next progress: over veth each
 * write runs the receiver's TCP input too, and tiny segments back to back
 * met delayed acknowledgements (OSU bibw 8 B: 0.1-0.3 MB/s before, 40-60
 * when not stalled, at load 13-20).
 *
 * An idle rank may sleep (TP_CAP_WAIT, arm): in poll() on the epoll
 * descriptor, readable once any socket has bytes, a connection or a
 * hang-up, or (a send waiting for room) is writable again. Before, a tcp
 * wait could only spin, yield or nap, whatever the node's load: a rank that
 * spins takes the CPU from the peer it waits for when cores are shared (the
 * progress engine's policy, core/progress.h, says when a wait sleeps).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/procs.h"
#include "core/thread.h"
#include "transports/tcp/tcp.h"

#define TCP_MAX_EVENTS 64
#define TCP_POLL_EVERY 16          /* with one connection: epoll_wait once per this many polls */
#define TCP_MAX_AM_CEIL (64u << 20)
#define TCP_CLOSE_TIMEOUT 10.0     /* seconds close waits for queues and goodbyes */
#define TCP_COPY_MAX (16u << 10)   /* larger payloads are queued only when partly written */
/* am_post keeps frames up to TCP_COPY_MAX in the queue until it holds this much: a socket over
 * veth (and loopback) does the receiver's whole TCP input in the sender's write, several us a
 * write, and tiny segments back to back meet the receiver's delayed acknowledgement; OSU bw
 * sends 64 messages per window. */
#define TCP_POST_BATCH (32u << 10)
/* ...except an endpoint's first frames of a burst, written at once: a program that sends a
 * message or two to each neighbour and then computes (MPI_Isend, compute, MPI_Waitall) has
 * them on the wire during the computation, not at MPI_Waitall. A burst ends at a progress
 * pass or after TCP_POST_GAP without a post; its count includes the library's own frames (the
 * release of the barrier just left, the collective just ended), hence 4. A window of OSU bw
 * posts 64, the rest of which stays batched. */
#define TCP_POST_ALONE 4
#define TCP_POST_GAP 20e-6
/* Rendezvous chunk: few, large writes keep a socket streaming (512 KiB gave
 * about twice the bandwidth of 64 KiB between hosts at 1 MiB and up). */
#define TCP_RNDV_FRAG (512u << 10)

struct tp_memh {
    int unused;
};

static void tcp_close(tp_iface_t *iface);
static int tcp_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p);
static void tcp_ep_destroy(tp_ep_t *ep);
static int tcp_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len);
static int tcp_am_send_hold(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len);
static int tcp_am_held(tp_ep_t *ep, const void *buf, size_t len);
static int tcp_am_post(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len);
static int tcp_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p);
static void tcp_mem_dereg(tp_iface_t *iface, tp_memh_t *memh);
static size_t tcp_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf);
static int tcp_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                   const void *rkey, tp_comp_t *comp);
static int tcp_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                   const void *rkey, tp_comp_t *comp);
static int tcp_progress(void *iface);
static int tcp_flush(tp_ep_t *ep);
static int tcp_drain(tp_iface_t *iface);
static int tcp_ctrl_send(tp_ep_t *ep, unsigned type);
static int tcp_arm(tp_iface_t *iface, tp_arm_t *a);

static const tp_ops_t tcp_ops = {
    .close = tcp_close,
    .ep_create = tcp_ep_create,
    .ep_destroy = tcp_ep_destroy,
    .am_send = tcp_am_send,
    .am_send_hold = tcp_am_send_hold,
    .am_held = tcp_am_held,
    .am_post = tcp_am_post,
    .mem_reg = tcp_mem_reg,
    .mem_dereg = tcp_mem_dereg,
    .rkey_pack = tcp_rkey_pack,
    .get = tcp_get,
    .put = tcp_put,
    .progress = tcp_progress,
    .flush = tcp_flush,
    .drain = tcp_drain,
    .ctrl_send = tcp_ctrl_send,
    .arm = tcp_arm,
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_caps(tp_tcp_iface_t *s)
{
    const tp_tcp_config_t *cfg = s->cfg;
    tp_caps_t *caps = &s->base.caps;
    /* p2p's chunk size, read through the registry by name (p2p sits above us). */
    size_t frag = 0;
    if (core_config_get_size(&s->rt->cfg, "RDMPI_RNDV_FRAG_SIZE", &frag) != 0 || frag == 0)
        frag = TCP_RNDV_FRAG;
    size_t max_am = frag > cfg->tcp_eager_limit ? frag : cfg->tcp_eager_limit;
    if (max_am < 4096)
        max_am = 4096;
    if (max_am > TCP_MAX_AM_CEIL)
        max_am = TCP_MAX_AM_CEIL;
    caps->max_am_hdr = TP_TCP_MAX_AM_HDR;
    caps->max_am = max_am;
    caps->max_inline = 0;
    caps->eager_limit = cfg->tcp_eager_limit < max_am ? cfg->tcp_eager_limit : max_am;
    caps->rndv_frag = frag < max_am ? frag : max_am;
    caps->max_rkey = 0;
    caps->flags = TP_CAP_WAIT | TP_CAP_THREADS; /* tcp_am_send_outside, tp_tcp_ep_lock */
}

/* A connection per peer in use, and up to max_pending that have not proven
 * themselves yet: make room when the soft limit is low. */
static void raise_fd_limit(int size, int max_pending)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)size + (rlim_t)max_pending + 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        core_debug("tcp: raising the open-file limit: %m");
}

/* Opened when some peer needs it, ourselves included when RDMPI_TRANSPORTS
 * leaves out self (even in a job of one rank). */
static int tcp_open(core_runtime_t *rt, tp_iface_t **iface_p)
{
    tp_tcp_iface_t *s = calloc(1, sizeof(*s));
    if (!s)
        return CORE_ENOMEM;
    s->base.ops = &tcp_ops;
    s->base.name = "tcp";
    s->base.rt = rt;
    s->base.other_jobs = 1;
    s->rt = rt;
    s->epfd = s->listen_fd = -1;
    if (!(s->cfg = core_config_add(&rt->cfg, &tp_tcp_config_group))) {
        free(s);
        return CORE_ENOMEM;
    }
    s->queue_limit = s->cfg->tcp_queue_limit;
    s->sockbuf = s->cfg->tcp_sockbuf;
    tp_tcp_auth_key(rt->job_key, s->auth_key);
    s->max_pending = rt->size > TP_TCP_AUTH_MAX_PENDING ? rt->size : TP_TCP_AUTH_MAX_PENDING;
    set_caps(s);
    int rc = CORE_ENOMEM;
    s->eps = calloc((size_t)rt->proc_cap, sizeof(*s->eps)); /* processes of other jobs too */
    if (!s->eps)
        goto err_free;

    char ifname[64];
    s->addr.sin_family = AF_INET;
    if ((rc = tp_tcp_pick_addr(s->cfg->tcp_if, &s->addr.sin_addr, ifname, sizeof(ifname))) != 0)
        goto err_free;
    if (ntohl(s->addr.sin_addr.s_addr) >> 24 == 127 && rt->nnodes > 1)
        core_warn("tcp: only a loopback address (%s) is up here: ranks on other nodes cannot "
                  "connect (RDMPI_TCP_IF chooses the interface)", inet_ntoa(s->addr.sin_addr));
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0) {
        core_error("tcp: epoll_create1: %m");
        rc = CORE_EIO;
        goto err_free;
    }
    if ((rc = tp_tcp_listen(s)) != 0)
        goto err_close_ep;
    snprintf(s->addr_str, sizeof(s->addr_str), "%s:%u", inet_ntoa(s->addr.sin_addr),
             (unsigned)ntohs(s->addr.sin_port));
    rc = core_boot_put(rt, TP_TCP_KEY_ADDR, s->addr_str, strlen(s->addr_str) + 1, 0);
    if (rc)
        goto err_close_listen;
    raise_fd_limit(rt->size, s->max_pending);
    core_debug("tcp: listening on %s (%s)", s->addr_str, ifname);
    *iface_p = &s->base;
    return 0;

err_close_listen:
    close(s->listen_fd);
err_close_ep:
    close(s->epfd);
err_free:
    free(s->eps);
    free(s);
    return rc;
}

static int tcp_reachable(tp_iface_t *iface, int peer)
{
    (void)iface;
    (void)peer;
    return 1; /* the last resort, also for ourselves when self is not allowed */
}

static int tcp_ep_create(tp_iface_t *iface, int peer, tp_ep_t **ep_p)
{
    tp_tcp_iface_t *s = tp_tcp_iface(iface);
    if (peer < 0 || peer >= s->rt->nprocs)
        return CORE_EPEER;
    tp_tcp_ep_t *e = s->eps[peer]; /* made already if the peer connected first */
    if (!e) {
        if (!(e = tp_tcp_ep_new(s, peer)))
            return CORE_ENOMEM;
        int rc = peer == s->rt->rank ? tp_tcp_connect_self(s, e) : tp_tcp_connect(s, e);
        if (rc) {
            s->eps[peer] = NULL;
            free(e);
            return rc;
        }
    }
    *ep_p = &e->base;
    return 0;
}

static void tcp_ep_destroy(tp_ep_t *ep)
{
    (void)ep; /* owned by the interface: close still flushes it */
}

/* tcp_am_send from a thread outside G (MULTIPLE, S(peer) held: TP_CAP_THREADS): only on a
 * connection that is up with nothing queued, in one sendmsg; the rest of a frame the socket
 * took part of is queued for progress. Anything else (not connected yet, bytes queued, a
 * full socket, an error) is CORE_EBUSY with nothing sent: p2p then sends inside G, where
 * tcp_am_send does the rest (connection state, errors, closing) as for every other send. */
static int am_send_outside(tp_tcp_iface_t *s, tp_tcp_ep_t *e, unsigned id, const void *hdr,
                           size_t hdr_len, const void *payload, size_t len)
{
    tp_tcp_conn_t *c = e->conn;
    if (!c || c->state != TP_TCP_UP || e->gone || e->bye_rcvd || e->blocked ||
        tp_tcp_ep_unsent(e))
        return CORE_EBUSY;
    struct iovec iov[TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int nf = tp_tcp_frame_iov(iov, &fh, id, hdr, hdr_len, payload, len);
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)nf };
    ssize_t w;
    do
        w = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w <= 0)
        return CORE_EBUSY;
    if ((size_t)w == tp_tcp_frame_size(hdr_len, len))
        return 0;
    if (tp_tcp_txq_append(&e->txq, iov, nf, (size_t)w) != 0)
        core_fatal("tcp: out of memory queueing a message to rank %d", e->base.peer);
    tp_tcp_conn_watch(s, c);
    return 0;
}

/* Writes the frame after whatever is queued, in one sendmsg when up, and
 * queues the part the socket did not take; a large payload the socket took
 * none of stays with the caller (busy) rather than being copied, and with hold
 * (am_send_hold) one it took part of is sent on from the caller's buffer: 1.
 * While such a payload's end is held, every send waits (busy). Safe from
 * inside a handler: it touches only e's send side. */
static int tcp_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                    const void *payload, size_t len, int hold)
{
    tp_tcp_ep_t *e = (tp_tcp_ep_t *)ep;
    tp_tcp_iface_t *s = tp_tcp_iface(ep->iface);
    if (id >= TP_AM_MAX || hdr_len > TP_TCP_MAX_AM_HDR || len > ep->iface->caps.max_am)
        return CORE_EINVAL;
    if (__builtin_expect(core_handles.shared, 0) && !core_cs_held())
        return am_send_outside(s, e, id, hdr, hdr_len, payload, len);
    if (e->gone || (e->bye_rcvd && e->base.peer >= s->rt->size)) {
        /* The peer has finished: it reads nothing more. A process of another job may
         * finalize while we run: what the application still sends it is an error for the
         * sender (MPI_ERR_OTHER), not a silent loss; in our own finalize the protocol's
         * late messages (acknowledgements) go nowhere quietly, as to our own job's ranks. */
        return e->base.peer >= s->rt->size && !s->finishing ? CORE_EPEER : 0;
    }
    if (tp_tcp_ep_holds(e)) {
        tp_tcp_ep_write(s, e);
        if (e->gone)
            return 0;
        if (tp_tcp_ep_holds(e)) {
            e->blocked = 1;
            tp_tcp_conn_watch(s, e->conn);
            return CORE_EBUSY;
        }
    }
    size_t queued = tp_tcp_txq_bytes(&e->txq);
    if (queued >= s->queue_limit) {
        tp_tcp_ep_write(s, e);
        if (e->gone)
            return 0;
        if ((queued = tp_tcp_txq_bytes(&e->txq)) >= s->queue_limit) {
            e->blocked = 1;
            return CORE_EBUSY;
        }
    }
    struct iovec iov[2 + TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int nq = e->conn ? tp_tcp_txq_iov(&e->txq, iov) : 0;
    int nf = tp_tcp_frame_iov(iov + nq, &fh, id, hdr, hdr_len, payload, len);
    size_t sent = 0; /* bytes of this frame the socket took */
    if (e->conn) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)(nq + nf) };
        ssize_t w;
        do
            w = sendmsg(e->conn->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            tp_tcp_write_failed(s, e, errno);
            return 0; /* the peer has finished (else that was fatal) */
        }
        if (w > 0) {
            size_t from_q = (size_t)w < queued ? (size_t)w : queued;
            tp_tcp_txq_consume(&e->txq, from_q);
            sent = (size_t)w - from_q;
        }
        if (sent == tp_tcp_frame_size(hdr_len, len) || (sent == 0 && len > TCP_COPY_MAX)) {
            /* A full socket: large payloads wait, uncopied, and epoll watches for room. */
            int was = e->blocked;
            e->blocked = sent == 0;
            if (queued || was != e->blocked)
                tp_tcp_conn_watch(s, e->conn);
            return sent ? 0 : CORE_EBUSY;
        }
        /* Part of a large payload went: the rest goes from the caller's buffer, after the
         * rest of the headers (queued: a few bytes), then the padding. */
        size_t head = tp_tcp_frame_size(hdr_len, 0);
        if (hold && sent > 0 && len > TCP_COPY_MAX && sent < head + len) {
            size_t off = sent > head ? sent - head : 0;
            int nh = nf - 1 - (tp_tcp_pad8(len) != len); /* the iovecs before the payload */
            if (sent < head && tp_tcp_txq_append(&e->txq, iov + nq, nh, sent) != 0)
                core_fatal("tcp: out of memory queueing a message to rank %d", ep->peer);
            e->held = (const char *)payload + off;
            e->held_len = len - off;
            e->held_pad = tp_tcp_pad8(len) - len;
            tp_tcp_conn_watch(s, e->conn);
            return 1;
        }
    }
    int rc = tp_tcp_txq_append(&e->txq, iov + nq, nf, sent);
    if (rc) {
        if (sent)
            core_fatal("tcp: out of memory queueing a message to rank %d", ep->peer);
        return rc;
    }
    if (e->conn)
        tp_tcp_conn_watch(s, e->conn);
    return 0;
}

static int tcp_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len)
{
    return tcp_send(ep, id, hdr, hdr_len, payload, len, 0);
}

/* Queues a small frame behind others without writing while the batch is small; progress
 * writes the queue (tcp_progress, or epoll's EPOLLOUT that tp_tcp_conn_watch asks for). */
static int tcp_am_post(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len)
{
    tp_tcp_ep_t *e = (tp_tcp_ep_t *)ep;
    tp_tcp_iface_t *s = tp_tcp_iface(ep->iface);
    size_t size = tp_tcp_frame_size(hdr_len, len);
    double now = core_wtime();
    if (e->post_pass != s->passes || now - e->last_post > TCP_POST_GAP) { /* a new burst */
        e->post_pass = s->passes;
        e->post_run = 0;
    }
    e->last_post = now;
    if (!e->conn || e->gone || e->bye_rcvd || tp_tcp_ep_holds(e) || len > TCP_COPY_MAX ||
        hdr_len > TP_TCP_MAX_AM_HDR || id >= TP_AM_MAX || ++e->post_run <= TCP_POST_ALONE ||
        tp_tcp_txq_bytes(&e->txq) + size > TCP_POST_BATCH)
        return tcp_send(ep, id, hdr, hdr_len, payload, len, 0);
    struct iovec iov[TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int nf = tp_tcp_frame_iov(iov, &fh, id, hdr, hdr_len, payload, len);
    int rc = tp_tcp_txq_append(&e->txq, iov, nf, 0);
    if (rc)
        return rc;
    tp_tcp_conn_watch(s, e->conn);
    return 1; /* kept: written by the next progress */
}

static int tcp_am_send_hold(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len)
{
    return tcp_send(ep, id, hdr, hdr_len, payload, len, 1);
}

static int tcp_am_held(tp_ep_t *ep, const void *buf, size_t len)
{
    const tp_tcp_ep_t *e = (const tp_tcp_ep_t *)ep;
    const char *b = buf;
    return e->held_len && e->held >= b && e->held < b + len;
}

/* One epoll_wait over every socket (waiting up to timeout_ms); returns the
 * events handled. */
static int poll_all(tp_tcp_iface_t *s, int timeout_ms)
{
    struct epoll_event evs[TCP_MAX_EVENTS];
    int n = epoll_wait(s->epfd, evs, TCP_MAX_EVENTS, timeout_ms);
    int events = 0;
    if (s->npending || s->listen_resume > 0)
        tp_tcp_hs_timers(s);
    for (int i = 0; i < n; i++) {
        tp_tcp_conn_t *c = evs[i].data.ptr;
        uint32_t ev = evs[i].events;
        if (!c) {
            tp_tcp_accept_all(s);
            events++;
            continue;
        }
        if (c->state == TP_TCP_CONNECTING) {
            tp_tcp_conn_writable(s, c);
            events++;
            continue;
        }
        if ((ev & EPOLLOUT) && c->state == TP_TCP_UP)
            tp_tcp_conn_writable(s, c);
        if ((ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->state != TP_TCP_DEAD)
            events += tp_tcp_conn_readable(s, c);
    }
    return events;
}

/* Whether every connection only carries another transport's control messages (the set-up
 * and goodbyes of shm bridges to processes of other jobs on this node, transport.h): the layer
 * sends those peers' messages elsewhere, so the sockets are looked at every few polls only,
 * and the bridges' rings are polled without a system call each time. */
static int control_only(tp_tcp_iface_t *s)
{
    const tp_layer_t *tp = s->base.layer;
    if (!tp || !s->nconn || s->npending)
        return 0;
    for (tp_tcp_conn_t *c = s->conns; c; c = c->next) {
        if (c->state == TP_TCP_DEAD)
            continue;
        if (c->state != TP_TCP_UP || c->peer < 0 || c->peer >= s->rt->nprocs ||
            !tp->eps[c->peer] || tp->eps[c->peer]->iface == &s->base ||
            tp_tcp_ep_unsent(c->ep))
            return 0;
    }
    return 1;
}

/* With one connection a direct recv comes first: most polls then cost one
 * system call, and epoll (new connections) is asked every few polls. */
static int tcp_progress(void *iface)
{
    tp_tcp_iface_t *s = tp_tcp_iface(iface);
    int events = 0;
    s->passes++;
    if (s->quiet && ++s->poll_skip % TCP_POLL_EVERY)
        return 0;
    if (++s->polls % TCP_POLL_EVERY == 0)
        s->quiet = control_only(s); /* O(connections): not at every poll */
    tp_tcp_conn_t *c = s->quiet ? NULL : s->single;
    if (c) {
        events = tp_tcp_conn_readable(s, c);
        if (c->state == TP_TCP_UP) {
            tp_tcp_ep_t *e = c->ep;
            tp_tcp_ep_lock(s, e); /* a sender outside G may be queueing (am_send_outside) */
            if (tp_tcp_ep_unsent(e))
                tp_tcp_ep_write(s, e);
            tp_tcp_ep_unlock(s, e);
        }
        if (++s->poll_skip % TCP_POLL_EVERY) { /* even when busy: new peers must get in */
            tp_tcp_reap(s);
            return events;
        }
    }
    events += poll_all(s, 0);
    tp_tcp_reap(s);
    return events;
}

static int tcp_flush(tp_ep_t *ep)
{
    tp_tcp_ep_t *e = (tp_tcp_ep_t *)ep;
    tp_tcp_iface_t *s = tp_tcp_iface(ep->iface);
    tp_tcp_ep_lock(s, e);
    int rc = e->gone || tp_tcp_ep_unsent(e) == 0 ? 0 : CORE_EBUSY;
    tp_tcp_ep_unlock(s, e);
    return rc;
}

/* Sends BYE where it is due; returns whether some connection is unfinished:
 * bytes still queued, a handshake under way, or no BYE from the peer yet. */
static int close_step(tp_tcp_iface_t *s)
{
    int busy = 0;
    for (int p = 0; p < s->rt->nprocs; p++) {
        tp_tcp_ep_t *e = s->eps[p];
        if (!e || e->gone)
            continue;
        tp_tcp_ep_bye(s, e);
        if (e->gone)
            continue;
        if (e->conn ? tp_tcp_ep_unsent(e) || !e->bye_rcvd
                    : e->attempt || tp_tcp_ep_unsent(e))
            busy = 1;
    }
    for (tp_tcp_conn_t *c = s->conns; c && !busy; c = c->next)
        if (c->state == TP_TCP_AUTH && !c->auth.connector)
            busy = 1; /* a late peer's handshake: answer it, so it gets a BYE (or the
                         deadline of a connection that proves nothing ends it) */
    return busy;
}

static int tcp_drain(tp_iface_t *iface)
{
    tp_tcp_iface_t *s = tp_tcp_iface(iface);
    s->finishing = 1;
    return close_step(s) ? CORE_EBUSY : 0;
}

static void tcp_close(tp_iface_t *iface)
{
    tp_tcp_iface_t *s = tp_tcp_iface(iface);
    s->closing = s->finishing = 1;
    double deadline = now() + TCP_CLOSE_TIMEOUT;
    int idle = 0;
    while (close_step(s)) {
        if (now() > deadline) {
            core_warn("tcp: closing with connections unfinished after %.0f s",
                      TCP_CLOSE_TIMEOUT);
            break;
        }
        /* Peers finish at their own pace: once idle, sleep in epoll. */
        int events = poll_all(s, idle > 100 ? 1 : 0);
        tp_tcp_reap(s);
        idle = events ? 0 : idle + 1;
    }
    for (tp_tcp_conn_t *c = s->conns; c; c = c->next)
        tp_tcp_conn_kill(s, c);
    tp_tcp_reap(s);
    tp_tcp_hs_summary(s);
    for (int p = 0; p < s->rt->nprocs; p++)
        if (s->eps[p]) {
            tp_tcp_ep_drop(s->eps[p]);
            free(s->eps[p]);
        }
    close(s->listen_fd);
    close(s->epfd);
    free(s->eps);
    memset(s->auth_key, 0, sizeof(s->auth_key));
    free(s);
}

/* Every socket is registered level-triggered, with EPOLLOUT while its queue waits for room
 * (tp_tcp_conn_watch): the epoll descriptor is readable whenever progress has something to do
 * with a socket, including bytes a direct recv (the single-connection path) left unread.
 * Handshake deadlines need no shorter sleep than the layer's longest (10 ms). */
static int tcp_arm(tp_iface_t *iface, tp_arm_t *a)
{
    tp_tcp_iface_t *s = tp_tcp_iface(iface);
    if (s->closing)
        return CORE_EUNSUPPORTED;
    a->fd = s->epfd;
    return 0;
}

static int tcp_ctrl_send(tp_ep_t *ep, unsigned type)
{
    return tp_tcp_ctrl_queue(tp_tcp_iface(ep->iface), (tp_tcp_ep_t *)ep, type);
}

static int tcp_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p)
{
    return CORE_EUNSUPPORTED; /* no TP_CAP_GET/PUT: p2p never asks */
}

static void tcp_mem_dereg(tp_iface_t *iface, tp_memh_t *memh) { }

static size_t tcp_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf)
{
    return 0;
}

static int tcp_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                   const void *rkey, tp_comp_t *comp)
{
    return CORE_EUNSUPPORTED;
}

static int tcp_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
                   const void *rkey, tp_comp_t *comp)
{
    return CORE_EUNSUPPORTED;
}

const tp_component_t tp_tcp_component = {
    .name = "tcp",
    .open = tcp_open,
    .ready = NULL,
    .reachable = tcp_reachable,
    .other_jobs = 1,
};
