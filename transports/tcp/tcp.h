/*
 * Internal declarations of the tcp transport, shared by its files:
 * tcp_frame.c (frames, send queue, reassembly: pure code), tcp_auth.c (the
 * connection handshake's messages: pure code), tcp_addr.c (which address to
 * listen on, address strings), tcp_conn.c (sockets, reading and writing,
 * lost connections), tcp_hs.c (accepting, and the handshake on a socket)
 * and tcp_iface.c (the component, active messages, progress, close).
 *
 * One connection per pair of ranks, made on first use by either side. A
 * connection carries frames only after the handshake of tcp_auth.h: both
 * sides prove they hold the job key, and until then a connection we
 * accepted is bound to no rank, holds at most one fixed-size handshake
 * message, dies at a deadline, and counts against a cap on such
 * connections. Both may connect at once; the connection the lower rank
 * made wins (the acceptor decides once the connector has proven itself, and
 * answers ACCEPT or REJECT); nothing else is written on a connection until
 * it is accepted, so no frame is ever sent on a losing connection. At
 * finalize every connection ends with BYE in both directions, so an end of
 * stream without BYE means the peer is gone. Messages to ourselves (only
 * when RDMPI_TRANSPORTS leaves out self) take a socket pair, already up,
 * whose two ends serve the same endpoint.
 */
#ifndef RDMPI_TP_TCP_H
#define RDMPI_TP_TCP_H

#include <netinet/in.h>
#include <stdint.h>
#include "core/runtime.h"
#include "core/procs.h"
#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_frame.h"
#include "transports/transport.h"

#define TP_TCP_MAX_AM_HDR 256
#define TP_TCP_KEY_ADDR CORE_KEY_TCP_ADDR /* core/procs.h: given to other runs too */

/* Unauthenticated connections we accepted: each must finish the handshake
 * within this many seconds, and past this many (or the job's size, if
 * larger: everyone may connect to us at once) the oldest is dropped for a
 * new one. */
#define TP_TCP_AUTH_TIMEOUT 5.0
#define TP_TCP_AUTH_MAX_PENDING 64
/* Handshakes in a row our peer may end before we give up on reaching it (a
 * peer drops a handshake that is too slow, or too many at once). */
#define TP_TCP_AUTH_RETRIES 8


enum tp_tcp_conn_state {
    TP_TCP_CONNECTING, /* our connect() is under way */
    TP_TCP_AUTH,       /* the handshake is under way (auth says which side and step) */
    TP_TCP_UP,         /* carries frames of ep */
    TP_TCP_DEAD,       /* closed; freed at the end of progress */
};

typedef struct tp_tcp_ep tp_tcp_ep_t;
typedef struct tp_tcp_iface tp_tcp_iface_t;

/* The settings (tcp_config.c). */
typedef struct tp_tcp_config {
    char tcp_if[128];           /* RDMPI_TCP_IF: interfaces or CIDRs ("": first non-loopback) */
    size_t tcp_eager_limit;     /* RDMPI_TCP_EAGER_LIMIT */
    size_t tcp_queue_limit;     /* RDMPI_TCP_QUEUE_LIMIT: queued bytes per peer before busy */
    size_t tcp_sockbuf;         /* RDMPI_TCP_SOCKBUF: SO_SNDBUF/SO_RCVBUF (0: autotuned) */
} tp_tcp_config_t;
extern const core_config_group_t tp_tcp_config_group;

typedef struct tp_tcp_conn {
    int fd;
    enum tp_tcp_conn_state state;
    int peer;        /* world rank; -1 until an accepted connection proved who it is */
    tp_tcp_ep_t *ep; /* the endpoint it serves or tries to */
    uint32_t events; /* registered with epoll */
    tp_tcp_rx_t rx;  /* frames, once up */
    /* The handshake: what the peer sent of the message due (never more), and
     * for connections we accepted, until they prove membership: */
    tp_tcp_auth_t auth;
    uint8_t hs[TP_TCP_AUTH_MSG];
    size_t hs_have;
    int pending;          /* accepted and not yet authenticated: counted in npending */
    double deadline;      /* when a pending connection is dropped */
    char from[48];        /* the address it came from, "ip:port", for the log */
    int bridge;           /* accepted from another run: the bridge whose key it proved */
    struct tp_tcp_conn *next; /* in the interface's list */
} tp_tcp_conn_t;

struct tp_tcp_ep {
    tp_ep_t base;
    tp_tcp_conn_t *conn;    /* the connection, once up */
    tp_tcp_conn_t *attempt; /* our own connection, until accepted or superseded */
    tp_tcp_txq_t txq;       /* frames not yet written, in order */
    /* After txq: the end of a large payload am_send_hold left in the caller's buffer, then
     * its frame's padding (zero bytes); nothing is queued behind them (tp_tcp_ep_holds). */
    const char *held;
    size_t held_len, held_pad;
    int bye_sent, bye_rcvd;
    int gone;               /* the connection ended after BYE: drop further sends */
    int retries;            /* handshakes the peer ended in a row (TP_TCP_AUTH_RETRIES) */
    int blocked;            /* am_send said busy: epoll watches for room, so that a rank
                               asleep until its send can go on is woken (tcp_arm) */
    unsigned post_pass;     /* the interface's progress passes at our latest am_post */
    unsigned post_run;      /* am_posts since then (tcp_iface.c: TCP_POST_ALONE) */
    double last_post;       /* core_wtime of the latest am_post (TCP_POST_GAP) */
};

struct tp_tcp_iface {
    tp_iface_t base;
    core_runtime_t *rt;
    const tp_tcp_config_t *cfg;
    int epfd, listen_fd;
    struct sockaddr_in addr;  /* where we listen */
    char addr_str[64];        /* "ip:port", published */
    uint8_t auth_key[CORE_KEY_LEN]; /* tcp_auth.h: derived from the job key */
    uint8_t bridge_keys[CORE_BRIDGES][CORE_KEY_LEN]; /* derived from the runtime's bridges */
    int nbridge_keys;         /* derived so far (rt->nbridges grows on accept/connect) */
    tp_tcp_ep_t **eps;        /* by world rank, created on first use (by either side) */
    tp_tcp_conn_t *conns;     /* every connection, dead ones until progress frees them */
    int nconn;                /* live connections */
    unsigned passes;          /* tcp_progress calls (wraps): am_post counts bursts by them */
    int ndead;                /* dead ones, waiting for tp_tcp_reap */
    tp_tcp_conn_t *single;    /* the only live connection, when it is up */
    size_t queue_limit;       /* queued bytes per peer before am_send says busy */
    size_t sockbuf;           /* SO_SNDBUF/SO_RCVBUF, 0: the kernel's autotuning */
    int closing;              /* in close: frames are no longer dispatched */
    int finishing;            /* in MPI_Finalize's drain, past its barrier: no message of the
                                 application is still to arrive, so a peer that refuses a
                                 connection has left (tp_tcp_conn_lost) */
    unsigned poll_skip;
    unsigned polls;           /* progress calls, for how often control_only is looked at */
    int quiet;                /* every connection carries only control messages (tcp_iface.c) */
    int npending;             /* accepted connections not yet authenticated */
    int max_pending;          /* the cap on them */
    double listen_resume;     /* accept failed for want of descriptors: paused until then */
    unsigned refusals;        /* failed handshakes so far (the log is capped) */
    unsigned drops;           /* pending connections that sent nothing, dropped */
    unsigned pauses;          /* times accept ran out of descriptors */
};

static inline tp_tcp_iface_t *tp_tcp_iface(tp_iface_t *iface)
{
    return (tp_tcp_iface_t *)iface; /* base is the first member */
}

/* Whether e still sends a held payload's end (or its padding): nothing may be queued now. */
static inline int tp_tcp_ep_holds(const tp_tcp_ep_t *e)
{
    return e->held_len || e->held_pad;
}

/* Bytes accepted for e's peer and not yet written. */
static inline size_t tp_tcp_ep_unsent(const tp_tcp_ep_t *e)
{
    return tp_tcp_txq_bytes(&e->txq) + e->held_len + e->held_pad;
}

/* tcp_addr.c */
/* Chooses the IPv4 address to listen on from spec (RDMPI_TCP_IF: interface
 * names, addresses or CIDRs, comma separated; empty: the first non-loopback
 * interface that is up, else loopback). */
int tp_tcp_pick_addr(const char *spec, struct in_addr *out, char *ifname, size_t ifname_len);
/* Parses "a.b.c.d/len" (or a bare address, /32). 0 or CORE_EINVAL. */
int tp_tcp_parse_cidr(const char *s, uint32_t *net, uint32_t *mask);
/* Parses "a.b.c.d:port". 0 or CORE_EINVAL. */
int tp_tcp_parse_hostport(const char *s, struct sockaddr_in *sa);

/* tcp_conn.c */
int tp_tcp_listen(tp_tcp_iface_t *s);
/* Starts our connection to e's peer. */
int tp_tcp_connect(tp_tcp_iface_t *s, tp_tcp_ep_t *e);
/* Connects e, the endpoint to ourselves, through a socket pair. */
int tp_tcp_connect_self(tp_tcp_iface_t *s, tp_tcp_ep_t *e);
/* A new connection on fd, registered with epoll; NULL (fd untouched) on failure. */
tp_tcp_conn_t *tp_tcp_conn_new(tp_tcp_iface_t *s, int fd, enum tp_tcp_conn_state state, int peer);
/* c carries frames for e from now on; what e queued meanwhile follows. */
void tp_tcp_conn_up(tp_tcp_iface_t *s, tp_tcp_conn_t *c, tp_tcp_ep_t *e);
/* A connection ended (err 0: end of stream) or failed. */
void tp_tcp_conn_lost(tp_tcp_iface_t *s, tp_tcp_conn_t *c, int err);
/* Handles readiness of c; returns the active messages it dispatched. */
int tp_tcp_conn_readable(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
void tp_tcp_conn_writable(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
/* Writes what e has queued (and held); returns how many bytes the socket took. */
size_t tp_tcp_ep_write(tp_tcp_iface_t *s, tp_tcp_ep_t *e);
/* Copies what e holds into its queue (something must be queued behind it). 0 or CORE_ENOMEM. */
int tp_tcp_ep_unhold(tp_tcp_ep_t *e);
/* Drops whatever e still had to send (its peer is gone). */
void tp_tcp_ep_drop(tp_tcp_ep_t *e);
/* The socket of e said a write failed with err (an errno). */
void tp_tcp_write_failed(tp_tcp_iface_t *s, tp_tcp_ep_t *e, int err);
/* Asks epoll for writability of an up connection exactly while it has a queue. */
void tp_tcp_conn_watch(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
/* Queues our BYE to e's peer after what is queued, once (when e is up). */
void tp_tcp_ep_bye(tp_tcp_iface_t *s, tp_tcp_ep_t *e);
void tp_tcp_conn_kill(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
/* Queues a control message of the layer (TP_CTRL_SHM_*, transport.h) to e's peer. */
int tp_tcp_ctrl_queue(tp_tcp_iface_t *s, tp_tcp_ep_t *e, unsigned type);
void tp_tcp_reap(tp_tcp_iface_t *s);
tp_tcp_ep_t *tp_tcp_ep_new(tp_tcp_iface_t *s, int peer);

/* tcp_hs.c */
/* Our connect() completed: sends HELLO. */
void tp_tcp_hs_connected(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
/* Accepts what the listener has, as pending connections. */
void tp_tcp_accept_all(tp_tcp_iface_t *s);
/* Reads the handshake of c as far as the socket has it. */
void tp_tcp_hs_readable(tp_tcp_iface_t *s, tp_tcp_conn_t *c);
/* Drops pending connections past their deadline and resumes a paused listener. */
void tp_tcp_hs_timers(tp_tcp_iface_t *s);
/* A connection of ours in the handshake ended: tries again, a few times. */
void tp_tcp_hs_retry(tp_tcp_iface_t *s, tp_tcp_conn_t *c, const char *why);
/* At close: how many connections were refused or dropped, if not all were reported. */
void tp_tcp_hs_summary(tp_tcp_iface_t *s);

/* S(peer) of e's peer (transport.h): around everything that touches e's send side (its
 * queue, `conn`, `gone`, `blocked`, the connection's socket writes and epoll watch) from
 * progress, since under MULTIPLE a thread outside G may be in tcp_am_send for that peer.
 * Recursive: a write under it may find the connection lost and close it. No-ops without
 * MULTIPLE and for processes of other jobs (only the thread holding G reaches those). */
static inline void tp_tcp_ep_lock(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    tp_send_lock(s->base.layer, e->base.peer);
}
static inline void tp_tcp_ep_unlock(tp_tcp_iface_t *s, tp_tcp_ep_t *e)
{
    tp_send_unlock(s->base.layer, e->base.peer);
}

#endif
