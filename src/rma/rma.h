/*
 * One-sided communication (MPI RMA): windows, operations and epochs, above
 * p2p, collectives and the transports. src/api's MPI_Win_* and RMA calls come
 * here; all state lives in one rma_state_t per runtime (core_rt->rma, made on
 * the first window) and in the windows it owns.
 *
 * Data path (first version): every operation is "handled at the target":
 * the origin sends OP messages (rma_wire.h) over the transports' active
 * messages, the target applies them from inside its progress and answers
 * each with a REPLY. Remote completion is the REPLY, so flush, unlock, fence
 * and complete just wait until every piece sent to the target(s) is answered.
 * The target applies a piece in one handler call and handles a peer's
 * messages in order, so accumulates from one origin to one location are
 * ordered (MPI's default accumulate_ordering) and each element is updated
 * atomically with respect to every other accumulate.
 *
 * Faster paths within a node, chosen once per target at window creation
 * (rma_peer_t.path; the verbs RDMA path will be one more row):
 *   SHM  windows of MPI_Win_allocate(_shared) live in one shared segment per
 *        node (seg.c): Put/Get are copies, accumulates and atomics are CPU
 *        atomics per element (atomic.c), passive locks are lock words in the
 *        segment; nothing involves the target and every operation is
 *        complete when its call returns.
 *   CMA  MPI_Win_create memory of a rank of this node: Put/Get are one
 *        process_vm_writev/readv; everything else takes the message path.
 *   RDMA a target reached over a transport with remote memory access (verbs)
 *        whose window memory it registered at creation (rdma.c): contiguous
 *        Put and Get are one RDMA write or read into the window, complete at
 *        the target when the transport's completion fires (flush waits for
 *        it as for a REPLY); the target's CPU takes no part. Everything else
 *        (accumulates, atomics, non-contiguous types, locks) takes messages,
 *        unless the window has device atomics (below).
 *   MSG  the message path above (other nodes, tcp, dynamic windows).
 * Device atomics (devatom.c) are not a path of one target but a mode of the
 * whole window, chosen at creation when every rank reaches every other (and
 * itself) with the device's atomics: then atomics on 8-byte integers and the
 * passive locks of every rank go through the device, to every target.
 * The target applies accumulates that arrive as messages with the same
 * per-element atomics, and grants message locks on the same lock word, so a
 * window mixing on-node and off-node origins stays atomic and exclusive.
 */
#ifndef RDMPI_RMA_H
#define RDMPI_RMA_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "core/attr.h"
#include "core/comm.h"
#include "core/runtime.h"
#include "rma/rma_wire.h"
#include "transports/transport.h"

typedef struct rma_state rma_state_t;

/* How this rank reaches one target (see the top of this file). */
enum rma_path { RMA_PATH_MSG = 0, RMA_PATH_SHM, RMA_PATH_CMA, RMA_PATH_RDMA };

/* Largest remote key a window card carries (bytes; a multiple of 8). */
#define RMA_RKEY_MAX 32

/* What each rank tells the others at window creation (one allgather of uint64_t words). */
typedef struct rma_card {
    uint64_t slot, gen, size, disp_unit, pid, base, rkey_len;
    uint64_t rkey[RMA_RKEY_MAX / 8];
    uint64_t lock_addr, lock_rkey_len;        /* device atomics (devatom.c): its lock word */
    uint64_t lock_rkey[RMA_RKEY_MAX / 8];     /* 0 length: it does not offer them */
} rma_card_t;
#define RMA_CARD_WORDS (sizeof(rma_card_t) / 8)

/* Per-rank control block in a node segment (one cache line each): the passive-target
 * lock word (RMA_LW_EXCL, or the number of shared holders) and the spin lock of the
 * accumulates that have no CPU atomic (elements above 8 bytes, unaligned ones). */
typedef struct rma_ctl {
    uint64_t lock;
    uint32_t acc;
    uint32_t pad0;
    /* dynamic windows: the owner's table of attached regions (its address there and length),
     * published for the node's ranks to read by CMA; gen is odd while the owner changes it
     * and moves on every change (a sequence lock: a reader that saw it move rereads) */
    uint64_t regions_gen, regions_addr, nregions;
    uint8_t pad[64 - 5 * sizeof(uint64_t)];
} rma_ctl_t;
_Static_assert(sizeof(rma_ctl_t) == 64, "one control block per cache line");
#define RMA_LW_EXCL ((uint64_t)1 << 62)

/* What this rank knows of the window at one target rank (and the epochs with it). */
typedef struct rma_peer {
    uint32_t slot, gen;      /* its window's slot and generation (its table) */
    uint64_t size;           /* its window's size in bytes */
    int disp_unit;
    uint8_t path;            /* enum rma_path */
    uint8_t *mem;            /* SHM: its window memory, mapped here */
    rma_ctl_t *ctl;          /* SHM, and node ranks of create and dynamic windows: its
                                control block (lock word) */
    int32_t pid;             /* CMA, and node ranks of dynamic windows: its process */
    rma_region_t *rcache;    /* dynamic, node rank: its attached regions as last read */
    size_t nrcache;
    uint64_t rcache_gen;     /* ... at this regions_gen (0: never read) */
    uint64_t addr;           /* CMA, RDMA: its window's base address there (RDMA: used
                                only as the remote address of RDMA, never dereferenced) */
    tp_ep_t *ep;             /* RDMA: the endpoint to it */
    uint8_t rkey[RMA_RKEY_MAX]; /* RDMA, device atomics: the remote key of its window (opaque,
                                   the transport's) */
    tp_ep_t *dep;            /* device atomics: the endpoint to it (itself and ranks of this
                                node included) */
    uint64_t lock_addr;      /* device atomics: its registered words there (lock word first) */
    uint8_t lock_rkey[RMA_RKEY_MAX];
    int pending;             /* OP pieces sent to it and not yet answered, and RDMA
                                operations on it not yet complete */
    int rdma_pending;        /* of those, the RDMA operations (complete without its CPU) */
    size_t rdma_bytes;       /* their bytes (rma_wait_peer) */
    uint8_t lock;            /* origin: 0, or MPI_LOCK_SHARED/EXCLUSIVE held or asked */
    uint8_t granted;         /* origin: the lock was granted (or NOCHECK) */
    uint8_t nocheck;         /* origin: locked with MPI_MODE_NOCHECK: no messages */
    uint8_t unlocking;       /* origin: UNLOCK sent, UNLOCKED not yet back */
    uint8_t held;            /* target: the lock this peer holds here (RMA_LOCK_*_W), 0 */
    uint8_t queued;          /* target: it waits in the lock queue */
    uint8_t in_access;       /* origin: in the access group of the current start */
    int posts;               /* origin: POSTs from this target not yet used by a start */
    int complete_ok;         /* target: we posted to it: one COMPLETE allowed */
} rma_peer_t;

struct rdmpi_win {
    rma_state_t *st;
    uint32_t slot, gen;      /* in st's window table */
    MPI_Comm comm;           /* private copy of the user's communicator */
    int rank, size;
    int flavor;              /* MPI_WIN_FLAVOR_* */
    void *base;
    MPI_Aint len;            /* the local window's size */
    int disp_unit;
    void *owned;             /* memory the window allocated (MPI_Win_allocate) */
    void *shm;               /* allocate(_shared): the node's segment, mapped here */
    size_t shm_len;
    rma_ctl_t *ctl;          /* this rank's control block in it (NULL: no segment; create
                                and dynamic windows: a segment of control blocks alone) */
    tp_iface_t *rdma;        /* the transport whose RDMA reaches this window (NULL: none) */
    tp_memh_t *memh;         /* this rank's window memory registered with it */
    uint8_t *gbounce;        /* small Gets land here first (rdma.c), made at the first one */
    tp_memh_t *gbmemh;       /* its registration */
    uint32_t gbfree;         /* its free slots, one bit each */
    int force_msg;           /* info rdmpi_rma_path=message: this rank uses messages only */
    int dev_atomics;         /* atomics on 8-byte integers and passive locks go through the
                                device, on every rank (devatom.c) */
    int dev_swap;            /* the device returns fetched words byte-swapped */
    MPI_Datatype dev_dt;     /* the last type rma_dev_fast found fit (predefined ones only:
                                never freed, so the pointer names it for good), or NULL */
    uint64_t *dword;         /* this rank's words registered for device atomics (lock word) */
    tp_memh_t *dmemh;
    int *rank_of_world;      /* window rank of each world rank, -1: not a member */
    rma_peer_t *peers;       /* by window rank */
    rma_region_t *regions;   /* dynamic: attached memory (absolute addresses) */
    size_t nregions, capregions;

    /* target side: the lock (RMA_LOCK_*_W) and the FIFO of ranks waiting for it */
    int excl;                /* rank holding it exclusively, or -1 */
    int nshared;
    int *lockq;              /* window ranks, lockq_len of them from lockq_head (ring of size) */
    int lockq_head, lockq_len;

    /* epochs at this rank */
    int fence_open;          /* a fence epoch is open */
    int lock_all;            /* inside lock_all */
    int nlocks;              /* targets locked with MPI_Win_lock */
    int access;              /* inside start ... complete */
    int exposure;            /* inside post ... wait */
    int completes_due;       /* COMPLETEs the current post waits for */
    int err;                 /* deferred error (a target refused a piece): CORE_E* */

    /* MPI bookkeeping */
    MPI_Errhandler errh;
    core_attr_t *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    int acc_ordering;        /* accumulate_ordering asks for an order (anything but "none") */
    int no_locks;            /* info no_locks = true */
    MPI_Aint attr_size;      /* storage the MPI_WIN_* attributes point at */
    int attr_disp, attr_flavor, attr_model;
};

/* Origin-side record of one operation (its pieces share it), named on the wire by id. */
typedef struct rma_opr {
    uint64_t id;             /* slot | generation << 32 (odd: in use) */
    MPI_Win win;
    int target;              /* window rank */
    int kind;                /* enum rma_kind */
    int left;                /* pieces not yet answered */
    int status;              /* RMA_ST_* */
    uint8_t *result;         /* GET/GACC/CAS: packed result, result_len bytes */
    size_t result_len;
    void *ubuf;              /* where the result is unpacked: count items of dt */
    size_t ucount;
    MPI_Datatype udt;        /* held (core_dt_retain) while the operation lives */
    MPI_Request req;         /* R* forms: completed with the operation */
    struct rma_opr *next;    /* free list */
} rma_opr_t;

/* Origin-side record of one RDMA Put or Get (rdma.c): never named on the wire, so no id and
 * no table, and nothing to unpack; what the transport's completion needs, from a free list. */
typedef struct rma_rop {
    tp_comp_t comp;          /* the transport's completion (first: rdma.c finds the record) */
    MPI_Win win;
    int target;              /* window rank */
    int kind;                /* RMA_PUT or RMA_GET */
    tp_memh_t *lmemh;        /* the origin buffer's registration (NULL: an inline write or
                                a bounced Get) */
    void *dest;              /* a bounced Get: where its bytes go at completion ... */
    int slot;                /* ... from this slot of win->gbounce (-1: not bounced) */
    size_t len;
    MPI_Request req;         /* R* forms: completed with the operation */
    struct rma_rop *next;    /* free list */
} rma_rop_t;

typedef struct rma_qmsg {    /* an active message the transport was too busy to take */
    struct rma_qmsg *next;
    int dest;
    unsigned id;
    size_t hlen, len;
    uint8_t data[];          /* header, then payload */
} rma_qmsg_t;

struct rma_state {
    core_runtime_t *rt;
    struct { MPI_Win win; uint32_t gen; } *wins;   /* the window table */
    uint32_t nwins;
    rma_opr_t **oprs;        /* the operation table */
    uint32_t noprs;
    rma_opr_t *opr_free;
    rma_rop_t *rop_free;     /* RDMA records (rdma.c) */
    unsigned flushes;        /* flush calls, for their progress pass (sync.c) */
    unsigned syncs;          /* MPI_Win_sync calls, for theirs (sync.c) */
    rma_qmsg_t *q_head, *q_tail;
    int lock_waiters;        /* message lock requests queued on busy lock words */
    int hook;
    char why[256];
};

/* ---- state (state.c) ---- */
/* The runtime's RMA state, made on first use (registers the AM handlers). */
int rma_state_get(core_runtime_t *rt, rma_state_t **st_p);
/* After the runtime is torn down (MPI_Finalize: the transports closed, no handler runs
 * any more, queued messages went out during its final barrier). */
void rma_state_free(rma_state_t *st);
int rma_win_register(rma_state_t *st, MPI_Win win);
void rma_win_unregister(rma_state_t *st, MPI_Win win);
/* The window a peer names (slot, generation), if it exists and world rank src belongs to it. */
MPI_Win rma_win_find(rma_state_t *st, uint32_t slot, uint32_t gen, int src, int *wrank);
rma_opr_t *rma_opr_alloc(rma_state_t *st);
void rma_opr_free(rma_state_t *st, rma_opr_t *o);
rma_opr_t *rma_opr_find(rma_state_t *st, uint64_t id);
/* Every piece of o is answered: result unpacked, request completed, record freed. */
void rma_opr_done(rma_state_t *st, rma_opr_t *o);
/* Sends an active message, queueing a copy when the transport is busy (order per peer
 * is kept: nothing overtakes a queued message). */
int rma_send(rma_state_t *st, int world_dest, unsigned id, const void *hdr, size_t hlen,
             const void *payload, size_t len);
/* Progress until *flag becomes nonzero (or *count zero with rma_wait_zero). */
void rma_wait_flag(volatile int *flag, const char *fn);
void rma_wait_zero(volatile int *count, const char *fn);
/* Until nothing is pending at window rank r. While only RDMA operations are (they complete
 * without anyone's help), it polls only the completion queue of the transport that carries
 * them (tp_poll_comp) and never sleeps: perftest's post-and-poll of one completion queue,
 * not a pass over every transport. */
void rma_wait_peer(MPI_Win win, int r, const char *fn);
/* Largest payload of one piece to window rank r. */
size_t rma_piece_max(MPI_Win win, int r);

/* ---- windows (win.c, shmwin.c) ---- */
int rma_win_create(MPI_Comm comm, void *base, MPI_Aint size, int disp_unit, int flavor,
                   MPI_Info info, MPI_Win *out);
int rma_win_free(MPI_Win win);
int rma_win_attach(MPI_Win win, void *base, MPI_Aint size);
int rma_win_detach(MPI_Win win, const void *base);
int rma_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
/* The node segment of an allocate(_shared) window (collective over the window; after the
 * creation's allgather filled peers[].size): sets win->base and the SHM peers. SHARED
 * flavor: every member must be on this node (CORE_ERMA_SHARED otherwise). Returns
 * CORE_EUNSUPPORTED (on every rank alike) when the allocate flavor gets no segment. */
int rma_seg_create(MPI_Win win, MPI_Aint size);
/* The control blocks alone (lock words) of a create or dynamic window, collective over the
 * window: sets win->ctl and the node peers' ctl, not their paths. No segment (shm does not
 * serve the node, or it could not be made, on every rank alike) is not an error. */
int rma_seg_ctl_create(MPI_Win win);
void rma_seg_destroy(MPI_Win win);
/* The spin lock of this rank's window memory for accumulates without a CPU atomic: NULL when
 * only this rank updates it (not in a segment: messages applied one at a time, and its own
 * operations), so whole runs need no per-element atomics. */
static inline uint32_t *rma_acc_lock(MPI_Win win)
{
    return win->ctl && (win->flavor == MPI_WIN_FLAVOR_ALLOCATE ||
                        win->flavor == MPI_WIN_FLAVOR_SHARED) ? &win->ctl->acc : NULL;
}
/* Whether window rank r shares this rank's node and the shm transport serves the node. */
int rma_on_node(MPI_Win win, int r);
/* The window's MPI_Info (accumulate_ordering, no_locks, ...). */
int rma_win_get_info(MPI_Win win, MPI_Info *info);
void rma_win_apply_info(MPI_Win win, MPI_Info info);

/* ---- CPU atomics on window memory (atomic.c) ---- */
/* n bytes of elements elem at dst: old (if not NULL) gets the contents before, then
 * dst[i] = src[i] aop dst[i] (src NULL: MPI_NO_OP), each element atomically with respect
 * to every other call here on the same memory (from any process mapping it); acc: the
 * spin lock of elements without a CPU atomic (NULL: no other process can touch dst and
 * this rank applies every accumulate on it one at a time: plain updates, no atomics).
 * src and old are packed; an element type with holes (rma_wire_acc_form ELEMS) lies at
 * dst in its own layout, elem->extent apart, n / elem->size elements. */
int rma_atomic_acc(uint8_t *dst, const uint8_t *src, uint8_t *old, size_t n,
                   MPI_Datatype elem, MPI_Op op, uint32_t *acc);
/* Compare-and-swap of one element of esz bytes. */
void rma_atomic_cas(uint8_t *dst, const uint8_t *val, const uint8_t *cmp, uint8_t *old,
                    size_t esz, uint32_t *acc);
/* Lock words: try once (1: taken), release. type: MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE. */
int rma_lw_try(rma_ctl_t *c, int type);
void rma_lw_release(rma_ctl_t *c, int type);

/* ---- operations at the origin (origin.c, direct.c) ---- */
typedef struct rma_segs {
    rma_seg_t *s;
    size_t n, cap;
    rma_seg_t inl[4];        /* the first segments: most operations need no allocation */
} rma_segs_t;
typedef struct rma_args {
    int kind;                            /* enum rma_kind */
    const void *obuf;                    /* origin data (PUT/ACC/GACC), compare buffer is cbuf */
    int ocount;
    MPI_Datatype odt;
    const void *cbuf;                    /* CAS */
    void *rbuf;                          /* result (GET: the origin buffer) */
    int rcount;
    MPI_Datatype rdt;
    int target;
    MPI_Aint tdisp;
    int tcount;
    MPI_Datatype tdt;
    MPI_Op op;
} rma_args_t;
/* Starts an operation in the current epoch; req != NULL: the R* forms. */
int rma_op_start(MPI_Win win, const rma_args_t *a, MPI_Request *req);
/* The direct paths: a checked operation of tbytes on the target memory v, complete when
 * it returns. CORE_EUNSUPPORTED: this path does not carry it (take messages). */
int rma_shm_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes);
int rma_cma_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes);
/* Whether target is this rank with its window memory reachable in place (see direct.c). */
int rma_self_usable(MPI_Win win, int target);
int rma_self_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes);
/* MPI_Put (put) or MPI_Get of count dt at buf to/from tcount tdt at tdisp of window rank
 * target (the arguments checked by the API), done here when the target is on the SHM path
 * (or is this rank, or on the CMA path: one process_vm_writev/readv), an epoch gives access
 * to it and both types are one run: 0, complete. CORE_EUNSUPPORTED:
 * anything else (nothing done; the general path takes it and reports any error). */
/* MPI_Fetch_and_op (cbuf NULL) or MPI_Compare_and_swap (compare value at cbuf; op unused) of
 * one element of predefined dt to a target on the SHM path (no device atomics, an epoch open,
 * the op (or compare-and-swap) defined on the type, the element in the target's part): the
 * CPU atomic, complete, 0. CORE_EUNSUPPORTED: anything else (nothing done). */
int rma_shm_fop_fast(MPI_Win win, const void *obuf, const void *cbuf, void *rbuf,
                     MPI_Datatype dt, int target, MPI_Aint tdisp, MPI_Op op);
/* MPI_Accumulate (rdt NULL) or MPI_Get_accumulate of tcount items of one predefined type
 * without holes (origin, result and target alike; the origin is not read for MPI_NO_OP)
 * with a predefined op defined on it, to a target on the SHM path (no device atomics, an
 * epoch open, the run in the target's part): rma_shm_op's per-element CPU atomics (the
 * target's accumulate lock for elements without one) straight from the call, complete, 0.
 * CORE_EUNSUPPORTED: anything else (nothing done). */
int rma_shm_acc_fast(MPI_Win win, const void *obuf, int ocount, MPI_Datatype odt, void *rbuf,
                     int rcount, MPI_Datatype rdt, int target, MPI_Aint tdisp, int tcount,
                     MPI_Datatype tdt, MPI_Op op);
int rma_shm_fast(MPI_Win win, int put, void *buf, int count, MPI_Datatype dt, int target,
                 MPI_Aint tdisp, int tcount, MPI_Datatype tdt);

/* ---- the RDMA path (rdma.c) ---- */
/* Creation: registers this rank's window memory with the transport that has RDMA to other
 * nodes and writes its remote key into rkey (RMA_RKEY_MAX bytes); returns the key's length,
 * 0 when the window offers no RDMA (no such transport, no memory, a dynamic window). */
size_t rma_rdma_reg(MPI_Win win, uint8_t *rkey);
void rma_rdma_dereg(MPI_Win win);
/* The RDMA records kept for reuse, freed (rma_state_free). */
void rma_rdma_free_records(rma_state_t *st);
/* Whether window rank r (whose card advertised a key of rkey_len bytes) is reached by RDMA:
 * sets its endpoint when it is. */
int rma_rdma_usable(MPI_Win win, int r, size_t rkey_len);
/* Starts a checked PUT or GET of tbytes at target segments v by RDMA (req: the R* forms'
 * request, completed with it). CORE_EUNSUPPORTED: not carried here (take messages). */
int rma_rdma_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes,
                MPI_Request req);
/* rma_shm_fast's twin for a target on the RDMA path: a Put or Get of one run to one run
 * (arguments checked by the API) started straight from the MPI call, without an argument
 * record or segment list. CORE_EUNSUPPORTED: anything else (nothing done). */
int rma_rdma_fast(MPI_Win win, int put, void *buf, int count, MPI_Datatype dt, int target,
                  MPI_Aint tdisp, int tcount, MPI_Datatype tdt);

/* ---- device atomics (devatom.c) ---- */
/* Creation, before the cards are exchanged: registers this rank's lock word with the window's
 * RDMA transport when it has device atomics and this rank can offer them; returns the key's
 * length (0: not offered) with its address in *addr. */
size_t rma_dev_reg(MPI_Win win, uint64_t *addr, uint8_t *rkey);
void rma_dev_dereg(MPI_Win win);
/* Creation, after the cards (all, by window rank) and the paths: the window-wide choice
 * (collective when every card offers). Sets win->dev_atomics. */
int rma_dev_decide(MPI_Win win, const rma_card_t *all);
/* An accumulate, fetch-and-op or compare-and-swap on 8-byte integers done with device
 * atomics, complete when it returns. CORE_EUNSUPPORTED: not carried here. */
int rma_dev_op(MPI_Win win, const rma_args_t *a, const rma_segs_t *v, size_t tbytes);
/* MPI_Fetch_and_op (cbuf NULL) or MPI_Compare_and_swap of one element of dt (arguments
 * checked by the API) by one device atomic, straight from the MPI call, when the window has
 * device atomics and the op is one atomic (SUM, NO_OP; CAS): complete when it returns.
 * CORE_EUNSUPPORTED: anything else (nothing done; the general path takes it). */
int rma_dev_fast(MPI_Win win, const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                 int target, MPI_Aint tdisp, MPI_Op op);
/* Passive locks on window rank r's lock word: 1 taken, 0 not now; or a CORE_E* code. */
int rma_dev_lock_try(MPI_Win win, int r, int type);
int rma_dev_lock_release(MPI_Win win, int r, int type);

/* ---- target side (apply.c, target.c) ---- */
/* 0 when every segment of m lies in win's memory; -1 with why otherwise. */
int rma_apply_check(MPI_Win win, const rma_op_msg_t *m, char *why, size_t why_len);
/* Applies m (checked) to win; GET, GACC, CAS: out gets m->h.len bytes of old contents. */
int rma_apply(MPI_Win win, const rma_op_msg_t *m, uint8_t *out);
int rma_op_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                   size_t len);
int rma_reply_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                      size_t len);
int rma_ctrl_handler(void *arg, int src, const void *hdr, size_t hdr_len, const void *payload,
                     size_t len);
/* Sends CTRL type (arg) to window rank r. */
int rma_ctrl_send(MPI_Win win, int r, int type, int arg);
/* Target: lock asked by window rank r (also for itself), and the release (answered by
 * UNLOCKED, or for this rank itself by clearing its unlocking flag). */
void rma_lock_request(MPI_Win win, int r, int type);
int rma_unlock_request(MPI_Win win, int r);
/* Whether this rank takes its own window's lock (window rank r is itself, outside a node
 * segment) by calling the target side directly instead of messages to itself: the same
 * queue and grants as everyone's, without the round trip. */
static inline int rma_self_lock(MPI_Win win, int r)
{
    return r == win->rank && !win->force_msg && win->peers[r].path != RMA_PATH_SHM;
}
/* Target: grants queued message lock requests that the lock word now allows (hook). */
void rma_lock_retry(MPI_Win win);

/* ---- synchronization (sync.c) ---- */
int rma_fence(MPI_Win win, int assert);
int rma_post(MPI_Win win, MPI_Group group, int assert);
int rma_start(MPI_Win win, MPI_Group group, int assert);
int rma_complete(MPI_Win win);
int rma_wait(MPI_Win win, int *flag);   /* flag NULL: block (MPI_Win_wait); else MPI_Win_test */
int rma_lock(MPI_Win win, int type, int rank, int assert);
int rma_unlock(MPI_Win win, int rank);
int rma_lock_all(MPI_Win win, int assert);
int rma_unlock_all(MPI_Win win);
int rma_flush(MPI_Win win, int rank);   /* rank -1: every target */
/* MPI_Win_sync: a full memory barrier, and now and then a progress pass (sync.c). */
void rma_win_sync(MPI_Win win);
/* Whether an operation to window rank r is allowed now (an epoch gives access to r). */
int rma_access_ok(MPI_Win win, int r);

#endif
