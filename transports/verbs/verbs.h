/*
 * Internal declarations of the verbs transport, shared by its files:
 *   verbs_dev.c    device, port and GID choice (also linked into rdmpi_info);
 *   verbs_iface.c  the component: open/ready/reachable, peers, progress, close;
 *   verbs_ud.c     the UD QP: packets, segmentation, reliability (verbs_rel.c);
 *   verbs_rc.c     RC QPs: handshake over UD, SRQ, credits, sends, RDMA;
 *   verbs_fp.c     the RDMA-write eager fast path: rings the sender writes into;
 *   verbs_mem.c    registration, remote keys, get/put (RDMA or copied over AMs);
 *   verbs_rcache.c the registration cache (invalidated through core/memhooks.h);
 *   verbs_info.c   what rdmpi_info prints about RDMA devices.
 *
 * Every peer starts on UD: one UD QP per process, addressed by the (GID or
 * LID, QPN) card each rank publishes through the bootstrap. A peer moves to
 * an RC QP (rc mode: at once; hybrid: after RDMPI_VERBS_RC_MSGS messages or
 * its first RDMA operation) through a handshake carried as sequenced UD
 * messages. Before its first active message on RC, a rank waits until the
 * peer has acknowledged everything it sent on UD, so active messages stay in
 * order across the switch (and the peer dispatches a UD packet before it
 * acknowledges it).
 *
 * Peers are process indices (core/procs.h): this job's ranks, and processes of other
 * jobs of the same launcher (spawned, parents, connected) once the layer above added
 * them; their cards are read from their job's data. Headers name the sender by uid,
 * which is unique among all of one launcher's processes (verbs_wire.h, vb_uid_index).
 * A process of another job says BYE when it finalizes, which we answer at once from
 * progress (verbs_iface.c, bye_in): past it, sends to it fail and receives from it are
 * failed by the layer above (tp_peer_lost).
 */
#ifndef RDMPI_TP_VERBS_H
#define RDMPI_TP_VERBS_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "core/itree.h"
#include "core/list.h"
#include "core/runtime.h"
#include "transports/transport.h"
#include "transports/verbs/verbs_rel.h"
#include "transports/verbs/verbs_wire.h"

/* The settings (verbs_config.c). */
enum { VB_MODE_UD = 0, VB_MODE_RC, VB_MODE_HYBRID };  /* RDMPI_VERBS_MODE */
typedef struct vb_config {
    char verbs_device[64];      /* RDMPI_VERBS_DEVICE: "name[:port]" ("": nearest to our cores) */
    int verbs_gid_index;        /* RDMPI_VERBS_GID_INDEX (-1: RoCE v2 IPv4-mapped, found) */
    int verbs_mode;             /* RDMPI_VERBS_MODE: VB_MODE_UD, _RC, _HYBRID */
    int verbs_max_rc;           /* RDMPI_VERBS_MAX_RC: RC connections per process (hybrid) */
    int verbs_rc_msgs;          /* RDMPI_VERBS_RC_MSGS: messages to a peer before hybrid uses RC */
    size_t verbs_eager_limit;   /* RDMPI_VERBS_EAGER_LIMIT */
    size_t verbs_mtu;           /* RDMPI_VERBS_MTU: UD packet size cap (0: the port's MTU) */
    double verbs_peer_timeout;  /* RDMPI_VERBS_PEER_TIMEOUT: seconds without acks = dead */
    int verbs_ud_window;        /* RDMPI_VERBS_UD_WINDOW: UD packets in flight per peer */
    double verbs_ud_rto;        /* RDMPI_VERBS_UD_RTO: smallest UD retransmission timeout */
    double verbs_ud_drop;       /* RDMPI_VERBS_UD_DROP: fault injection, outgoing UD loss */
    int verbs_rq_size;          /* RDMPI_VERBS_RQ_SIZE: UD receive queue and SRQ depth */
    int verbs_rc_credits;       /* RDMPI_VERBS_RC_CREDITS: RC sends in flight per peer */
    int verbs_rc_timeout;       /* RDMPI_VERBS_RC_TIMEOUT: IB ack timeout exponent */
    int verbs_fp_peers;         /* RDMPI_VERBS_FP_PEERS: RC peers with an RDMA-write ring */
    int verbs_fp_slots;         /* RDMPI_VERBS_FP_SLOTS: slots of each ring */
    size_t verbs_fp_size;       /* RDMPI_VERBS_FP_SIZE: bytes of each slot */
    int verbs_rcache;           /* RDMPI_VERBS_RCACHE: cache registrations (needs memory hooks) */
    size_t verbs_rcache_max;    /* RDMPI_VERBS_RCACHE_MAX: bytes the cache keeps registered */
    int verbs_rcache_entries;   /* RDMPI_VERBS_RCACHE_ENTRIES: regions the cache keeps */
} vb_config_t;
extern const core_config_group_t tp_verbs_config_group;

#define VB_GRH 40              /* UD receive buffers start with the GRH */
#define VB_POLL_BATCH 16       /* completions per ibv_poll_cq */
#define VB_POST_BATCH 16       /* receive buffers per ibv_post_recv list */
#define VB_UD_SEND_BATCH 64    /* UD packets per ibv_post_send list (on rxe one list is one
                                  system call: a 64 KiB chunk at a 1 KiB MTU goes in one) */
#define VB_SIG_EVERY 32        /* one unsignaled-capable send in this many is signaled */
#define VB_UD_MAX_AM (64u << 10)   /* ud mode: largest active message (segmented) */
#define VB_UD_MAX_PKTS 64          /* ud mode: ... and at most this many packets */
#define VB_UD_POOL 1024        /* UD send buffers per process */
#define VB_RC_POOL 256         /* RC bounce buffers per process */
#define VB_UD_SQ 1024
#define VB_RC_SQ 256
#define VB_INLINE_WANT 236     /* inline bytes asked of a QP (it may give fewer) */
#define VB_CARD_KEY "rdmpi.verbs.card"
#define VB_RC_OTHER_JOBS 8     /* rc mode: RC connections beyond one per rank, for processes
                                  of other jobs (past them they stay on UD) */


/* What a rank publishes: all a peer needs to reach its UD QP. */
typedef struct vb_card {
    uint8_t version;
    uint8_t link_layer; /* IBV_LINK_LAYER_* */
    uint8_t port;
    uint8_t mtu;        /* enum ibv_mtu of the UD packets it receives */
    uint16_t lid;
    uint16_t pad;
    uint32_t qpn;
    uint8_t gid[16];
} vb_card_t;

/* RC handshake body (REQ and REP). */
typedef struct vb_conn {
    uint32_t qpn, psn;
    uint8_t mtu;
    uint8_t fp_flags;    /* VB_FP_*: how the ring below is written */
    uint8_t pad[2];
    uint32_t fp_rkey;    /* the sender's ring for the RDMA-write fast path: */
    uint64_t fp_addr;
    uint32_t fp_size;    /* bytes per slot */
    uint32_t fp_slots;   /* 0: none offered */
} vb_conn_t;

/* vb_conn_t.fp_flags. VB_FP_IMM: write with immediate (its owner may sleep: the
 * completion wakes it), each write taking an RC credit as a send does. */
#define VB_FP_IMM 1u
#define VB_FP_FLAGS VB_FP_IMM

/* Packed remote key: a hardware rkey, or a software id for memory that could
 * not be registered (transfers are then copied through active messages). */
typedef struct vb_rkey {
    uint32_t rkey;
    uint32_t id;
    uint64_t addr, len;
} vb_rkey_t;

/* Header of the copied transfers (GET_REQ, GET_RESP, PUT, PUT_ACK). */
typedef struct vb_xfer {
    uint64_t op;       /* the requester's vb_op_t id */
    uint64_t raddr;    /* GET_REQ, PUT: the owner's address */
    uint64_t off;      /* GET_RESP, PUT: offset of this chunk */
    uint64_t len;      /* GET_REQ, PUT: bytes of the whole transfer */
    vb_rkey_t key;     /* GET_REQ, PUT */
    int32_t status;    /* GET_RESP, PUT_ACK */
    uint32_t last;     /* PUT: the last chunk */
} vb_xfer_t;

typedef struct vb_iface vb_iface_t;

/* A message sent with am_send_zc over UD: its packets' payload is read from the caller's
 * registered memory, which is the caller's again (comp fires) once every packet is freed,
 * acknowledged by the peer and retired by the device. */
typedef struct vb_zc {
    tp_comp_t *comp;
    vb_iface_t *s;       /* its interface (the completion is fired through it) */
    uint32_t left;       /* packets not freed yet */
    int status;          /* 0, or CORE_EPEER: the peer was lost */
    int waited;          /* its sender waits for it: the last packet asks for the ack */
} vb_zc_t;

/* A registered send buffer (UD packet or RC bounce). */
typedef struct vb_tx {
    struct vb_tx *next;  /* free list, or the peer's unacknowledged list */
    uint8_t *data;
    uint32_t len;        /* bytes in data (the headers alone, for a zero-copy packet) */
    uint16_t psn;
    uint8_t inflight;    /* posted WQEs not yet retired */
    uint8_t acked;       /* UD: the peer has it; free once inflight is 0 */
    struct vb_pool *pool;
    vb_zc_t *zc;         /* UD zero copy: the message whose payload follows data, else NULL */
    const uint8_t *zdata;  /* ... that payload's zlen bytes (a second scatter entry) */
    uint32_t zlen, zlkey;
} vb_tx_t;

typedef struct vb_pool {
    vb_tx_t *descs;
    uint8_t *slab;
    struct ibv_mr *mr;
    size_t bufsz;
    unsigned n, nfree;
    vb_tx_t *free;
} vb_pool_t;

/* A send queue's book-keeping: what each posted WQE holds, so a signaled
 * completion can retire it and every unsignaled WQE before it. Entries are
 * NULL, a vb_tx_t (tag 1), a vb_op_t (tag 2) or, for a one-chunk RDMA or
 * atomic posted straight from the caller's arguments (vb_rc_post_direct), the
 * caller's tp_comp_t itself (tag 3): no op record to take, fill and give back
 * per operation. */
typedef struct vb_sq {
    uintptr_t *ent;
    uint32_t size, head, tail; /* head: posted, tail: retired (running counts) */
    uint32_t unsig;            /* unsignaled since the last signaled */
} vb_sq_t;

#define VB_SQ_TX 1u
#define VB_SQ_OP 2u
#define VB_SQ_COMP 3u
#define VB_SQ_TAG 3u

/* An RDMA or copied get/put. */
typedef struct vb_op {
    struct vb_op *next;  /* the peer's pending list, then the interface's copies list */
    uint64_t id;         /* copied: names the op in vb_xfer_t.op (never a pointer) */
    uint8_t kind;        /* VB_OP_* */
    uint8_t copied;      /* done through active messages */
    void *local;
    size_t len, done;
    tp_memh_t *lmemh;
    uint64_t raddr;
    vb_rkey_t key;
    tp_comp_t *comp;
    int peer;
    uint64_t operand, compare;   /* VB_OP_FADD, VB_OP_CSWAP (local: the 8-byte result) */
} vb_op_t;

/* FADD and CSWAP are device atomics: RC only, never copied. */
enum { VB_OP_GET = 1, VB_OP_PUT, VB_OP_FADD, VB_OP_CSWAP };

/* Copying a get's data back, or a put's data out, through active messages. */
typedef struct vb_job {
    struct vb_job *next;
    int peer;
    unsigned id;         /* VB_AM_GET_RESP or VB_AM_PUT */
    vb_xfer_t x;         /* header template; x.off advances */
    const uint8_t *src;
    size_t len;
} vb_job_t;

/* A registered range of the registration cache (verbs_rcache.c). */
typedef struct vb_region {
    core_list_t link;               /* the cache's list, most recently used first */
    struct vb_region *next_out;     /* tidy: the regions taken off, to deregister */
    core_itree_node_t range;        /* [start, end), page-aligned; in the cache's tree while
                                     * on its list */
    struct ibv_mr *mr;              /* NULL while being registered */
    int refs;                       /* messages using it */
    uint8_t dead;                   /* its pages changed: never found again */
} vb_region_t;

typedef struct vb_rcache vb_rcache_t;

/* One per mem_reg call (one message), even when the cache supplies the MR:
 * its id and range are what a peer's copied accesses are checked against. */
struct tp_memh {
    struct ibv_mr *mr;   /* NULL: registration failed, transfers are copied */
    vb_region_t *region; /* the cache's region that mr belongs to, or NULL: mr is ours */
    uint8_t *addr;
    size_t len;
    uint32_t id;
    core_list_t link;    /* on the interface's memhs */
    struct tp_memh *next_free;   /* retired: the interface's memh_free list */
};

/* Receive-side buffer of a message arriving in several UD packets (its progress is the
 * peer's vb_reasm_state_t): the whole message, or, when its handler takes pieces
 * (tp_am_piece_t), only its header, the payload going to the handler packet by packet. */
typedef struct vb_reasm {
    uint8_t *buf;        /* hdr_len + len bytes, or hdr_len when pieces */
    uint8_t pieces;
} vb_reasm_t;

enum { VB_PATH_UD = 0, VB_PATH_DRAIN, VB_PATH_RC };
enum { VB_CTL_REQ = 1, VB_CTL_REP = 2, VB_CTL_RTU = 4, VB_CTL_REJ = 8 };
enum { VB_RC_NONE = 0, VB_RC_REQ_SENT, VB_RC_REP_SENT, VB_RC_UP, VB_RC_REFUSED };

/* A ring this process polls and one peer RDMA-writes its messages into. */
typedef struct vb_fp_ring {
    uint8_t *buf;
    struct ibv_mr *mr;
    uint32_t size, n;    /* bytes per slot, slots */
    uint32_t head;       /* the slot the next message lands in */
    uint8_t imm;         /* written with immediate (VB_FP_IMM) */
} vb_fp_ring_t;

typedef struct vb_rc {
    struct ibv_qp *qp;
    vb_sq_t sq;
    uint32_t psn;        /* our first send psn */
    uint32_t rqpn;       /* the peer's QP number, for error messages */
    int credits;         /* sends we may still post */
    int credits_max;     /* what credits started at: more never come back */
    int owed;            /* credits to return to the peer */
    uint16_t tx_seq;     /* counted messages sent (written or sent) */
    uint16_t rx_seq;     /* ... and taken from the peer */
    /* The fast path: the peer's ring we write into, and ours it writes into. */
    uint64_t fp_raddr;
    uint32_t fp_rkey, fp_size, fp_n, fp_head;
    int fp_credits;      /* free slots of the peer's ring (0: none, or no ring) */
    uint8_t fp_imm;      /* the peer's ring wants writes with immediate (VB_FP_IMM) */
    int fp_owed;         /* slots of ours taken since we last said so */
    vb_fp_ring_t *fpr;   /* NULL: we offered none */
} vb_rc_t;

/* Everything about one peer; the endpoint p2p holds is its first member. */
typedef struct vb_peer {
    tp_ep_t ep;
    struct ibv_ah *ah;
    vb_card_t card;
    uint16_t seg;        /* payload bytes per UD packet to this peer */
    uint8_t path;        /* VB_PATH_* */
    uint8_t rc_state;    /* VB_RC_* */
    uint8_t bye_rcvd, bye_sent, gone, ackreq_sent;
    uint8_t left;        /* a process of another job that said BYE (it finalized): nothing
                            more goes to it, nothing more comes; our answer owed while
                            bye_sent is 0 */
    uint32_t uid;        /* its uid (core/procs.h): on the wire, and the RC tie-break */
    uint8_t ctl;         /* VB_CTL_*: handshake messages still to send */
    uint32_t nmsgs;      /* hybrid: messages sent, towards RC */
    vb_rel_tx_t tx;
    vb_rel_rx_t rx;
    vb_tx_t *unacked, *unacked_tail;
    vb_tx_t *unsent;     /* UD: the first packet of unacked not posted yet (window full) */
    uint32_t nunsent;
    vb_reasm_t *reasm;
    vb_reasm_state_t rs; /* checked by vb_reasm_step */
    uint8_t failed;      /* it sent something malformed: nothing more is taken from it */
    vb_rc_t *rc;
    vb_op_t *pending, *pending_tail;  /* waiting for the RC connection or queue space */
    uint64_t stall_sig;  /* state seen by the last timer tick (stall_check) */
    double stall_since;  /* ... unchanged since then */
    uint8_t stall_warned;
    core_list_t alink;   /* on the interface's active list */
} vb_peer_t;

typedef struct vb_stats {
    uint64_t ud_sent, ud_zc, ud_resent, ud_dropped, ud_reordered, ud_dups, ud_ahead, ud_acks;
    uint64_t ud_acks_late;  /* of ud_acks: sent because the delay ran out, unasked */
    uint64_t rc_sent, rc_inline, rdma, fp_sent;
} vb_stats_t;

/* The chosen device, port and address (verbs_dev.c). */
typedef struct vb_dev {
    struct ibv_context *ctx;
    char name[64];
    uint8_t port;
    int gid_index;
    union ibv_gid gid;
    struct ibv_device_attr attr;
    struct ibv_port_attr pattr;
} vb_dev_t;

struct vb_iface {
    tp_iface_t base;
    core_runtime_t *rt;
    const vb_config_t *cfg;
    int mode, me, size;
    int npeers;              /* entries of peers: our ranks and other jobs' (rt->proc_cap) */
    uint32_t uid;            /* our uid, which our headers carry */
    vb_dev_t dev;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_comp_channel *chan; /* wakes a sleeping rank (arm); NULL: cannot sleep */
    int cq_size;
    uint32_t qkey;
    enum ibv_mtu mtu;        /* UD packets we send and receive at most */
    size_t max_msg;          /* largest RDMA transfer */
    size_t eager;            /* RDMPI_VERBS_EAGER_LIMIT, at most VB_UD_MAX_AM */
    /* UD */
    struct ibv_qp *ud;
    vb_sq_t ud_sq;
    uint32_t ud_inline;
    uint8_t ud_zc;             /* the UD QP takes two scatter entries: am_send_zc is zero copy */
    uint8_t *ud_rx;
    struct ibv_mr *ud_rx_mr;
    size_t ud_rx_bufsz;
    unsigned ud_rq, ud_rq_posted;
    uint32_t *ud_refill;     /* consumed receive buffers to post again */
    unsigned ud_nrefill;
    vb_pool_t ud_pool;
    vb_rel_params_t rel;
    vb_rel_ooo_t ooo;        /* UD receive buffers held past a gap */
    /* RC */
    struct ibv_srq *srq;
    uint8_t *srq_buf;
    struct ibv_mr *srq_mr;
    size_t srq_bufsz;
    unsigned srq_size, srq_posted;
    uint32_t *srq_refill;
    unsigned srq_nrefill;
    vb_pool_t rc_pool;
    uint32_t rc_inline;
    int rc_sge;
    int nrc, max_rc, rc_msgs;
    vb_peer_t **fp;          /* peers whose writes land in a ring of ours (verbs_fp.c) */
    int nfp, max_fp;
    int nfp_silent;          /* ... of them written without immediate: we cannot sleep */
    /* peers and pending work */
    vb_peer_t **peers;       /* by process index, created on first contact */
    core_list_t active;      /* peers with timers or queued work (vb_peer_t.alink) */
    vb_job_t *jobs, *jobs_tail;
    vb_op_t *copies;         /* copied gets/puts in progress, by id */
    vb_op_t *op_free;        /* retired ops kept for the next (one-sided issues one per call) */
    tp_memh_t *memh_free;    /* ... and handles of mem_reg */
    unsigned nop_free, nmemh_free;
    uint64_t next_op_id;
    core_list_t memhs;       /* live registrations (tp_memh_t.link) */
    vb_rcache_t *rcache;     /* NULL: registration per message */
    uint32_t next_memh_id;
    int reg_warned;
    /* timing, fault injection, teardown */
    double now, next_timer;
    unsigned tick, timer_ticks;
    double drop;
    struct {                 /* a packet held back by fault injection (verbs_ud.c) */
        vb_tx_t *t;          /* its copy, in a send buffer kept for this */
        struct ibv_ah *ah;
        uint32_t qpn;
        uint8_t full;
        uint32_t after;      /* packets posted since it was held */
    } hold;
    uint64_t rng;
    int closing;
    vb_stats_t stats;
    /* V, the interface's lock (MPI_THREAD_MULTIPLE only; ARCHITECTURE.md, "Threads"): the
     * owner of everything above that a send touches and progress touches too (the peers'
     * UD windows, unacknowledged and unsent lists, RC send queues, credits and ring heads,
     * the send buffer pools, the UD send queue and its held packet, the active list, the
     * ops and handles kept for reuse, the counters, the clock). Every operation of the
     * interface runs under it: am_send from a thread outside G (with S(peer) held above
     * it), the other operations inside G, and progress, which leaves it around every call
     * into the layer above (a handler, which may send: S(peer) is taken before V, never
     * after) and fires completions only after leaving it (defer). A leaf: nothing is taken
     * inside it. Without MULTIPLE it is never taken (held stays 0). */
    pthread_mutex_t lock;
    int held;                /* V is held (set and read by its holder only) */
    struct vb_defer {        /* completions to fire once V is left */
        tp_comp_t *comp;
        int status;
    } *defer;
    unsigned ndefer, defer_cap;
};

static inline vb_iface_t *vb_iface(tp_iface_t *iface)
{
    return (vb_iface_t *)iface;
}

/* Takes V under MULTIPLE (core_handles.shared): returns whether it did, for vb_unlock. */
static inline int vb_lock(vb_iface_t *s)
{
    if (__builtin_expect(!core_handles.shared, 1))
        return 0;
    pthread_mutex_lock(&s->lock);
    s->held = 1;
    return 1;
}
static inline void vb_unlock(vb_iface_t *s, int locked)
{
    if (__builtin_expect(locked, 0)) {
        s->held = 0;
        pthread_mutex_unlock(&s->lock);
    }
}
/* Leaves V for a call into the layer above (from progress, which holds it under MULTIPLE);
 * returns whether it did, for vb_return, which takes it back. */
static inline int vb_leave(vb_iface_t *s)
{
    if (__builtin_expect(!s->held, 1))
        return 0;
    s->held = 0;
    pthread_mutex_unlock(&s->lock);
    return 1;
}
static inline void vb_return(vb_iface_t *s, int left)
{
    if (__builtin_expect(left, 0)) {
        pthread_mutex_lock(&s->lock);
        s->held = 1;
    }
}
/* Fires comp now, or once V is left when it is held (the completion may send: S(peer)). */
void vb_comp_fire(vb_iface_t *s, tp_comp_t *comp, int status);
/* Fires the completions deferred while V was held; called without V. */
void vb_defer_run(vb_iface_t *s);

/* wr_id: kind in the low 3 bits; UD/RC sends carry (owner << 32 | slot << 3). */
enum { VB_WR_UD_RECV = 1, VB_WR_SRQ_RECV, VB_WR_UD_SEND, VB_WR_RC_SEND };
#define VB_WR_KIND(w) ((unsigned)((w) & 7))

/* verbs_dev.c */
int vb_dev_open(const vb_config_t *cfg, vb_dev_t *dev, int quiet);
void vb_dev_close(vb_dev_t *dev);
int vb_dev_pick_gid(struct ibv_context *ctx, const char *name, uint8_t port, int *index,
                    union ibv_gid *gid, const char **why);
const char *vb_gid_type_str(struct ibv_context *ctx, const char *name, uint8_t port, int index);
int vb_mtu_bytes(enum ibv_mtu mtu);
enum ibv_mtu vb_mtu_enum(size_t bytes);
const char *vb_wc_hint(enum ibv_wc_status st);

/* verbs_iface.c */
vb_peer_t *vb_peer_get(vb_iface_t *s, int rank);
/* The peer whose header named it uid, or NULL (a sender we cannot check yet: dropped). */
vb_peer_t *vb_peer_of_uid(vb_iface_t *s, uint32_t uid);
/* How many entries of s->peers may be set (the processes known so far). */
int vb_npeers_now(const vb_iface_t *s);
/* Whether p is a process of another job (spawned, parent, connected). */
static inline int vb_other_job(const vb_iface_t *s, const vb_peer_t *p)
{
    return p->ep.peer >= s->size;
}
void vb_active_add(vb_iface_t *s, vb_peer_t *p);
int vb_send_other(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                  const void *payload, size_t len);
int vb_rc_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len);
int vb_fp_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len);
/* Sends an active message on the peer's current path: RC once it is up (written into the
 * peer's ring when it fits and a slot is free, the common case; else sent), else UD (which may
 * also start the RC handshake, or wait for UD to drain). */
static inline int vb_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr,
                          size_t hdr_len, const void *payload, size_t len)
{
    if (p->path == VB_PATH_RC) {
        if (p->rc->fp_credits > 0 &&
            sizeof(vb_fp_hdr_t) + hdr_len + len < p->rc->fp_size)
            return vb_fp_send(s, p, id, hdr, hdr_len, payload, len);
        return vb_rc_send(s, p, id, hdr, hdr_len, payload, len);
    }
    return vb_send_other(s, p, id, hdr, hdr_len, payload, len);
}
int vb_dispatch_other(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                      const void *payload, size_t len);
/* An upper layer's handler with V left around it (it may send, taking S(peer) then V). */
int vb_dispatch_up(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                   const void *payload, size_t len);
/* Hands an arrived message to its handler: an upper layer's (inline, the
 * common case) or the transport's own. 0, or the handler's refusal (the
 * caller gives up on the peer: vb_peer_malformed). Under MULTIPLE (V held by progress) the
 * upper layer's handler runs with V left (vb_dispatch_up). */
static inline int vb_dispatch(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr,
                              size_t hdr_len, const void *payload, size_t len)
{
    if (tp_am_valid(s->base.am, id)) {
        if (__builtin_expect(s->held, 0))
            return vb_dispatch_up(s, p, id, hdr, hdr_len, payload, len);
        return s->base.am[id].cb(s->base.am[id].arg, p->ep.peer, hdr, hdr_len, payload, len);
    }
    return vb_dispatch_other(s, p, id, hdr, hdr_len, payload, len);
}
/* Peer p sent something malformed: marks it failed (its packets, sends and ring writes are
 * dropped from now on) and reports it once. id: the message's handler id, whose refusal rc
 * was, or VB_AM_END for a broken transport header (what and why say what was wrong). */
void vb_peer_malformed(vb_iface_t *s, vb_peer_t *p, unsigned id, int rc, const char *what,
                       const char *why);
void vb_wc_fatal(vb_iface_t *s, const struct ibv_wc *wc, int peer, const char *what)
    __attribute__((noreturn));
uint64_t vb_rand(vb_iface_t *s);

/* SQ book-keeping (verbs_iface.c). */
int vb_sq_init(vb_sq_t *q, uint32_t size);
void vb_sq_fini(vb_sq_t *q);
static inline uint32_t vb_sq_free(const vb_sq_t *q)
{
    return q->size - (q->head - q->tail);
}
/* Records a WQE about to be posted; returns its slot; *signal says whether it
 * must be signaled (forced by the caller, or every VB_SIG_EVERY, or when
 * the queue is nearly full). */
static inline uint32_t vb_sq_push(vb_sq_t *q, uintptr_t ent, int *signal)
{
    uint32_t slot = q->head % q->size;
    q->ent[slot] = ent;
    q->head++;
    if (*signal || ++q->unsig >= VB_SIG_EVERY || vb_sq_free(q) < 4) {
        *signal = 1;
        q->unsig = 0;
    }
    return slot;
}
/* Retires every WQE up to slot; fills done[] with the tagged entries (VB_SQ_OP, VB_SQ_COMP)
 * that completed. */
unsigned vb_sq_retire(vb_sq_t *q, uint32_t slot, uintptr_t *done, unsigned max);

/* Pools (verbs_iface.c). */
int vb_pool_init(vb_iface_t *s, vb_pool_t *pl, unsigned n, size_t bufsz);
void vb_pool_fini(vb_pool_t *pl);
static inline vb_tx_t *vb_pool_get(vb_pool_t *pl)
{
    vb_tx_t *t = pl->free;
    if (t) {
        pl->free = t->next;
        pl->nfree--;
        t->next = NULL;
        t->inflight = 0;
        t->acked = 0;
    }
    return t;
}
/* A zero-copy packet is freed: its message completes with its last packet (verbs_ud.c). */
void vb_zc_release(vb_tx_t *t);
static inline void vb_pool_put(vb_tx_t *t)
{
    vb_pool_t *pl = t->pool;
    if (t->zc)
        vb_zc_release(t);
    t->next = pl->free;
    pl->free = t;
    pl->nfree++;
}
/* A send WR with only the fields a provider reads for an RC send or RDMA write set (rxe also
 * copies the first 16 bytes of the wr union): zeroing all 128 bytes cost more. */
static inline void vb_wr_init(struct ibv_send_wr *wr)
{
    wr->next = NULL;
    wr->imm_data = 0;
    wr->send_flags = 0;
    wr->wr.ud.ah = NULL;
    wr->wr.ud.remote_qpn = 0;
    wr->wr.ud.remote_qkey = 0;
}
/* An RC bounce buffer for a signaled WQE of len bytes (its completion frees it), or NULL. */
static inline vb_tx_t *vb_rc_bounce(vb_pool_t *pl, size_t len)
{
    vb_tx_t *t = vb_pool_get(pl);
    if (t) {
        t->len = (uint32_t)len;
        t->acked = 1;
        t->inflight = 1;
    }
    return t;
}
/* A tx whose WQE retired: back to its pool once nothing else holds it. */
void vb_tx_retired(vb_tx_t *t);

/* verbs_ud.c */
int vb_ud_open(vb_iface_t *s);
void vb_ud_close(vb_iface_t *s);
int vb_ud_post_recvs(vb_iface_t *s);
int vb_ud_send(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
               const void *payload, size_t len);
/* vb_ud_send with the payload read from memh's registration (s->ud_zc, memh->mr): comp
 * fires once every packet is acknowledged and retired (tp_ops_t.am_send_zc); waited: its
 * last packet asks for the ack. */
int vb_ud_send_zc(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t hdr_len,
                  const void *payload, size_t len, const struct ibv_mr *mr, tp_comp_t *comp,
                  int waited);
void vb_ud_recv(vb_iface_t *s, const struct ibv_wc *wc);
void vb_ud_send_ack(vb_iface_t *s, vb_peer_t *p, int ackreq);
int vb_ud_timers(vb_iface_t *s, vb_peer_t *p);
int vb_ud_create_ah(vb_iface_t *s, const vb_card_t *c, struct ibv_ah **ah);
void vb_ud_fill_ah_attr(vb_iface_t *s, const vb_card_t *c, struct ibv_ah_attr *a);
void vb_ud_peer_fini(vb_iface_t *s, vb_peer_t *p);

/* verbs_rc.c */
int vb_rc_open(vb_iface_t *s);
void vb_rc_close(vb_iface_t *s);
int vb_rc_post_recvs(vb_iface_t *s);
void vb_rc_connect(vb_iface_t *s, vb_peer_t *p);
void vb_rc_recv(vb_iface_t *s, const struct ibv_wc *wc);
void vb_rc_send_done(vb_iface_t *s, const struct ibv_wc *wc);
void vb_rc_conn_msg(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, size_t len);
/* Retries handshake messages and credit returns that found no room. */
void vb_rc_timers(vb_iface_t *s, vb_peer_t *p);
int vb_rc_post_op(vb_iface_t *s, vb_peer_t *p, vb_op_t *op);
/* Posts one WQE the caller filled (opcode, scatter list, remote address and key, flags),
 * signaled, whose completion fires comp: CORE_EBUSY when the send queue is short. */
int vb_rc_post_direct(vb_iface_t *s, vb_peer_t *p, struct ibv_send_wr *wr, tp_comp_t *comp);
void vb_rc_post(vb_iface_t *s, vb_peer_t *p, struct ibv_send_wr *wr);
/* Credits for the peer's SRQ buffers and our ring slots it took: to return now, in a message
 * of their own (or at the next timer tick when the queue is full). */
void vb_rc_return_credits(vb_iface_t *s, vb_peer_t *p);
/* Takes the credits a peer returns with a message (vb_credits_take). */
static inline int vb_rc_take_credits(vb_rc_t *rc, unsigned credits, unsigned fcredits)
{
    vb_credits_t c = { &rc->credits, rc->credits_max, &rc->fp_credits, (int)rc->fp_n };
    return vb_credits_take(&c, credits, fcredits);
}
int vb_rc_flush(vb_iface_t *s, vb_peer_t *p);
void vb_rc_peer_fini(vb_iface_t *s, vb_peer_t *p);

/* verbs_fp.c: the RDMA-write eager fast path */
int vb_fp_open(vb_iface_t *s);
void vb_fp_close(vb_iface_t *s);
/* Our ring for a peer being connected (none past RDMPI_VERBS_FP_PEERS); its address goes in
 * the handshake. A rank that may sleep asks for writes with immediate. */
void vb_fp_ring_create(vb_iface_t *s, vb_peer_t *p);
void vb_fp_ring_destroy(vb_iface_t *s, vb_peer_t *p);
void vb_fp_conn_fill(const vb_peer_t *p, vb_conn_t *c);
void vb_fp_conn_take(vb_peer_t *p, const vb_conn_t *c);
/* Takes every message that has landed, in order, from every ring. */
int vb_fp_poll(vb_iface_t *s);
/* A write with immediate from p completed in our SRQ (its buffer consumed, wc checked by the
 * caller): the SRQ buffer is owed back as a credit, and the ring's messages are taken. */
void vb_fp_imm_in(vb_iface_t *s, vb_peer_t *p);
/* A sent message numbered seq arrived: first take the written ones before it. */
void vb_fp_catch_up(vb_iface_t *s, vb_peer_t *p, uint16_t seq);

/* verbs_mem.c */
/* An op (from the retired ones when there are; its fields are the caller's to set, all of
 * them), or NULL; vb_op_release retires one. */
vb_op_t *vb_op_alloc(vb_iface_t *s);
void vb_op_release(vb_iface_t *s, vb_op_t *op);
int vb_mem_reg(tp_iface_t *iface, void *addr, size_t len, tp_memh_t **memh_p);
void vb_mem_dereg(tp_iface_t *iface, tp_memh_t *memh);
size_t vb_rkey_pack(tp_iface_t *iface, tp_memh_t *memh, void *buf);
int vb_get(tp_ep_t *ep, void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
           const void *rkey, tp_comp_t *comp);
int vb_put(tp_ep_t *ep, const void *local, size_t len, tp_memh_t *lmemh, uint64_t raddr,
           const void *rkey, tp_comp_t *comp);
void vb_ops_start(vb_iface_t *s, vb_peer_t *p);
int vb_atomic(tp_ep_t *ep, int op, uint64_t operand, uint64_t compare, uint64_t *result,
              tp_memh_t *lmemh, uint64_t raddr, const void *rkey, tp_comp_t *comp);
/* The IBV_ACCESS_* flags of memory peers may read and write (and use atomics on, when the
 * device has them). */
int vb_reg_access(const vb_iface_t *s);
void vb_op_copy(vb_iface_t *s, vb_peer_t *p, vb_op_t *op);
void vb_xfer_msg(vb_iface_t *s, vb_peer_t *p, unsigned id, const void *hdr, const void *payload,
                 size_t len);
int vb_jobs_progress(vb_iface_t *s);
void vb_mem_close(vb_iface_t *s);

/* verbs_rcache.c */
/* The cache, or NULL with *why saying why there is none (disabled, no
 * memory hooks on this platform, their self-test failed). */
/* access: the IBV_ACCESS_* flags every region is registered with. */
vb_rcache_t *vb_rcache_create(struct ibv_pd *pd, int access, const vb_config_t *cfg,
                              const char **why);
/* Deregisters everything; no region may be in use any more. */
void vb_rcache_destroy(vb_rcache_t *c);
/* Whether lookups may be made (0 once the memory hooks stopped being ours). */
int vb_rcache_on(vb_rcache_t *c);
/* A live region covering [addr, addr + len), in use until vb_rcache_put;
 * NULL when registration failed. */
vb_region_t *vb_rcache_get(vb_rcache_t *c, void *addr, size_t len);
void vb_rcache_put(vb_rcache_t *c, vb_region_t *r);
/* The cache's hits and misses so far (for the interface's counters, tp_stats_t). */
void vb_rcache_counts(vb_rcache_t *c, uint64_t *hits, uint64_t *misses);

#endif
