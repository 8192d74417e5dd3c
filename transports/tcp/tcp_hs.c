/*
 * The tcp handshake on a socket (messages and checks: tcp_auth.c) and the
 * listener's side of it: accepting connections, and keeping those that have
 * not proven membership of the job cheap and short-lived.
 *
 * Anyone who can reach our port can connect, so until a connection we
 * accepted has proven itself it is bound to no rank and dispatches nothing;
 * we read at most one handshake message from it (TP_TCP_AUTH_MSG bytes,
 * into the connection itself: no buffer grows), it is dropped at a deadline
 * (TP_TCP_AUTH_TIMEOUT), and past a cap on such connections the oldest is
 * dropped for each new one, so a flood costs a bounded number of
 * descriptors. When accept runs out of descriptors the listener is paused
 * for a moment rather than polled in a loop. A failed handshake is logged
 * once per connection with its address and why (up to a cap, so a flood
 * cannot fill the log), and the job goes on.
 *
 * Our own connections are to addresses the job's ranks published through
 * PMIx; a peer that fails the handshake there cannot be reached at all, so
 * that ends the job. A peer may drop our handshake (too slow, or too many
 * at once): we try again a few times.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "core/log.h"
#include "core/procs.h"
#include "core/runtime.h"
#include "core/procs.h"
#include "transports/tcp/tcp.h"

#define REFUSALS_LOGGED 20    /* failed handshakes logged at warn level, then debug */
#define LISTEN_PAUSE 0.1      /* seconds the listener rests when out of descriptors */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes one handshake message, whole: neither side has more than one
 * unanswered message out, so the socket buffer always has room. Returns 0
 * or an errno. */
static int send_msg(tp_tcp_conn_t *c, const uint8_t msg[TP_TCP_AUTH_MSG])
{
    ssize_t w;
    do
        w = send(c->fd, msg, TP_TCP_AUTH_MSG, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w == TP_TCP_AUTH_MSG)
        return 0;
    return w < 0 ? errno : EAGAIN;
}

/* A connection we accepted failed the handshake (or sent no handshake): say
 * so once, with where it came from, and close it. */
static void refuse(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *why)
{
    if (s->refusals < REFUSALS_LOGGED) {
        core_warn("tcp: refused a connection from %s: %s", c->from, why);
    } else {
        if (s->refusals == REFUSALS_LOGGED)
            core_warn("tcp: refusing more connections; no longer reporting each one");
        core_debug("tcp: refused a connection from %s: %s", c->from, why);
    }
    s->refusals++;
    tp_tcp_conn_kill(s, c);
}

/* The handshake key of bridge b (core/procs.h), derived on first use. */
static const uint8_t *bridge_key(tp_tcp_iface_t *s, int b)
{
    for (; s->nbridge_keys < s->rt->nbridges; s->nbridge_keys++)
        tp_tcp_auth_key(s->rt->bridges[s->nbridge_keys].key, s->bridge_keys[s->nbridge_keys]);
    return b >= 0 && b < s->nbridge_keys ? s->bridge_keys[b] : NULL;
}

void tp_tcp_hs_connected(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    uint8_t msg[TP_TCP_AUTH_MSG];
    /* The handshake names processes by uid (core/procs.h), so a rank of another job
     * spawned or connected by the same launcher is told apart from ours. A process of
     * another run proves the bridge key both runs' roots agreed instead of the job key. */
    const struct core_proc *f = core_proc_foreign(s->rt, c->peer);
    const uint8_t *key = f ? bridge_key(s, f->bridge) : s->auth_key;
    if (!key) {
        tp_tcp_conn_lost(s, c, EINVAL);
        return;
    }
    tp_tcp_auth_connect(&c->auth, key, core_proc_uid(s->rt, s->rt->rank), CORE_UID_MAX,
                        core_proc_uid(s->rt, c->peer), msg);
    if (f)
        tp_tcp_auth_mark_bridge(&c->auth, msg);
    c->state = TP_TCP_AUTH;
    c->hs_have = 0;
    int err = send_msg(c, msg);
    if (err) {
        tp_tcp_conn_lost(s, c, err);
        return;
    }
    tp_tcp_conn_watch(s, c);
}

void tp_tcp_hs_retry(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *why)
{
    tp_tcp_ep_t *e = c->ep;
    int peer = c->peer;
    tp_tcp_conn_kill(s, c);
    if (++e->retries > TP_TCP_AUTH_RETRIES)
        core_fatal("tcp: cannot connect to rank %d on %s: it ended %d handshakes in a row (%s)",
                   peer, core_rank_host(s->rt, peer), e->retries, why);
    if (e->conn)
        return; /* the peer's own connection came up meanwhile */
    core_debug("tcp: rank %d ended our handshake (%s): connecting again", peer, why);
    int rc = tp_tcp_connect(s, e);
    if (rc)
        core_fatal("tcp: cannot connect to rank %d on %s again", peer,
                   core_rank_host(s->rt, peer));
}

/* The acceptor's decision once the peer proved membership: keep this
 * connection unless one to that peer is up already or our own connection to
 * it wins (ours, when we are the lower rank). The loser carried no frame. */
static void decide(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    int uid = c->auth.peer, me = core_proc_uid(s->rt, s->rt->rank);
    uint64_t run = c->auth.bridge ? s->rt->bridges[c->bridge].run : 0;
    /* of another run: only a process its root reported (a holder of the bridge key could
     * claim any uid, but not one of a run it shares no key with) */
    int peer = run ? core_proc_of_ruid(s->rt, run, uid) : core_proc_of_uid(s->rt, uid);
    /* Which of two simultaneous connections stays: the one of the lower process, by uid
     * within one run, by run id first between two (their uids may be equal). */
    uint64_t mine = core_run_id(s->rt);
    int peer_higher = run ? run > mine : uid > me;
    uint8_t msg[TP_TCP_AUTH_MSG];
    if (peer < 0) { /* a proven member of the launcher's jobs, but more than we can know */
        if (run)
            core_warn("tcp: refusing process %d of run %016llx: not a process its root "
                      "reported to ours", uid, (unsigned long long)run);
        else
            core_warn("tcp: refusing process %d of another job: %s", uid, core_strerror(peer));
        tp_tcp_auth_verdict(&c->auth, 0, msg);
        send_msg(c, msg);
        tp_tcp_conn_kill(s, c);
        return;
    }
    tp_tcp_ep_t *e = s->eps[peer];
    if (!e && !(e = tp_tcp_ep_new(s, peer)))
        core_fatal("tcp: out of memory accepting rank %d", peer);
    c->peer = peer;
    if (c->pending) { /* authenticated: no longer under the deadline or the cap */
        c->pending = 0;
        s->npending--;
    }
    if (e->conn || (e->attempt && peer_higher)) {
        core_debug("tcp: refusing a second connection from rank %d", peer);
        tp_tcp_auth_verdict(&c->auth, 0, msg);
        send_msg(c, msg); /* its sender may have dropped it already */
        tp_tcp_conn_kill(s, c);
        return;
    }
    if (e->attempt)
        tp_tcp_conn_kill(s, e->attempt); /* never accepted: it carried no frame */
    tp_tcp_auth_verdict(&c->auth, 1, msg);
    int err = send_msg(c, msg);
    if (err)
        core_fatal("tcp: cannot answer rank %d on %s: %s", peer, core_rank_host(s->rt, peer),
                   strerror(err));
    tp_tcp_conn_up(s, c, e);
}

/* The handshake on c failed: a peer at an address the job published (ours
 * to a rank) cannot be reached at all; one that connected to us is refused. */
static void failed(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *why)
{
    if (c->auth.connector)
        core_fatal("tcp: rank %d on %s failed the connection handshake: %s", c->peer,
                   core_rank_host(s->rt, c->peer), why);
    refuse(s, c, why);
}

/* A whole handshake message is in c->hs: act on it. */
static void step(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    uint8_t out[TP_TCP_AUTH_MSG];
    int rc = tp_tcp_auth_recv(&c->auth, c->hs, sizeof(c->hs), out);
    c->hs_have = 0;
    if (rc < 0) {
        failed(s, c, c->auth.why);
        return;
    }
    switch (rc) {
    case TP_TCP_AUTH_SEND: {
        int err = send_msg(c, out);
        if (err)
            tp_tcp_conn_lost(s, c, err);
        return;
    }
    case TP_TCP_AUTH_DECIDE:
        decide(s, c);
        return;
    case TP_TCP_AUTH_WHICH: /* keyed by a bridge: which of ours, if any */
        for (int b = 0; bridge_key(s, b); b++)
            if (tp_tcp_auth_prove(&c->auth, bridge_key(s, b), c->hs)) {
                c->bridge = b;
                decide(s, c);
                return;
            }
        failed(s, c, "a wrong proof of a bridge key (not a process of a run ours connected "
                     "with)");
        return;
    case TP_TCP_AUTH_UP:
        tp_tcp_conn_up(s, c, c->ep);
        return;
    default: /* TP_TCP_AUTH_REJECTED: the peer's own connection is on its way */
        c->ep->retries = 0;
        tp_tcp_conn_kill(s, c);
        return;
    }
}

/* Reads exactly the rest of the message due, never into the frames that may
 * follow an ACCEPT: those stay in the socket for the frame reader. */
void tp_tcp_hs_readable(tp_tcp_iface_t *s, tp_tcp_conn_t *c)
{
    while (c->state == TP_TCP_AUTH) {
        ssize_t r = recv(c->fd, c->hs + c->hs_have, sizeof(c->hs) - c->hs_have, MSG_DONTWAIT);
        if (r > 0) {
            c->hs_have += (size_t)r;
            if (c->hs_have == sizeof(c->hs)) {
                step(s, c);
            } else if (!tp_tcp_auth_plausible(c->hs, c->hs_have)) {
                failed(s, c, "no handshake (not an rdmpi tcp peer)");
            }
        } else if (r == 0) {
            if (c->hs_have && !c->auth.connector) {
                refuse(s, c, "a handshake message cut short");
                return;
            }
            tp_tcp_conn_lost(s, c, 0);
            return;
        } else if (errno != EINTR) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                tp_tcp_conn_lost(s, c, errno);
            return;
        }
    }
}

/* The pending connection accepted longest ago (the list is newest first). */
static tp_tcp_conn_t *oldest_pending(tp_tcp_iface_t *s)
{
    tp_tcp_conn_t *old = NULL;
    for (tp_tcp_conn_t *c = s->conns; c; c = c->next)
        if (c->pending)
            old = c;
    return old;
}

/* Drops a pending connection that never sent a byte (a port scan, a flood,
 * or a peer too slow): a flood would fill the log with these, so only the
 * first is reported, and close says how many there were. */
static void drop_silent(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *why)
{
    if (!s->drops++)
        core_warn("tcp: dropped a connection from %s that sent nothing: %s (more such drops "
                  "are counted, not reported)", c->from, why);
    else
        core_debug("tcp: dropped a connection from %s that sent nothing: %s", c->from, why);
    tp_tcp_conn_kill(s, c);
}

/* Makes room by dropping the oldest pending connection. */
static void drop_oldest(tp_tcp_iface_t *s, const char *why)
{
    tp_tcp_conn_t *c = oldest_pending(s);
    if (c->auth.peer < 0 && c->hs_have == 0)
        drop_silent(s, c, why);
    else
        refuse(s, c, why);
}

static void set_listening(tp_tcp_iface_t *s, int on)
{
    struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = NULL };
    if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->listen_fd, &ev) != 0)
        core_fatal("tcp: epoll_ctl(MOD) for the listener: %s", strerror(errno));
}

static void add_pending(tp_tcp_iface_t *s, int fd, const struct sockaddr_in *sa)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    tp_tcp_conn_t *c = tp_tcp_conn_new(s, fd, TP_TCP_AUTH, -1);
    if (!c) {
        close(fd);
        return;
    }
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip));
    snprintf(c->from, sizeof(c->from), "%s:%u", ip, (unsigned)ntohs(sa->sin_port));
    tp_tcp_auth_accept(&c->auth, s->auth_key, core_proc_uid(s->rt, s->rt->rank), CORE_UID_MAX);
    c->pending = 1;
    c->deadline = now() + TP_TCP_AUTH_TIMEOUT;
    s->npending++;
}

void tp_tcp_accept_all(tp_tcp_iface_t *s)
{
    int freed = 0;
    for (;;) {
        struct sockaddr_in sa;
        socklen_t len = sizeof(sa);
        memset(&sa, 0, sizeof(sa));
        int fd = accept4(s->listen_fd, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == EINTR || err == ECONNABORTED)
                continue;
            if (err == EAGAIN || err == EWOULDBLOCK)
                return;
            if ((err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) && !freed &&
                s->npending) {
                /* Out of descriptors: a connection that has proven nothing makes room. */
                drop_oldest(s, "out of file descriptors: dropping the oldest unproven connection");
                freed = 1;
                continue;
            }
            /* The connection stays in the backlog; polling the listener now would spin. */
            if (!s->pauses++)
                core_warn("tcp: accept: %s; not accepting for %.1f s (and again as needed, "
                          "without a report)", strerror(err), LISTEN_PAUSE);
            else
                core_debug("tcp: accept: %s; not accepting for %.1f s", strerror(err),
                           LISTEN_PAUSE);
            set_listening(s, 0);
            s->listen_resume = now() + LISTEN_PAUSE;
            return;
        }
        if (s->npending >= s->max_pending)
            drop_oldest(s, "too many unauthenticated connections: dropping the oldest");
        add_pending(s, fd, &sa);
    }
}

void tp_tcp_hs_timers(tp_tcp_iface_t *s)
{
    double t = now();
    if (s->listen_resume > 0 && t >= s->listen_resume) {
        s->listen_resume = 0;
        set_listening(s, 1);
    }
    if (!s->npending)
        return;
    for (tp_tcp_conn_t *c = s->conns; c; c = c->next) {
        if (!c->pending || t <= c->deadline)
            continue;
        if (c->auth.peer < 0 && c->hs_have == 0)
            drop_silent(s, c, "no handshake in time");
        else
            refuse(s, c, c->auth.peer < 0 ? "no complete handshake in time"
                                           : "no proof of the job key in time");
    }
}

void tp_tcp_hs_summary(tp_tcp_iface_t *s)
{
    unsigned unreported = s->drops - (s->drops > 0) +
                          (s->refusals > REFUSALS_LOGGED ? s->refusals - REFUSALS_LOGGED : 0);
    if (unreported)
        core_warn("tcp: refused %u connections that failed the handshake and dropped %u that "
                  "sent nothing", s->refusals, s->drops);
}
