/*
 * The tcp transport's sockets: the listener, connections made on first use,
 * reading frames into a connection's reassembly buffer and handing them on,
 * writing an endpoint's queue, and what a lost connection means (see tcp.h
 * for the protocol; the handshake and accepting are tcp_hs.c's).
 *
 * Connections are never freed while progress may still hold a pointer to
 * them (an epoll event, a frame being handled): tp_tcp_conn_kill closes the
 * socket and marks them dead, tp_tcp_reap frees them at the end of progress.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "core/bootstrap.h"
#include "core/log.h"
#include "core/procs.h"
#include "transports/tcp/tcp.h"

#define READS_PER_CALL 4 /* recv calls per connection per progress, when data keeps coming */

static const char zero_pad[8]; /* a held payload's padding */

static void set_sockopts(tp_tcp_iface_t *s, int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        core_debug("tcp: TCP_NODELAY: %m");
    if (s->sockbuf) {
        int v = s->sockbuf > (1u << 30) ? 1 << 30 : (int)s->sockbuf;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) != 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) != 0)
            core_debug("tcp: socket buffers of %d bytes: %m", v);
    }
}

static void update_single(tp_tcp_iface_t *s)
{
    s->single = NULL;
    if (s->nconn != 1)
        return;
    for (tp_tcp_conn_t *c = s->conns; c; c = c->next)
        if (c->state != TP_TCP_DEAD) {
            s->single = c->state == TP_TCP_UP ? c : NULL;
            return;
        }
}

tp_tcp_conn_t *tp_tcp_conn_new(tp_tcp_iface_t *s, int fd, enum tp_tcp_conn_state state, int peer)
{
    tp_tcp_conn_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->fd = fd;
    c->state = state;
    c->peer = peer;
    c->events = state == TP_TCP_CONNECTING ? EPOLLOUT : EPOLLIN;
    tp_tcp_rx_init(&c->rx, TP_TCP_MAX_AM_HDR, s->base.caps.max_am);
    for (unsigned id = 0; s->base.am && id < TP_AM_MAX; id++)
        if (s->base.am[id].place && s->base.am[id].piece)
            c->rx.direct_ids |= 1u << id;
    struct epoll_event ev = { .events = c->events, .data.ptr = c };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        core_error("tcp: epoll_ctl(ADD): %m");
        free(c);
        return NULL;
    }
    c->next = s->conns;
    s->conns = c;
    s->nconn++;
    update_single(s);
    return c;
}

static void conn_kill(tp_tcp_iface_t *s, tp_tcp_conn_t *c);

void tp_tcp_conn_kill(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    /* the socket a sender outside G may be writing to (tcp_am_send) */
    tp_tcp_ep_t *e = c->ep;
    if (!e) {
        conn_kill(s, c);
        return;
    }
    tp_tcp_ep_lock(s, e);
    conn_kill(s, c);
    tp_tcp_ep_unlock(s, e);
}

static void conn_kill(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    if (c->state == TP_TCP_DEAD)
        return;
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->state = TP_TCP_DEAD;
    s->ndead++;
    if (c->pending) {
        c->pending = 0;
        s->npending--;
    }
    if (c->ep && c->ep->conn == c)
        c->ep->conn = NULL;
    if (c->ep && c->ep->attempt == c)
        c->ep->attempt = NULL;
    s->nconn--;
    update_single(s);
}

void tp_tcp_reap(tp_tcp_iface_t *s)
{
    if (s->ndead == 0)
        return;
    s->ndead = 0;
    for (tp_tcp_conn_t **pc = &s->conns; *pc;) {
        tp_tcp_conn_t *c = *pc;
        if (c->state == TP_TCP_DEAD) {
            *pc = c->next;
            tp_tcp_rx_free(&c->rx);
            free(c);
        } else {
            pc = &c->next;
        }
    }
}

void tp_tcp_conn_watch(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    uint32_t want = EPOLLIN;
    if (c->state == TP_TCP_CONNECTING)
        want = EPOLLOUT;
    else if (c->state == TP_TCP_UP && (tp_tcp_ep_unsent(c->ep) || c->ep->blocked))
        want |= EPOLLOUT;
    if (want == c->events || c->state == TP_TCP_DEAD)
        return;
    struct epoll_event ev = { .events = want, .data.ptr = c };
    if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        core_fatal("tcp: epoll_ctl(MOD) for rank %d: %s", c->peer, strerror(errno));
    c->events = want;
}

tp_tcp_ep_t *tp_tcp_ep_new(tp_tcp_iface_t *s, int peer)
{
    tp_tcp_ep_t *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->base.iface = &s->base;
    e->base.peer = peer;
    s->eps[peer] = e;
    return e;
}

int tp_tcp_listen(tp_tcp_iface_t *s)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        core_error("tcp: socket: %m");
        return CORE_EIO;
    }
    set_sockopts(s, fd); /* accepted sockets inherit the buffer sizes */
    socklen_t len = sizeof(s->addr);
    if (bind(fd, (struct sockaddr *)&s->addr, sizeof(s->addr)) != 0 ||
        listen(fd, SOMAXCONN) != 0 || getsockname(fd, (struct sockaddr *)&s->addr, &len) != 0) {
        core_error("tcp: listening on %s: %m", inet_ntoa(s->addr.sin_addr));
        close(fd);
        return CORE_EIO;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        core_error("tcp: epoll_ctl(ADD): %m");
        close(fd);
        return CORE_EIO;
    }
    s->listen_fd = fd;
    return 0;
}

/* Our connection to e's peer was refused where that means it has left (its listener is
 * closed): past MPI_Finalize's barrier (a peer of our job), or a process of another job, which
 * finalizes when it likes; a message it owed us would have held it. What was queued for it
 * goes nowhere; later sends to a process of another job fail (tcp_am_send). */
static void peer_left(tp_tcp_iface_t *s, tp_tcp_ep_t *e, const char *why)
{
    int peer = e->base.peer;
    if (tp_tcp_txq_bytes(&e->txq) && !s->finishing)
        core_warn("tcp: process %d of another job has left (connecting: %s): %zu bytes of "
                  "messages to it are dropped", peer, why, tp_tcp_txq_bytes(&e->txq));
    else
        core_debug("tcp: rank %d left before our connection reached it (%s)", peer, why);
    tp_tcp_ep_lock(s, e);
    e->gone = 1;
    tp_tcp_ep_drop(e);
    tp_tcp_ep_unlock(s, e);
    if (peer >= s->rt->size)
        tp_peer_lost(&s->base, peer);
}

int tp_tcp_connect(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    int peer = e->base.peer;
    void *val;
    size_t len;
    struct sockaddr_in sa;
    int rc = core_boot_get(s->rt, peer, TP_TCP_KEY_ADDR, &val, &len);
    if (rc) {
        core_error("tcp: rank %d published no address", peer);
        return CORE_EPEER;
    }
    rc = len > 0 && ((char *)val)[len - 1] == '\0' ? tp_tcp_parse_hostport(val, &sa) : CORE_EINVAL;
    if (rc) {
        core_error("tcp: rank %d published a malformed address", peer);
        free(val);
        return CORE_EPEER;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        core_error("tcp: socket: %m");
        free(val);
        return CORE_EIO;
    }
    set_sockopts(s, fd);
    int done = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    if (!done && errno == ECONNREFUSED && (s->finishing || peer >= s->rt->size)) {
        free(val); /* it has left: see conn_lost */
        close(fd);
        peer_left(s, e, "refused");
        return 0;
    }
    if (!done && errno != EINPROGRESS) {
        core_error("tcp: connecting to rank %d at %s: %m", peer, (char *)val);
        free(val);
        close(fd);
        return CORE_EPEER;
    }
    core_debug("tcp: connecting to rank %d at %s", peer, (char *)val);
    free(val);
    tp_tcp_conn_t *c = tp_tcp_conn_new(s, fd, TP_TCP_CONNECTING, peer);
    if (!c) {
        close(fd);
        return CORE_ENOMEM;
    }
    c->ep = e;
    e->attempt = c;
    if (done)
        tp_tcp_hs_connected(s, c);
    return 0;
}

/* Messages to ourselves (when RDMPI_TRANSPORTS leaves out self) go through
 * a connected socket pair: ep writes into one end, progress reads the other
 * like any connection, so they take the same framing, queueing and
 * goodbye as everyone else's, and a handler never runs inside am_send. */
int tp_tcp_connect_self(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
        core_error("tcp: socketpair for messages to ourselves: %m");
        return CORE_EIO;
    }
    tp_tcp_conn_t *out = tp_tcp_conn_new(s, fds[0], TP_TCP_UP, e->base.peer);
    if (!out) {
        close(fds[0]);
        close(fds[1]);
        return CORE_ENOMEM;
    }
    tp_tcp_conn_t *in = tp_tcp_conn_new(s, fds[1], TP_TCP_UP, e->base.peer);
    if (!in) {
        tp_tcp_conn_kill(s, out);
        close(fds[1]);
        return CORE_ENOMEM;
    }
    out->ep = in->ep = e;
    e->conn = out;
    update_single(s);
    return 0;
}

void tp_tcp_conn_lost(tp_tcp_iface_t *s, tp_tcp_conn_t *c, int err)
{
    const char *why = err ? strerror(err) : "closed by the peer";
    tp_tcp_ep_t *e = c->ep;
    switch (c->state) {
    case TP_TCP_DEAD:
        return;
    case TP_TCP_AUTH:
    case TP_TCP_CONNECTING:
        /* Past Finalize's barrier a connection that had not reached the peer's accept (made
         * by a late first message, or by an endpoint asked for and never used) finds the
         * peer's listener closed once it is done (refused; one caught in the backlog is
         * reset first, and its retry is refused): it has left, and nothing of the
         * application can be owed to it (a receive it posted would have held it at the
         * barrier), so the attempt just ends. */
        if ((s->finishing || c->peer >= s->rt->size) && err == ECONNREFUSED && e &&
            !e->conn && (c->state == TP_TCP_CONNECTING || c->auth.connector)) {
            tp_tcp_conn_kill(s, c);
            peer_left(s, e, why);
            return;
        }
        if (c->state == TP_TCP_CONNECTING)
            break;
        if (!c->auth.connector) { /* never proved who it is: nothing was lost */
            core_debug("tcp: a connection from %s ended in the handshake: %s", c->from, why);
            tp_tcp_conn_kill(s, c);
            return;
        }
        if (!err || err == ECONNRESET || err == EPIPE) {
            tp_tcp_hs_retry(s, c, why); /* the peer may have dropped a slow handshake */
            return;
        }
        break;
    case TP_TCP_UP:
        /* A process of another job that dies takes only itself: what waits for it fails
         * (tp_peer_lost), as after its goodbye; a rank of our job is a lost job. */
        if (!e->bye_rcvd && !s->closing && c->peer < s->rt->size)
            core_fatal("tcp: lost the connection to rank %d on %s: %s", c->peer,
                       core_rank_host(s->rt, c->peer), why);
        if (!e->bye_rcvd && !s->closing)
            core_warn("tcp: lost the connection to process %d of another job on %s (%s): "
                      "it has left without MPI_Finalize", c->peer,
                      core_rank_host(s->rt, c->peer), why);
        else if (!e->bye_rcvd)
            core_debug("tcp: rank %d left without saying goodbye: %s", c->peer, why);
        tp_tcp_ep_lock(s, e);
        e->gone = 1;
        tp_tcp_ep_drop(e);
        tp_tcp_conn_kill(s, c);
        tp_tcp_ep_unlock(s, e);
        if (c->peer >= s->rt->size)
            tp_peer_lost(&s->base, c->peer);
        return;
    }
    core_fatal("tcp: cannot connect to rank %d on %s: %s", c->peer,
               core_rank_host(s->rt, c->peer), why);
}

void tp_tcp_write_failed(tp_tcp_iface_t *s, tp_tcp_ep_t *e, int err)
{
    if (e->conn)
        tp_tcp_conn_lost(s, e->conn, err);
}

static size_t ep_write(tp_tcp_iface_t *s, tp_tcp_ep_t *e);

void tp_tcp_ep_drop(tp_tcp_ep_t *e)
{
    tp_tcp_txq_free(&e->txq);
    e->held = NULL;
    e->held_len = e->held_pad = 0;
}

int tp_tcp_ep_unhold(tp_tcp_ep_t *e)
{
    if (!tp_tcp_ep_holds(e))
        return 0;
    struct iovec iov[2] = { { (void *)e->held, e->held_len }, { (void *)zero_pad, e->held_pad } };
    int rc = tp_tcp_txq_append(&e->txq, iov, 2, 0);
    if (rc == 0) {
        e->held = NULL;
        e->held_len = e->held_pad = 0;
    }
    return rc;
}

/* The queue's bytes, then what is held, as iovecs (at most 4); returns the count. */
static int unsent_iov(const tp_tcp_ep_t *e, struct iovec *iov)
{
    int n = tp_tcp_txq_iov(&e->txq, iov);
    if (e->held_len)
        iov[n++] = (struct iovec){ (void *)e->held, e->held_len };
    if (e->held_pad)
        iov[n++] = (struct iovec){ (void *)zero_pad, e->held_pad };
    return n;
}

/* The socket took n bytes of what unsent_iov described. */
static void unsent_consume(tp_tcp_ep_t *e, size_t n)
{
    size_t k = tp_tcp_txq_bytes(&e->txq) < n ? tp_tcp_txq_bytes(&e->txq) : n;
    tp_tcp_txq_consume(&e->txq, k);
    n -= k;
    k = e->held_len < n ? e->held_len : n;
    e->held += k;
    e->held_len -= k;
    n -= k;
    if (!e->held_len)
        e->held = NULL;
    e->held_pad -= e->held_pad < n ? e->held_pad : n;
}

size_t tp_tcp_ep_write(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    tp_tcp_ep_lock(s, e);
    size_t n = ep_write(s, e);
    tp_tcp_ep_unlock(s, e);
    return n;
}

static size_t ep_write(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    tp_tcp_conn_t *c = e->conn;
    size_t total = 0;
    if (!c)
        return 0;
    e->blocked = 0; /* the socket has room (or progress polls anyway): the sender retries */
    while (tp_tcp_ep_unsent(e)) {
        struct iovec iov[4];
        struct msghdr mh = { .msg_iov = iov };
        mh.msg_iovlen = (size_t)unsent_iov(e, iov);
        ssize_t w = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            unsent_consume(e, (size_t)w);
            total += (size_t)w;
        } else if (errno != EINTR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                tp_tcp_write_failed(s, e, errno);
                return total;
            }
            break;
        }
    }
    tp_tcp_conn_watch(s, c);
    return total;
}

void tp_tcp_conn_up(tp_tcp_iface_t *s, tp_tcp_conn_t *c, tp_tcp_ep_t *e)
{
    if (c->pending) {
        c->pending = 0;
        s->npending--;
    }
    tp_tcp_ep_lock(s, e);
    c->state = TP_TCP_UP;
    c->ep = e;
    e->conn = c;
    e->retries = 0;
    if (e->attempt == c)
        e->attempt = NULL;
    core_debug("tcp: connected to rank %d", c->peer);
    update_single(s);
    ep_write(s, e);
    tp_tcp_ep_unlock(s, e);
}

void tp_tcp_ep_bye(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    if (e->bye_sent || !e->conn || e->gone || tp_tcp_ep_unhold(e) != 0)
        return;
    tp_tcp_ctrl_t m = { TP_TCP_BYE, core_proc_uid(s->rt, s->rt->rank) };
    struct iovec iov[TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int n = tp_tcp_frame_iov(iov, &fh, TP_TCP_CTRL_ID, &m, sizeof(m), NULL, 0);
    tp_tcp_ep_lock(s, e);
    if (tp_tcp_txq_append(&e->txq, iov, n, 0) == 0) { /* else tried again by the next step */
        e->bye_sent = 1;
        ep_write(s, e);
    }
    tp_tcp_ep_unlock(s, e);
}

static void protocol_error(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *what)
{
    core_fatal("tcp: %s from rank %d on %s", what, c->peer, core_rank_host(s->rt, c->peer));
}

/* TP_TCP_SHM_* on the wire and the layer's TP_CTRL_SHM_* (transport.h). */
static unsigned ctrl_of_wire(int type)
{
    switch (type) {
    case TP_TCP_SHM_OFFER: return TP_CTRL_SHM_OFFER;
    case TP_TCP_SHM_ACK: return TP_CTRL_SHM_ACK;
    case TP_TCP_SHM_REFUSE: return TP_CTRL_SHM_REFUSE;
    default: return TP_CTRL_SHM_WANT;
    }
}

int tp_tcp_ctrl_queue(tp_tcp_iface_t *s, tp_tcp_ep_t *e, unsigned type)
{
    static const uint32_t wire[] = { [TP_CTRL_SHM_OFFER] = TP_TCP_SHM_OFFER,
                                     [TP_CTRL_SHM_ACK] = TP_TCP_SHM_ACK,
                                     [TP_CTRL_SHM_REFUSE] = TP_TCP_SHM_REFUSE,
                                     [TP_CTRL_SHM_WANT] = TP_TCP_SHM_WANT };
    if (type == 0 || type >= sizeof(wire) / sizeof(wire[0]) || !wire[type])
        return CORE_EINVAL;
    if (e->gone || e->bye_sent || e->bye_rcvd)
        return CORE_EPEER;
    tp_tcp_shm_ctrl_t m = { wire[type], core_proc_uid(s->rt, s->rt->rank),
                            core_proc_uid(s->rt, e->base.peer), 0 };
    struct iovec iov[TP_TCP_FRAME_IOV];
    tp_tcp_frame_hdr_t fh;
    int n = tp_tcp_frame_iov(iov, &fh, TP_TCP_CTRL_ID, &m, sizeof(m), NULL, 0);
    tp_tcp_ep_lock(s, e);
    int rc = tp_tcp_ep_unhold(e);
    if (rc == 0)
        rc = tp_tcp_txq_append(&e->txq, iov, n, 0);
    if (rc == 0)
        ep_write(s, e); /* nothing when not up yet: tp_tcp_conn_up writes it */
    tp_tcp_ep_unlock(s, e);
    return rc;
}

static void handle_ctrl(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const tp_tcp_frame_t *f)
{
    int type = tp_tcp_ctrl_decode(f->hdr, f->hdr_len, f->len, core_proc_uid(s->rt, c->peer),
                                  core_proc_uid(s->rt, s->rt->rank));
    if (type < 0) {
        protocol_error(s, c, "a malformed control frame"); /* uids as in the handshake */
        return;
    }
    if (type != TP_TCP_BYE) {
        /* A shm bridge between two jobs of one run (docs/dynamic.md): never within one job,
         * whose ranks share the job's segment. */
        if (c->peer < s->rt->size) {
            protocol_error(s, c, "a shm bridge message from a rank of our own job");
            return;
        }
        if (!s->closing && !c->ep->gone)
            tp_ctrl_recv(&s->base, c->peer, ctrl_of_wire(type));
        return;
    }
    tp_tcp_ep_lock(s, c->ep);
    c->ep->bye_rcvd = 1;
    tp_tcp_ep_unlock(s, c->ep);
    /* A process of another job says goodbye in its MPI_Finalize (or it freed its last
     * connection to us) while we may go on for long: it waits for our goodbye, so it is
     * answered now, from progress, not at our own finalize. Nothing more goes to it
     * (tcp_am_send refuses). Our own job's ranks say goodbye only past the barrier of a
     * finalize we are in too: they get ours from the drain. */
    if (c->peer >= s->rt->size && !c->ep->bye_sent)
        tp_tcp_ep_bye(s, c->ep);
    if (c->peer >= s->rt->size)
        tp_peer_lost(&s->base, c->peer);
}

/* A connected peer sent something malformed: the connection is closed and its endpoint
 * takes no more traffic (nothing is read from it again), then the failure is reported.
 * id: the frame's handler id, or TP_TCP_CTRL_ID for a broken frame header (why says
 * what). */
static void peer_malformed(tp_tcp_iface_t *s, tp_tcp_conn_t *c, unsigned id, int rc,
                           const char *why)
{
    int peer = c->peer;
    tp_tcp_ep_t *e = c->ep;
    if (e) {
        tp_tcp_ep_lock(s, e);
        e->gone = 1;
        tp_tcp_conn_kill(s, c);
        tp_tcp_ep_unlock(s, e);
    } else {
        tp_tcp_conn_kill(s, c);
    }
    if (id == TP_TCP_CTRL_ID)
        core_wire_fail(s->rt, peer, "tcp", "frame", why);
    else
        tp_am_refused(&s->base, peer, id, rc);
}

/* The frame header at the start of c's unparsed bytes is malformed. */
static void frame_error(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    if (c->state != TP_TCP_UP) {
        protocol_error(s, c, "a malformed frame header");
        return;
    }
    tp_tcp_frame_hdr_t fh;
    char why[160];
    memcpy(&fh, c->rx.buf + c->rx.start, sizeof(fh));
    snprintf(why, sizeof(why), "frame header for handler id %u with a %u-byte header and a "
             "%u-byte payload (at most %zu and %zu)", (unsigned)fh.id, (unsigned)fh.hdr_len,
             (unsigned)fh.len, c->rx.max_hdr, c->rx.max_len);
    peer_malformed(s, c, TP_TCP_CTRL_ID, CORE_EPROTO, why);
}

/* Handles the complete frames in c's buffer; returns how many. */
static int parse(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    int n = 0, rc;
    tp_tcp_frame_t f;
    while (c->state != TP_TCP_DEAD && (rc = tp_tcp_rx_next(&c->rx, &f)) == 1) {
        n++;
        if (f.id == TP_TCP_CTRL_ID) {
            handle_ctrl(s, c, &f);
        } else if (c->state != TP_TCP_UP) {
            protocol_error(s, c, "a malformed frame");
        } else if (!s->closing) {
            int hrc = tp_am_dispatch(s->base.am, f.id, c->peer, f.hdr, f.hdr_len, f.payload, f.len);
            if (hrc)
                peer_malformed(s, c, f.id, hrc, NULL);
        }
    }
    if (c->state != TP_TCP_DEAD && rc < 0)
        frame_error(s, c);
    return n;
}

/* Whether the pending frame's payload is read to its handler's place (tp_am_place_t): asks
 * the handler once the frame's headers are in. */
static int placed(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    tp_tcp_frame_t f;
    size_t got;
    if (c->rx.dst)
        return 1;
    if (c->state != TP_TCP_UP || s->closing || !tp_tcp_rx_direct(&c->rx, &f, &got))
        return 0;
    const tp_am_entry_t *e = &s->base.am[f.id];
    tp_tcp_rx_place(&c->rx, e->place(e->arg, c->peer, f.hdr, f.hdr_len, f.len));
    return c->rx.dst != NULL;
}

/* Reads the rest of a placed payload; returns the bytes read (0: none now, the connection
 * may have ended), and hands the frame over once all of it is in. */
static size_t read_placed(tp_tcp_iface_t *s, tp_tcp_conn_t *c, int *events)
{
    struct iovec iov[2];
    struct msghdr mh = { .msg_iov = iov };
    mh.msg_iovlen = (size_t)tp_tcp_rx_direct_iov(&c->rx, iov);
    ssize_t r = recvmsg(c->fd, &mh, MSG_DONTWAIT);
    if (r <= 0) {
        if (r == 0)
            tp_tcp_conn_lost(s, c, 0);
        else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            tp_tcp_conn_lost(s, c, errno);
        return 0;
    }
    if (tp_tcp_rx_direct_commit(&c->rx, (size_t)r)) {
        tp_tcp_frame_t f;
        tp_tcp_rx_direct_take(&c->rx, &f);
        const tp_am_entry_t *e = &s->base.am[f.id];
        int hrc = s->closing ? 0 : e->piece(e->arg, c->peer, f.hdr, f.hdr_len, 0, f.payload,
                                             f.len, f.len);
        if (hrc)
            peer_malformed(s, c, f.id, hrc, NULL);
        (*events)++;
    }
    return (size_t)r;
}

int tp_tcp_conn_readable(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    int events = 0;
    if (c->state == TP_TCP_AUTH) {
        tp_tcp_hs_readable(s, c);
        return 1;
    }
    for (int k = 0; k < READS_PER_CALL && c->state != TP_TCP_DEAD; k++) {
        void *p;
        size_t room;
        if (placed(s, c)) {
            if (read_placed(s, c, &events) == 0 || c->rx.dst)
                break; /* the socket has no more now */
            continue;
        }
        int rc = tp_tcp_rx_space(&c->rx, &p, &room);
        if (rc == CORE_ENOMEM)
            core_fatal("tcp: out of memory receiving from rank %d", c->peer);
        if (rc) {
            frame_error(s, c);
            break;
        }
        ssize_t r = recv(c->fd, p, room, MSG_DONTWAIT);
        if (r > 0) {
            tp_tcp_rx_commit(&c->rx, (size_t)r);
            events += parse(s, c);
            if ((size_t)r < room)
                break;
        } else if (r == 0) {
            tp_tcp_conn_lost(s, c, 0);
            break;
        } else if (errno != EINTR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                tp_tcp_conn_lost(s, c, errno);
            break;
        }
    }
    return events;
}

void tp_tcp_conn_writable(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    if (c->state == TP_TCP_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err)
            tp_tcp_conn_lost(s, c, err);
        else
            tp_tcp_hs_connected(s, c);
    } else if (c->state == TP_TCP_UP) {
        tp_tcp_ep_write(s, c->ep);
    }
}
