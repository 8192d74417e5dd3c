/*
 * Requests: one structure for every nonblocking operation (point-to-point,
 * persistent, collective), and the request table they live in. The fields
 * below "p2p state" belong to src/p2p, those below "collective" to
 * collectives/.
 *
 * The table (core_req_table_t, one per runtime) owns every request: a slot
 * array indexed by a 32-bit slot number, and a free list. A request keeps its
 * slot for life (requests are recycled, never returned to malloc before
 * finalize), so the API hands out plain pointers while a peer only ever sees
 * an id: slot | generation << 32. The generation is bumped when the request
 * is allocated and when it is freed (odd: in use, even: free), and twice
 * more when a persistent request restarts, so an id names one use of one
 * request: a stale id (an earlier use), a forged one (a slot never handed
 * out, a generation never given) or an id of a free slot is refused by
 * core_req_lookup in O(1), without trusting any bit of it.
 *
 * The slot array is made of chunks that never move: chunk k holds 64 << k
 * slots, so growing adds a chunk and a lookup (by whichever thread progresses,
 * issue 21 item 3) never reads an array being reallocated. The count of slots
 * is published with release once the new slot and its request are in place, and
 * read with acquire; a request's id is read and written with relaxed atomics (a
 * lookup may race with the request's release, which the id check then refuses).
 */
#ifndef RDMPI_CORE_REQUEST_H
#define RDMPI_CORE_REQUEST_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

/* A completion callback: the transports layer completes a request's zero-copy operation
 * through the one a request embeds (transports/transport.h: tp_comp_t). */
typedef struct core_comp core_comp_t;
struct core_comp {
    void (*done)(core_comp_t *comp, int status);
};
struct tp_memh; /* a transport's registration handle: opaque here */
#include "datatype.h"
#include "core/handle.h"

/* A request's hook (rdmpi_request.hook), called with the event: a persistent request starts
 * (CORE_REQ_HOOK_START), the operation completes (CORE_REQ_HOOK_DONE, before complete is set),
 * the request is released (CORE_REQ_HOOK_FREE, last call: the hook frees arg). */
enum { CORE_REQ_HOOK_START = 1, CORE_REQ_HOOK_DONE, CORE_REQ_HOOK_FREE };
typedef void (*core_req_hook_fn)(void *arg, int event);

enum core_req_kind {
    CORE_REQ_SEND = 1,
    CORE_REQ_RECV,
    CORE_REQ_COLL,   /* collective schedule or communicator operation */
    CORE_REQ_NULL,   /* persistent request on MPI_PROC_NULL */
    CORE_REQ_GREQ,   /* generalized request (src/api/grequest.c; state in sched) */
};

/* Send modes. */
enum { CORE_MODE_STANDARD = 0, CORE_MODE_SYNC, CORE_MODE_READY, CORE_MODE_BUFFERED };

struct p2p_unexp;

struct rdmpi_request {
    uint8_t kind;            /* enum core_req_kind */
    uint8_t persistent;
    uint8_t active;          /* persistent: started and not yet completed */
    uint8_t freed;           /* MPI_Request_free before completion: release when done */
    uint8_t mode;            /* send mode */
    uint8_t cancelled;
    uint8_t dt_held;         /* holds a reference on a derived dt (MPI_Type_free may come first) */
    uint8_t sleeping;        /* MULTIPLE: its waiter sleeps on bell (core_cs_sleep) */
    volatile int complete;
    _Atomic uint32_t bell;   /* MULTIPLE: the futex word its waiter sleeps on */
    MPI_Status status;

    /* The operation, as the user gave it. */
    MPI_Comm comm;
    uint32_t ctx;
    void *buf;
    size_t count;
    MPI_Datatype dt;
    int peer;                /* comm rank (MPI_ANY_SOURCE for receives) */
    int tag;

    /* p2p state */
    int proto;
    void *tmp;               /* packed send data or receive staging */
    size_t len;              /* message length (send) or capacity (receive) */
    size_t offset;           /* pipelined rendezvous: bytes moved */
    size_t want;             /* pipelined rendezvous: bytes the receiver takes */
    uint64_t remote;         /* the peer's request id */
    int world_peer;          /* world rank of the matched peer */
    struct tp_memh *memh;
    core_comp_t comp;
    uint32_t zc_left;        /* pipelined rendezvous sent zero copy: chunks the transport
                                has not given back yet (their comp) */
    struct p2p_unexp *msg;   /* matched-probe message (MPI_Mrecv) */
    struct rdmpi_request *next;    /* queue link (posted, pending) */
    void *bsend_block;       /* buffered send: the attached-buffer block it holds */

    uint8_t wait;            /* the peer's message it waits for (P2P_WAIT_*, src/p2p) */
    uint8_t underway;        /* in p2p's list of exchanges with other jobs (p2p_underway) */
    MPI_Group any_group;     /* posted MPI_ANY_SOURCE receive: its communicator's group,
                                held while posted, to check who a message claims to be from */

    /* collective */
    void *sched;
    int (*progress_fn)(MPI_Request req);   /* advances a schedule; 1 when finished */
    void (*free_fn)(MPI_Request req);

    /* file access (MPI_File_iread_all, ...): an error at completion goes to the file's
     * error handler, not a communicator's */
    struct rdmpi_file *file;

    /* A language binding's work around the operation (core_req_hook_fn): the Fortran glue
     * copies a strided array section into a contiguous copy at each start and back when the
     * operation completes, before the request shows complete. */
    core_req_hook_fn hook;
    void *hook_arg;

    /* Owned by the request table, kept across reuse (not cleared by core_req_alloc). */
    uint64_t id;             /* slot | generation << 32: what peers see (core_req_lookup) */
};

/* The request table; lives in the runtime (core_runtime_t.reqs). */
#define CORE_REQ_CHUNK0_LOG 6  /* chunk 0 holds 64 slots */
#define CORE_REQ_NCHUNKS 26    /* enough for 2^31 slots */
typedef struct core_req_table {
    MPI_Request *chunk[CORE_REQ_NCHUNKS]; /* chunk k: slots 64 * (2^k - 1) .. 64 * (2^(k+1) - 1) */
    uint32_t nslots;         /* slots made (core_req_count) */
    MPI_Request free_list;   /* linked through next */
    /* MULTIPLE (shared): each thread allocates from and frees to a cache of its own of a few
     * free requests, and only a cache that runs empty or full takes the lock (a leaf: nothing
     * is called under it but the table's growth) to move a batch from or to the free list. */
    int shared;
    uint64_t epoch;          /* this table's: a thread's cache of another (an earlier
                                runtime's) is dropped, its requests were freed with it */
    pthread_mutex_t lock;    /* shared: the free list and the growth */
} core_req_table_t;

/* Readies the table; shared: threads allocate and free at once (MULTIPLE). */
void core_req_table_init(core_req_table_t *t, int shared);

#define CORE_REQ_GEN_ONE ((uint64_t)1 << 32)

/* Frees every request of the table (finalize: nothing may use them afterwards). */
void core_req_table_fini(core_req_table_t *t);

MPI_Request core_req_alloc(int kind);

/*
 * Whether r is a request the application may still pass to MPI: made by
 * core_req_alloc, not yet returned by core_req_free, and not given up with
 * MPI_Request_free. Never reads *r unless r is a slot of the request
 * memory (slabs of core_handles.req, which stay mapped); a pointer that is
 * not one gives 0 (MPI_REQUEST_NULL too). In use: the generation in r->id
 * is odd. A slot reused by a new request makes an old handle to it valid
 * again: an MPI_Request is a pointer, it carries no generation.
 */
static inline int core_req_valid(MPI_Request r)
{
    return core_handle_in_slabs(&core_handles.req, (uintptr_t)r) &&
           (__atomic_load_n(&r->id, __ATOMIC_RELAXED) & CORE_REQ_GEN_ONE) && !r->freed;
}
/* Keeps a derived datatype alive while req uses it: MPI lets the user free
 * it right after starting the operation. Predefined types need nothing. */
static inline void core_req_hold_dt(MPI_Request req, MPI_Datatype dt)
{
    req->dt = dt;
    if (!(dt->flags & CORE_DT_PREDEFINED)) {
        core_dt_retain(dt);
        req->dt_held = 1;
    }
}
/* Returns a request to the pool (releases its comm/datatype references). */
void core_req_free(MPI_Request req);
/* Marks req complete; a freed (MPI_Request_free'd) request is released here. Under
 * MULTIPLE, `complete` is CORE_REQ_COMPLETING (nonzero: complete to its waiters) while the
 * completer may still ring the waiter, then 1; core_req_free waits out the first. */
#define CORE_REQ_COMPLETING 2
void core_req_complete(MPI_Request req);
/* core_req_complete's common case inline: no threads sharing requests, no hook, not freed
 * (one release store; the call was part of ~45 instructions of each 8-byte arrival,
 * callgrind of osu_mbw_mr). */
static inline __attribute__((always_inline)) void core_req_complete_fast(MPI_Request req)
{
    if (__builtin_expect(!core_handles.shared && !req->hook && !req->freed, 1))
        __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    else
        core_req_complete(req);
}
/* A persistent request started again (MPI_Start), or a completed send made to wait again
 * (MPI_Cancel's question): its flag cleared, once the completer of its last round is done
 * with it. Under MULTIPLE the waiter may see it complete (CORE_REQ_COMPLETING) while the
 * completer still rings it, and the completer's store of 1 would land on the new round:
 * the restarted request would show complete before its operation did anything. */
void core_req_restart(MPI_Request req);

/* Whether req completed (nonzero: CORE_REQ_COMPLETING or 1). Acquire: under MULTIPLE a
 * completer may be the progress engine outside G, holding no lock the reader holds; the
 * status and the data come before the flag (core_req_complete). A plain load on x86. */
static inline int core_req_is_complete(MPI_Request req)
{
    return __atomic_load_n(&req->complete, __ATOMIC_ACQUIRE);
}

/* How many slots the table has made (0 .. n-1 are readable with core_req_at). */
static inline uint32_t core_req_count(const core_req_table_t *t)
{
    return __atomic_load_n(&t->nslots, __ATOMIC_ACQUIRE);
}

/* Slot number slot's place in its chunk; slot < core_req_count(t). */
static inline MPI_Request *core_req_slot(const core_req_table_t *t, uint32_t slot)
{
    uint32_t v = slot + (1u << CORE_REQ_CHUNK0_LOG); /* < 2^32: slots stay below 2^31 */
    int top = 31 - __builtin_clz(v);
    return &t->chunk[top - CORE_REQ_CHUNK0_LOG][v - (1u << top)];
}

/* The request of slot number slot (in use or free); slot < core_req_count(t). */
static inline MPI_Request core_req_at(const core_req_table_t *t, uint32_t slot)
{
    return *core_req_slot(t, slot);
}

/* The request a peer's id names: in range, of the current generation, in use; else NULL.
 * Never reads outside the table, whatever the id; lock-free against the table's growth. */
static inline MPI_Request core_req_lookup(const core_req_table_t *t, uint64_t id)
{
    uint32_t slot = (uint32_t)id;
    if (!((id >> 32) & 1) || slot >= core_req_count(t))
        return NULL;
    MPI_Request r = core_req_at(t, slot);
    return __atomic_load_n(&r->id, __ATOMIC_RELAXED) == id ? r : NULL;
}

/* A new id for a request used again (a persistent request's next start): ids of the
 * earlier use become stale. Keeps the generation odd (in use). */
static inline void core_req_renew(MPI_Request req)
{
    __atomic_store_n(&req->id, req->id + 2 * CORE_REQ_GEN_ONE, __ATOMIC_RELAXED);
}

/* Copies a status to the caller's, all but MPI_ERROR: MPI sets that field only in the
 * statuses of the multiple-completion calls, and only when they return
 * MPI_ERR_IN_STATUS; every other call leaves the caller's value as it was (MPICH's
 * mprobef checks it). */
static inline void core_status_out(MPI_Status *st, const MPI_Status *from)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    int err = st->MPI_ERROR;
    *st = *from;
    st->MPI_ERROR = err;
}

/* Copies req's status to st (not its MPI_ERROR) unless st is MPI_STATUS_IGNORE. */
static inline void core_req_status(MPI_Request req, MPI_Status *st)
{
    core_status_out(st, &req->status);
}

#endif
