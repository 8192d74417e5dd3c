/*
 * The transport interface: the only thing p2p sees of a network.
 *
 * A transport moves active messages (handler id, header, payload) reliably
 * and in order per peer, and, where its caps say so, reads and writes
 * registered remote memory. It never sees tags, communicators or datatypes.
 *
 * Completion contract (all operations):
 *   0                 done: buffers may be reused, no completion will fire;
 *   CORE_INPROGRESS   accepted: comp->done fires exactly once, later, from
 *                     inside the transport's progress;
 *   CORE_EBUSY        nothing happened (no queue space or credits): retry
 *                     after progress;
 *   other negative    failed: the completion never fires.
 *
 * Active-message handlers run from inside progress. They receive pointers
 * that are valid only during the call; a handler may call am_send (which may
 * say CORE_EBUSY) but never progress.
 *
 * Everything a handler is given comes from a peer and is checked before use
 * (lengths, ids, offsets, ranks). A handler returns 0, or a negative CORE_E*
 * code (CORE_EPROTO, with core_wire_reject's reason) when it refuses the
 * message as malformed: the transport then takes nothing more from that peer
 * and calls core_wire_fail (see core/runtime.h). The transport checks what it
 * decodes itself (its frame, packet or slot headers) the same way.
 */
#ifndef RDMPI_TRANSPORT_H
#define RDMPI_TRANSPORT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "core/config.h"
#include "core/count.h"
#include "core/errors.h"
#include "core/request.h"
#include "core/lock.h"
#include "core/thread.h"

struct core_runtime;
typedef struct tp_iface tp_iface_t;
typedef struct tp_ep tp_ep_t;
typedef struct tp_memh tp_memh_t; /* opaque, transport-defined */

/* Capability flags. Optional operations are gated by these, never by NULL. */
enum {
    TP_CAP_GET = 1u << 0, /* get() reads remote registered memory */
    TP_CAP_PUT = 1u << 1, /* put() writes remote registered memory */
    TP_CAP_WAIT = 1u << 2, /* arm() lets an idle rank sleep until something arrives */
    TP_CAP_ATOMIC = 1u << 3, /* atomic() on aligned 8-byte words of remote registered memory */
    TP_CAP_THREADS = 1u << 4, /* under MULTIPLE, am_send to a peer of this job may run outside
                                 the critical section G, holding only that peer's send lock
                                 (tp_send_lock), while another thread's progress runs: the
                                 producer side of the channel is the endpoint's alone */
    TP_CAP_AM_ZC = 1u << 5, /* am_send_zc() sends a payload from registered memory uncopied */
    TP_CAP_POLL_OUTSIDE = 1u << 6, /* under MULTIPLE, progress_outside() runs in passes of
                                 the engine P outside G (core_wait_req_outside): it touches
                                 only its channels' consumer side, calls only the handlers
                                 marked `outside` (tp_am_outside_ok), and leaves in the
                                 channel a message it may not handle there (CORE_EBUSY from
                                 the handler after core_cs_pass_defer) for a pass inside G */
};

/* What arm() tells the sleeping rank to wait on. */
typedef struct tp_arm {
    int fd;                 /* readable when something arrives; -1: none */
    _Atomic uint32_t *word; /* futex word, 1 while the rank sleeps; NULL: none */
    double max_sleep;       /* seconds, lowered by transports with timers */
} tp_arm_t;

/* The operations of atomic(). */
enum { TP_ATOMIC_FADD = 1, TP_ATOMIC_CSWAP };

/* eager_idle_limit's "nearly everything": a few control records (a rendezvous' FIN, pushed
 * just before the next send and not yet read) are no backlog. Counting them kept a 64 KiB
 * ping-pong in rendezvous for good once one reply had gone so (each FIN went out right
 * before the next send): 0-13 of 20 eager on a loaded host. */
#define TP_IDLE_BACKLOG 256

typedef struct tp_caps {
    size_t max_am_hdr;    /* largest header of an active message */
    size_t max_am;        /* largest payload of one active message */
    size_t max_inline;    /* payloads up to this are cheapest (informational) */
    size_t put_inline;    /* put() of at most this many bytes may pass lmemh NULL: the data
                             is copied into the request when it is posted, no registration
                             is read (the buffer must stay unchanged until the completion,
                             as for any put); 0: put() always needs lmemh */
    size_t eager_limit;   /* suggested largest eager message payload */
    size_t eager_idle_limit; /* larger messages up to this go eagerly too when the peer has
                                taken nearly everything sent on the endpoint (backlog() at
                                most TP_IDLE_BACKLOG): a lone message, whose receiver waits,
                                gains the round trip of a rendezvous; a stream (the channel
                                busy) keeps the rendezvous' single copy. 0: none (a
                                transport that sets it provides backlog) */
    size_t rndv_frag;     /* preferred chunk of the pipelined rendezvous over active
                             messages (at most max_am); 0: no preference */
    size_t max_rkey;      /* bytes rkey_pack writes at most */
    unsigned flags;       /* TP_CAP_* */
} tp_caps_t;

/* A completion: core's (requests embed one, core/request.h). */
typedef core_comp_t tp_comp_t;

/* id: 0..TP_AM_MAX-1; src: the sender's world rank. hdr need not be aligned: handlers copy
 * it. Returns 0, or a negative CORE_E* code: the message is refused (see above). */
typedef int (*tp_am_handler_t)(void *arg, int src, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len);
#define TP_AM_MAX 16

typedef struct tp_ops {
    void (*close)(tp_iface_t *iface);
    /* Creates the endpoint to a peer (world rank); called once per peer on first use. */
    int (*ep_create)(tp_iface_t *iface, int peer, tp_ep_t **ep_p);
    void (*ep_destroy)(tp_ep_t *ep);
    int (*am_send)(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len);
    /* Only with TP_CAP_AM_ZC: am_send whose payload (inside memh, from mem_reg) the device
     * reads where it lies, packet by packet, instead of a copy: CORE_INPROGRESS, and
     * comp->done fires once the peer has every packet and the device will read the payload
     * no more (it must stay unchanged and registered until then; status nonzero: the peer
     * was lost); 0 when it was copied after all (memh without a device registration, or
     * the peer on another path), as am_send; CORE_EBUSY as am_send. comp->done never fires
     * from inside the call. flags: TP_ZC_* */
    int (*am_send_zc)(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len, tp_memh_t *memh, tp_comp_t *comp,
                      unsigned flags);
    /* Like am_send, but the transport may keep reading the payload from the caller's buffer
     * after it returns (a socket that took part of the message sends the rest from there,
     * uncopied): then it returns 1, and the caller keeps those bytes unchanged while
     * am_held says the transport still reads them. NULL: the transport copies what it keeps
     * (am_send). */
    int (*am_send_hold)(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                        const void *payload, size_t len);
    /* Whether the transport still reads bytes of [buf, buf + len) that am_send_hold left it. */
    int (*am_held)(tp_ep_t *ep, const void *buf, size_t len);
    /* Like am_send, for a message that others may follow at once (a nonblocking send): the
     * transport may keep it (copied) to send it with the next ones in one write, and then
     * returns 1; it goes at the latest in the next progress, and flush(ep) says when it has.
     * NULL: am_send. */
    int (*am_post)(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len);
    int (*mem_reg)(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p);
    void (*mem_dereg)(tp_iface_t *iface, tp_memh_t *memh);
    /* Writes the remote key of memh into buf (at most caps.max_rkey bytes); returns its length. */
    size_t (*rkey_pack)(tp_iface_t *iface, tp_memh_t *memh, void *buf);
    /* Reads len bytes at the peer's raddr (described by rkey) into local. */
    int (*get)(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp);
    /* Writes len bytes from local to the peer's raddr. */
    int (*put)(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
               const void *rkey, tp_comp_t *comp);
    /* One atomic operation on the 8-byte word at the peer's raddr (8-byte aligned, in memory
     * registered with mem_reg, described by rkey), done by the network device without the
     * peer's CPU: TP_ATOMIC_FADD adds operand; TP_ATOMIC_CSWAP stores operand when the word
     * equals compare. *result (8 bytes inside the local registration lmemh) gets the word's
     * value before, as the device returns it (the caller checks the byte order once). Atomic
     * only with the same device's other atomic() calls on that word, never with CPU atomics
     * on it. CORE_EUNSUPPORTED: this peer cannot be reached with device atomics (no
     * connection that allows them); a completion may also report it, when the connection
     * was refused after the call. */
    int (*atomic)(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *result,
                  tp_memh_t *lmemh, uint64_t raddr, const void *rkey, tp_comp_t *comp);
    /* Polls for arrivals and completions; returns how many events it handled. NULL for a
     * transport whose work can only come from this process (self): it runs from a progress
     * hook it wakes itself, and idle polls skip it. */
    int (*progress)(void *iface);   /* a tp_iface_t (the progress engine's poller type) */
    /* Only with TP_CAP_POLL_OUTSIDE: progress in a pass of the engine outside G (see there). */
    int (*progress_outside)(void *iface);
    /* Only with TP_CAP_POLL_OUTSIDE, may be NULL: 1 while some peer has not yet taken
     * everything sent to it on this interface, 0 once all have (a hint, read outside G while
     * other threads send: the engine's holder hands P over sooner when its peers wait too). */
    int (*unread)(void *iface);
    /* The part of progress that finds completed gets, puts and atomics (and handles what
     * shares their queue), none of the rest (rings, timers, queued sends): the cheap poll of
     * a caller that busy-waits for such a completion; it must still call progress now and
     * then (tp_poll_comp does). NULL: progress is that cheap already. */
    int (*poll_comp)(tp_iface_t *iface);
    /* Returns 0 once everything sent on ep has been delivered, CORE_EBUSY until then. */
    int (*flush)(tp_ep_t *ep);
    /* Bytes sent on ep that the peer has not taken yet (NULL where eager_idle_limit is 0). */
    size_t (*backlog)(tp_ep_t *ep);
    /* Finalize, before any transport closes: sends what is still queued, says goodbye where
     * the transport has a goodbye, and returns 0 once nothing more is owed to or expected
     * from any peer, CORE_EBUSY until then. The runtime calls it again and again with every
     * transport's progress in between, until all of them return 0 or a deadline passes: a
     * peer that waits for our acks on one transport gets them while we wait on another.
     * Arriving messages are still handled. close() must cope with an unfinished drain.
     * NULL: nothing is ever owed at finalize. */
    int (*drain)(tp_iface_t *iface);
    /* Before an idle rank sleeps (only with TP_CAP_WAIT): returns 0 when nothing is pending,
     * with a->fd a descriptor that becomes readable as soon as anything arrives or completes
     * from now on, or a->word a futex word (shared memory) that a sender resets from 1 and
     * wakes when something arrives from now on (leave them -1 and NULL when nothing can
     * arrive unasked), after lowering a->max_sleep (seconds) if timers need a call to
     * progress sooner; CORE_EBUSY when there is work to do now (the caller polls again
     * instead of sleeping; a word set is then reset by the transport); CORE_EUNSUPPORTED
     * when it cannot wake a sleeper now (the caller yields instead). May run progress
     * itself. The caller stores 0 into a->word when it wakes. */
    int (*arm)(tp_iface_t *iface, tp_arm_t *a);
    /* Control messages one transport has another carry for it (shm's bridge offers over
     * tcp, docs/dynamic.md): ctrl_send queues TP_CTRL_* type to ep's peer after what is
     * queued (0, or a negative code: the peer is gone); ctrl_recv is told that peer sent
     * type (or, TP_CTRL_LOST, that the carrier lost peer). NULL: no such messages. */
    int (*ctrl_send)(tp_ep_t *ep, unsigned type);
    void (*ctrl_recv)(tp_iface_t *iface, int peer, unsigned type);
} tp_ops_t;

/* am_send_zc's flags. TP_ZC_WAITED: the caller waits for this completion (a message's last
 * chunk): the transport has the peer acknowledge it at once rather than when it suits. */
enum { TP_ZC_WAITED = 1u << 0 };

/* The control messages of ctrl_send/ctrl_recv. */
enum {
    TP_CTRL_SHM_OFFER = 1, /* the lower uid made the pair's bridge segment: attach */
    TP_CTRL_SHM_ACK,       /* attached: write */
    TP_CTRL_SHM_REFUSE,    /* no bridge for this pair: stay on the carrier */
    TP_CTRL_SHM_WANT,      /* the higher uid asks the lower one for an offer */
    TP_CTRL_LOST,          /* (local only) the carrier reports the peer lost */
};

/* What every interface counts (read by MPI_T performance variables through tp_layer_stats):
 * the wrappers below count what they hand to the transport (active messages with their
 * header and payload bytes, RDMA gets and puts); a transport with a reliability layer or a
 * registration cache counts those itself. */
/* Only uint64_t fields, bumped with core_count_add and read one by one (core/count.h). */
typedef struct tp_stats {
    uint64_t am_sent, am_bytes;      /* accepted by am_send (not refused as busy) */
    uint64_t rdma_ops, rdma_bytes;   /* gets and puts started */
    uint64_t resent;                 /* packets sent again (verbs UD retransmissions) */
    uint64_t rcache_hits, rcache_misses;
} tp_stats_t;

/* Base of every transport's interface object; embed it first. */
struct tp_iface {
    const tp_ops_t *ops;
    const char *name;
    tp_caps_t caps;
    tp_stats_t stats;
    struct core_runtime *rt;
    const struct tp_am_entry *am;  /* the layer's handler table (tp_layer_t.am), set at open */
    struct tp_layer *layer;        /* the layer that opened it (tp_peer_lost); NULL in tests */
    int other_jobs;                /* reaches processes of other jobs (tp_layer_open_dynamic) */
};

/* Base of every endpoint; embed it first. */
struct tp_ep {
    tp_iface_t *iface;
    int peer;
    const tp_caps_t *caps; /* this peer's limits where they are not the interface's (shm
                              bridges: single copy is probed per pair); NULL: iface->caps */
};

/* The limits that hold for messages to ep's peer. */
static inline const tp_caps_t *tp_ep_caps(const tp_ep_t *ep)
{
    return ep->caps ? ep->caps : &ep->iface->caps;
}

/* A transport module: compiled in, chosen at run time. */
typedef struct tp_component {
    const char *name;
    /* Reaches only ranks of this node (self, shm). When those serve every
     * peer of the job, network transports are not opened at all, so they
     * cost nothing (no polling) on a one-node job. */
    int node_local;
    /* Before the bootstrap fence: set up, publish an address with
     * core_boot_put. CORE_EUNSUPPORTED means "not usable here" (quietly). */
    int (*open)(struct core_runtime *rt, tp_iface_t **iface_p);
    /* After the fence: peers' published data may be read. */
    int (*ready)(tp_iface_t *iface);
    /* Whether this transport can reach peer (a process index, core/procs.h). */
    int (*reachable)(tp_iface_t *iface, int peer);
    /* Reaches processes of other jobs (spawned, parents, connected): opened for them
     * by tp_layer_open_dynamic even where the job's own ranks do not need it. */
    int other_jobs;
    /* Opens an interface (ready at once) for processes of other jobs only, where one that
     * serves the job's own ranks is separate (shm: bridges). NULL: open is used. */
    int (*open_dynamic)(struct core_runtime *rt, tp_iface_t **iface_p);
    /* reachable and ep_create may run for a rank of this job in a thread outside G (first
     * contact from a send outside G: tp_ep_get_outside), beside the transport's progress and
     * sends inside G and other threads' creations of other peers' endpoints. */
    int create_outside;
} tp_component_t;

/* Components in order of preference for a peer: self, shm, verbs, tcp. */
extern const tp_component_t *const tp_components[];

/* The layer's settings (transports/config.c). */
typedef struct tp_config {
    char transports[128];       /* RDMPI_TRANSPORTS: allowed transports, comma list */
} tp_config_t;
extern const core_config_group_t tp_config_group;
/* Registers the layer's and every transport's settings group. */
int tp_config_register(core_config_t *reg);

/* A handler's optional second form, for a message taken in pieces: the piece's n bytes at
 * offset off of the len-byte payload, with the message's whole header each time. A transport
 * that cuts a message into packets may, for an id that has one, call it once per packet as the
 * packets arrive, in order, the pieces covering the payload exactly once, instead of
 * reassembling the message to call cb: the payload is then copied once, from the packet to
 * where the handler puts it, not twice. */
typedef int (*tp_am_piece_t)(void *arg, int src, const void *hdr, size_t hdr_len, size_t off,
                             const void *data, size_t n, size_t len);

/* A handler's optional third form, for a transport that reads messages from a byte stream
 * (tcp): once a message's header is in, and before its len-byte payload is, where the whole
 * payload may be read to (len bytes the handler owns until it is told), or NULL (nowhere: the
 * transport takes the payload as usual). Given a place, the transport reads the payload there
 * and then calls piece (off 0, n and len the payload's length) with data pointing at the
 * place: the handler copies nothing, and the socket's bytes are copied once, not twice. It
 * checks what it is given as piece does, and answers NULL where piece would refuse the
 * message (piece then refuses it); a place it gave is within what piece accepts. */
typedef void *(*tp_am_place_t)(void *arg, int src, const void *hdr, size_t hdr_len, size_t len);

/* Handler table, filled by p2p before transports open. */
typedef struct tp_am_entry {
    tp_am_handler_t cb;
    void *arg;
    tp_am_piece_t piece; /* NULL: whole messages only */
    const char *name;    /* for reports: "CTS" */
    tp_am_place_t place; /* NULL: never read in place (needs piece) */
    int outside;         /* cb may run in a pass outside G (TP_CAP_POLL_OUTSIDE); it answers
                            CORE_EBUSY after core_cs_pass_defer for a message it cannot
                            handle there. 0: every message of this id waits for a pass in G */
} tp_am_entry_t;

/* Whether id names a handler of table am (an id from the wire is checked with this first). */
static inline int tp_am_valid(const tp_am_entry_t *am, unsigned id)
{
    return id < TP_AM_MAX && am[id].cb != NULL;
}

/* Calls the handler of id; an id out of range or without a handler is refused
 * (CORE_EPROTO) like a message its handler refuses. */
static inline int tp_am_dispatch(const tp_am_entry_t *am, unsigned id, int src, const void *hdr,
                                 size_t hdr_len, const void *payload, size_t len)
{
    if (!tp_am_valid(am, id))
        return CORE_EPROTO;
    return am[id].cb(am[id].arg, src, hdr, hdr_len, payload, len);
}

/* In a pass outside G (core_cs_pass_outside): whether id's handler may run there; if not,
 * the pass is told to end (core_cs_pass_defer) and the caller leaves the message in its
 * channel. */
static inline int tp_am_outside_ok(const tp_am_entry_t *am, unsigned id)
{
    if (id < TP_AM_MAX && am[id].outside)
        return 1;
    core_cs_pass_defer();
    return 0;
}

/* Reports the message (id) a handler or tp_am_dispatch refused (rc), from peer over
 * iface, through core_wire_fail: names the message, and an unknown id as such. */
void tp_am_refused(tp_iface_t *iface, int peer, unsigned id, int rc);

/* am_send with ep's send lock held (tp_send_lock) or without threads: counts the message. */
static inline int tp_am_send_locked(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                                    const void *payload, size_t len)
{
    int rc = ep->iface->ops->am_send(ep, id, hdr, hdr_len, payload, len);
    if (rc >= 0)
        core_count_add2_as(&ep->iface->stats.am_sent, 1, &ep->iface->stats.am_bytes,
                           hdr_len + len, core_handles.shared);
    return rc;
}

/* The send lock of ep's peer, S(peer), around the producer side of its channel: under
 * MULTIPLE a thread outside G may send to a peer of this job (TP_CAP_THREADS) while the
 * thread holding G sends to it too (an answer from a handler, a queued send). */
int tp_am_send_shared(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len);
static inline int tp_am_send(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const void *payload, size_t len)
{
    /* out of line under MULTIPLE: SINGLE keeps its inlined send (a load and a branch more) */
    if (__builtin_expect(core_handles.shared, 0))
        return tp_am_send_shared(ep, id, hdr, hdr_len, payload, len);
    return tp_am_send_locked(ep, id, hdr, hdr_len, payload, len);
}

static inline core_rlock_t *tp_send_lock_of(const tp_ep_t *ep);

/* Called inside G; under MULTIPLE with S(peer) held: the one transport offering it (verbs, ud
 * mode) has TP_CAP_THREADS, so threads outside G may send to the same peer meanwhile. */
static inline int tp_am_send_zc(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len, tp_memh_t *memh,
                                tp_comp_t *comp, unsigned flags)
{
    core_rlock_t *m = core_handles.shared ? tp_send_lock_of(ep) : NULL;
    if (m)
        core_rlock_lock(m);
    int rc = ep->iface->ops->am_send_zc(ep, id, hdr, hdr_len, payload, len, memh, comp, flags);
    if (rc >= 0) {
        core_count_add(&ep->iface->stats.am_sent, 1);
        core_count_add(&ep->iface->stats.am_bytes, hdr_len + len);
    }
    if (m)
        core_rlock_unlock(m);
    return rc;
}

/* A send by op (one of ep's optional variants of am_send), or am_send where the transport has
 * no such op: counted, and under MULTIPLE with S(peer) held, as tp_am_send_shared (senders
 * outside G may use the same channel: TP_CAP_THREADS). */
static inline int tp_am_send_by(tp_ep_t *ep,
                                int (*op)(tp_ep_t *, unsigned, const void *, size_t,
                                          const void *, size_t),
                                unsigned id, const void *hdr, size_t hdr_len, const void *payload,
                                size_t len)
{
    core_rlock_t *m = core_handles.shared ? tp_send_lock_of(ep) : NULL;
    if (m)
        core_rlock_lock(m);
    int rc = (op ? op : ep->iface->ops->am_send)(ep, id, hdr, hdr_len, payload, len);
    if (rc >= 0) {
        core_count_add(&ep->iface->stats.am_sent, 1);
        core_count_add(&ep->iface->stats.am_bytes, hdr_len + len);
    }
    if (m)
        core_rlock_unlock(m);
    return rc;
}

/* am_post where the transport has it, else am_send. */
static inline int tp_am_post(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const void *payload, size_t len)
{
    return tp_am_send_by(ep, ep->iface->ops->am_post, id, hdr, hdr_len, payload, len);
}

/* am_send_hold where the transport has it, else am_send. */
static inline int tp_am_send_hold(tp_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                                  const void *payload, size_t len)
{
    return tp_am_send_by(ep, ep->iface->ops->am_send_hold, id, hdr, hdr_len, payload, len);
}

static inline int tp_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh,
                         uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    int rc = ep->iface->ops->get(ep, local, len, lmemh, raddr, rkey, comp);
    if (rc >= 0) {
        core_count_add(&ep->iface->stats.rdma_ops, 1);
        core_count_add(&ep->iface->stats.rdma_bytes, len);
    }
    return rc;
}

static inline int tp_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh,
                         uint64_t raddr, const void *rkey, tp_comp_t *comp)
{
    int rc = ep->iface->ops->put(ep, local, len, lmemh, raddr, rkey, comp);
    if (rc >= 0) {
        core_count_add(&ep->iface->stats.rdma_ops, 1);
        core_count_add(&ep->iface->stats.rdma_bytes, len);
    }
    return rc;
}

/* Only with TP_CAP_ATOMIC. */
static inline int tp_atomic(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare,
                            uint64_t *result, tp_memh_t *lmemh, uint64_t raddr,
                            const void *rkey, tp_comp_t *comp)
{
    int rc = ep->iface->ops->atomic(ep, op, operand, compare, result, lmemh, raddr, rkey, comp);
    if (rc >= 0) {
        core_count_add(&ep->iface->stats.rdma_ops, 1);
        core_count_add(&ep->iface->stats.rdma_bytes, 8);
    }
    return rc;
}

static inline int tp_progress(tp_iface_t *iface)
{
    return iface->ops->progress ? iface->ops->progress(iface) : 0;
}

/* A busy wait's poll for the completion of a get, put or atomic on iface: poll_comp, and
 * the whole of progress on every 64th call of the wait (*tick counts them, 0 at the start),
 * so the transport's timers, handshakes and queued work still move during a long wait. */
static inline int tp_poll_comp(tp_iface_t *iface, unsigned *tick)
{
    if (iface->ops->poll_comp && (++*tick & 63) != 0)
        return iface->ops->poll_comp(iface);
    return tp_progress(iface);
}

/*
 * The transports layer's instance (transports/tp.c): the open interfaces, the
 * endpoint table (the transport chosen for each peer at first contact, by
 * locality and RDMPI_TRANSPORTS) and the active-message handler table that the
 * layer above fills (tp_am_register). The runtime builds it; p2p is handed it.
 */
#define TP_MAX_IFACES 8
typedef struct tp_layer {
    struct core_runtime *rt;
    const tp_config_t *cfg;
    tp_iface_t *ifaces[TP_MAX_IFACES];
    int niface;
    tp_ep_t **eps;                 /* by world rank; NULL until first use */
    tp_am_entry_t am[TP_AM_MAX];
    unsigned char *lost;           /* by process: a process of another job that has left */
    int nlost;                     /* written inside G; read outside it atomically */
    void (*on_lost)(void *arg);    /* the layer above: some process was lost (may run in a
                                      handler or a send: it only notes it and wakes) */
    void *on_lost_arg;
    /* S(peer), by world rank of this job (ARCHITECTURE.md, "Threads"): the producer side of
     * the channel to that peer (tp_am_send; what a transport writes into that channel on its
     * own: shm's requests for a cooperative copy). get and put run inside G only, on the
     * transports whose am_send is safe beside them (TP_CAP_THREADS). Taken only under MULTIPLE (core_handles.shared); nothing else is taken
     * inside it. Processes of other jobs have none: only the thread holding G reaches them. */
    core_rlock_t *send_locks;
    int nsend_locks;
    /* The endpoint creation latch of each rank of this job (tp_ep_get_outside): TP_MAKING_*,
     * changed by compare-and-swap and stores with release, read with acquire; so one thread
     * at a time creates a peer's endpoint, inside G or out. */
    unsigned char *making;
    int dynamic;                   /* interfaces for other jobs were opened (inside G, before
                                      niface grew): endpoints are created inside G only */
} tp_layer_t;
enum { TP_MAKING_NONE = 0, TP_MAKING_OUTSIDE, TP_MAKING_INSIDE };

/* S(peer) of ep's peer, or NULL (a process of another job, or an interface of no layer). */
static inline core_rlock_t *tp_send_lock_of(const tp_ep_t *ep)
{
    const tp_layer_t *tp = ep->iface->layer;
    return tp && ep->peer >= 0 && ep->peer < tp->nsend_locks ? &tp->send_locks[ep->peer] : NULL;
}

/* Takes and leaves S(peer) for a caller that sends more than one message under it (p2p's
 * check of its send queue with the send), or a transport writing its queued bytes from
 * progress. No-ops without MULTIPLE. */
static inline void tp_send_lock(tp_layer_t *tp, int peer)
{
    if (core_handles.shared && tp && peer >= 0 && peer < tp->nsend_locks)
        core_rlock_lock(&tp->send_locks[peer]);
}
static inline void tp_send_unlock(tp_layer_t *tp, int peer)
{
    if (core_handles.shared && tp && peer >= 0 && peer < tp->nsend_locks)
        core_rlock_unlock(&tp->send_locks[peer]);
}

int tp_layer_init(tp_layer_t *tp, struct core_runtime *rt);
/* Before the bootstrap fence: opens the allowed transports and registers their progress
 * functions (and, when every one can wake a sleeping rank, the layer's sleep) with the
 * progress engine. */
int tp_layer_open(tp_layer_t *tp);
/* After the fence. */
int tp_layer_ready(tp_layer_t *tp);
/* Before this process talks to processes of other jobs (MPI_Comm_spawn, connect/accept, a
 * spawned job's MPI_Init): opens the allowed transports that reach them and are not open
 * yet, and publishes their addresses (core_boot_commit). CORE_EUNSUPPORTED if none can. */
int tp_layer_open_dynamic(tp_layer_t *tp);
/* Finalize: every transport finishes with its peers before any is closed (ops.drain). */
void tp_layer_drain(tp_layer_t *tp);
void tp_layer_fini(tp_layer_t *tp);
/* The counters of the open interface named name ("shm"); zeros when it is not open.
 * Returns whether it is open. */
int tp_layer_stats(const tp_layer_t *tp, const char *name, tp_stats_t *out);
/* The layer above registers the handler of each id it uses (before tp_layer_open). */
static inline void tp_am_register(tp_layer_t *tp, unsigned id, tp_am_entry_t entry)
{
    if (id < TP_AM_MAX)
        tp->am[id] = entry;
}

/* A transport says that peer, a process of another job, has left (it said goodbye at its
 * MPI_Finalize, its listener refused us, or its connection broke): nothing more will come
 * from it, so the layer above fails what waits for it (receives, probes) instead of
 * waiting forever. Idempotent. */
void tp_peer_lost(tp_iface_t *iface, int peer);
/* Sends control message type to peer over the interface that carries them (tcp), which
 * from's peer instance hands to its ctrl_recv. 0 or a negative code (no carrier). */
int tp_ctrl_send(tp_iface_t *from, int peer, unsigned type);
/* The carrier got control message type from peer: handed to the interface that takes
 * them; answered TP_CTRL_SHM_REFUSE when none does. */
void tp_ctrl_recv(tp_iface_t *carrier, int peer, unsigned type);
/* iface serves ep's peer, which the layer did not choose through tp_ep_get (an offer it
 * accepted): ep becomes the layer's endpoint for it. 0, or CORE_EBUSY when another
 * interface's endpoint is chosen already (it stays). */
int tp_ep_adopt(tp_iface_t *iface, tp_ep_t *ep);
/* iface cannot serve peer after all (a refused bridge; nothing was sent through it): the
 * carrier's endpoint replaces it (*ep_p, may be NULL). 0 or a negative code. */
int tp_ep_fallback(tp_iface_t *iface, int peer, tp_ep_t **ep_p);
/* Whether peer (a process index) was reported lost. */
static inline int tp_peer_is_lost(const tp_layer_t *tp, int peer)
{
    return tp->nlost && tp->lost[peer];
}

/* Waits (running progress) until what was sent to peer through its endpoint is delivered
 * (ops.flush), which for a peer of another job also means its transport is settled (a
 * bridge offered and answered, or refused for tcp); *ep_p: the endpoint then. For tests and
 * tools (rdmpi_peer_transport). */
int tp_ep_settle(tp_layer_t *tp, int peer, tp_ep_t **ep_p);

/* The endpoint to a world rank, connecting on first use. The connecting (tp_ep_get_slow)
 * runs inside G, or outside it (tp_ep_get_outside) where the transports allow it; the
 * endpoint is then published with a release store, and tp_ep_get reads it with acquire, so a
 * thread outside G sees a whole endpoint or none. */
int tp_ep_get_slow(tp_layer_t *tp, int peer, tp_ep_t **ep_p);
/* Under MULTIPLE, from a thread outside G: creates the endpoint to peer, a rank of this job,
 * when every transport tried before the one that reaches it, and that one, may be asked
 * outside G (tp_component_t.create_outside: self, shm, verbs; not tcp, whose connections
 * and epoll set are its progress's), no interface for other jobs was opened, and no other
 * thread is creating it now. 0 with *ep_p set, or 1: create it inside G (tp_ep_get). */
int tp_ep_get_outside(tp_layer_t *tp, int peer, tp_ep_t **ep_p);
static inline int tp_ep_get(tp_layer_t *tp, int peer, tp_ep_t **ep_p)
{
    /* acquire: what the transport set up in the endpoint was in place before it was
     * published (tp_ep_get_slow), for a thread outside G */
    tp_ep_t *ep = __atomic_load_n(&tp->eps[peer], __ATOMIC_ACQUIRE);
    if (ep) {
        *ep_p = ep;
        return 0;
    }
    return tp_ep_get_slow(tp, peer, ep_p);
}

#endif
