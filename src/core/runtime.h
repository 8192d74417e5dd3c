/*
 * The base instance: the job description (from the bootstrap), the settings
 * registry, the request table and the progress engine's state. The runtime
 * layer (src/rt) builds one at MPI_Init, hangs the upper layers' instances
 * off it (top) and tears it down at MPI_Finalize. core_rt, the pointer to it,
 * is the library's one global instance pointer: the MPI_* entry points and
 * the code paths without an instance argument (signal handlers, core_fatal)
 * start from it.
 */
#ifndef RDMPI_CORE_RUNTIME_H
#define RDMPI_CORE_RUNTIME_H

#include <stdint.h>
#include <string.h>
#include "core/waitslice.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/secret.h"
#include "core/request.h"
#include "core/thread.h"

/* For the few small functions on the message path that the compiler would
 * otherwise keep out of line (each level costs a call, a frame and a return). */
#define CORE_INLINE static inline __attribute__((always_inline))

#define CORE_MAX_POLLERS 8
#define CORE_CTX_MAX 4096   /* context ids; each communicator takes two */
#define CORE_CTX_WORDS (CORE_CTX_MAX / 2 / 32)
#define CORE_MAX_HOOKS 8
/* MULTIPLE: blocked calls the SIGRTMIN+3 report can list at once (one per thread). */
#define CORE_WAIT_SLOTS 64
/* One blocked call of a thread (core_wait_register): fn is the slot's claim (NULL: free,
 * CORE_WAIT_CLAIMING while the owner fills it in), the others are read after it (acquire);
 * every field is read and written with atomic accesses. */
typedef struct core_wait_slot {
    const char *fn;
    MPI_Request req;
    double start;
} core_wait_slot_t;

struct core_wait_ctx;
struct rt_runtime;   /* the runtime layer's instance (src/rt/rt.h), opaque here */
struct p2p_state;
struct coll_state;
struct api_state;

/* Something the progress engine polls on every pass (a transport interface). */
typedef struct core_poller {
    int (*fn)(void *arg);
    void *arg;
    int (*outside)(void *arg); /* its pass outside the critical section, or NULL: polled in
                                  passes inside it only (core_progress_add_poller) */
    int (*unread)(void *arg);  /* with outside, or NULL: 1 while a peer has not taken all
                                  we sent it (core_wait_req_outside's hand-off) */
} core_poller_t;

/* The keyvals (core/attr.c): user keyvals by index, the predefined attributes' values. */
#define CORE_ATTR_NPREDEF 8
typedef struct core_attr_table {
    struct core_keyval *keyvals;
    int nkeyvals, capkeyvals;
    int predef_value[CORE_ATTR_NPREDEF];
    int predef_set[CORE_ATTR_NPREDEF];
} core_attr_table_t;

#define CORE_XPORTS 16 /* ports one process may hold open at once */
#define CORE_XPORT_PENDING 8 /* connections on one port accepted, their hello not yet read */

typedef struct core_runtime {
    core_config_t cfg;         /* the settings registry (every component's settings) */
    const core_settings_t *settings;  /* the base services' own (core_settings_group) */

    /* Job layout, from the bootstrap (PMIx) or singleton defaults. */
    int rank, size;            /* in MPI_COMM_WORLD */
    int local_rank, local_size;
    int *local_ranks;          /* world ranks on this node, by local rank */
    int *node_of;              /* node index of every world rank (by hostname) */
    int nnodes;
    char hostname[256];
    char nspace[256];          /* the job's name ("singleton" when alone) */
    int singleton;
    int pmix_up;               /* connected to the launcher's PMIx server */
    pthread_mutex_t boot_lock; /* every PMIx call runs inside it (core/bootcall.h) */
    int spawned;               /* started by MPI_Comm_spawn (PMIX_PARENT_ID is set) */
    int oversubscribed;        /* ranks on this node outnumber its cores */
    int appnum;                /* the launcher's application number (PMIX_APPNUM), or -1 */
    int universe_size;         /* PMIX_UNIV_SIZE, else the job's size */
    uint8_t job_key[CORE_KEY_LEN]; /* shared by every member of the job (core/secret.h) */
    double wait_sleep;         /* idle seconds before a blocked call sleeps; 0: never */
    double wait_sleep_busy;    /* the same once a wait finds its core taken by others */
    int wait_awake;            /* > 0: blocked calls yield instead of sleeping (a layer above
                                  waits on other processes' stores: core_progress_awake) */
    double wait_nap;           /* idle seconds before a blocked call that cannot sleep naps
                                  (core_wait_idle_slow); 0: never */
    double wait_slow_yield;    /* when a yield last gave the core to another process's time
                                  slice (core_wait_idle_slow); 0: never */
    int wait_spell;            /* after such a yield, waits sleep after one yield for a while
                                  (core_wait_policy) */
    core_crowd_t wait_crowd;   /* how often others took our cores lately (core/waitslice.h) */
    double wait_slice;         /* scheduler slice to ask for once others share our cores; 0:
                                  none (core_wait_policy) */
    int wait_slice_asked;      /* asked for it (once per process) */
    double wait_slice_looked;  /* when the crowd rule last read the runnable count (progress.c) */
    int ncores;
    char **rank_hosts;         /* lazily looked-up hostnames, by process (core_rank_host) */

    /* Processes: 0..size-1 are the world ranks; size..nprocs-1 processes of other jobs
     * (spawned, parents, connected), added by core/procs.c. Per-process tables of every
     * layer are sized proc_cap, so they never move. */
    int nprocs, proc_cap;
    int uid_base;              /* this job's first number among the launcher's processes */
    int launcher_numbers;      /* the launcher numbers its jobs' processes (CORE_UBASE_PMIX):
                                  rdmpirun, the only launcher asked to spawn */
    struct core_proc *procs;   /* the other jobs' processes, from index size */
    struct rdmpi_comm *parent; /* MPI_Comm_get_parent's intercommunicator, or NULL */
    int port_seq;              /* ports opened by this process (MPI_Open_port) */
    struct core_bridge *bridges; /* keys shared with other runs (core/procs.h), CORE_BRIDGES */
    int nbridges;
    /* The listening sockets of this process's open ports, where roots of other runs
     * connect (owned by api/xport.c; open 0: a free slot, as calloc leaves it), and the
     * connections taken from each that have not said hello yet, with their deadlines. */
    struct {
        int seq, fd, open, npend;
        int pend[CORE_XPORT_PENDING];
        double pend_until[CORE_XPORT_PENDING];
    } xports[CORE_XPORTS];

    /* The progress engine (core/progress.h): what every pass polls, the hooks of the layers
     * above that run while they have work (bit per hook in progress_pending), and the
     * layer that can put an idle rank to sleep. */
    core_poller_t pollers[CORE_MAX_POLLERS];
    int npollers;
    int npollers_outside;    /* of them, those with a pass outside the critical section */
    int (*hooks[CORE_MAX_HOOKS])(void *arg);
    void *hook_args[CORE_MAX_HOOKS];
    int nhooks;
    unsigned progress_pending;
    int (*sleep)(void *arg);   /* NULL: some poller cannot wake a sleeping rank */
    void *sleep_arg;
    int wait_quiet;            /* idle polls before core_wait_idle needs its slow path */
    struct core_wait_ctx *volatile current_wait; /* for the SIGRTMIN+3 report (but MULTIPLE) */
    /* MULTIPLE: the blocked calls of every thread, inside the critical section or outside it,
     * for the SIGRTMIN+3 report (core_wait_register): a copy of what describes each, since
     * the report is written by whichever thread the signal interrupts. */
    core_wait_slot_t waits[CORE_WAIT_SLOTS];

    /* Every request of the process (core/request.h): peers name them by id. */
    core_req_table_t reqs;

    /* Why the last active-message handler refused its message (core_wire_reject), for
     * the transport's report (core_wire_fail). */
    char wire_why[256];

    int thread_level;
    core_cs_t cs;              /* MPI_THREAD_MULTIPLE's critical section (core/thread.h) */
    double wtime_base;

    /* Context ids (core_ctx_reserve/free): bit set = the pair 2i, 2i+1 is free here. */
    uint32_t ctx_free[CORE_CTX_WORDS];

    core_attr_table_t attr;    /* keyvals */

    struct rt_runtime *top;    /* the runtime layer's instance that owns this one */
    struct p2p_state *p2p;     /* p2p's instance (src/p2p/proto.h), opaque here */
    struct coll_state *coll;   /* the collectives' (collectives/coll_impl.h), opaque here */
    struct api_state *api;     /* the entry points' (src/api/api.h), opaque here */

    /* One-sided communication (src/rma): made on the first window, freed by MPI_Finalize. */
    struct rma_state *rma;
    int rma_hook, rma_hook_added;
    /* MPI-IO's process state (src/io: MPI_FILE_NULL's error handler, registered data
     * representations, Fortran handles); created on first use, freed at MPI_Finalize. */
    struct io_runtime *io;
} core_runtime_t;

extern core_runtime_t *core_rt;

/* Zeroes a request up to its id (what a fresh request must read as; core_req_alloc). gcc
 * makes the memset of these 248 bytes a `rep stos`, whose start-up costs more than the stores themselves on
 * this hot path (one per nonblocking call); sixteen-byte stores written out one by one stay
 * stores (a loop would be turned back into the memset). */
typedef uint64_t req_v16_t __attribute__((vector_size(16), aligned(8), may_alias));
#define REQ_CLEAR_V16 (offsetof(struct rdmpi_request, id) / sizeof(req_v16_t))
_Static_assert(REQ_CLEAR_V16 <= 16, "struct rdmpi_request outgrew core_req_clear");
CORE_INLINE void core_req_clear(MPI_Request req)
{
    req_v16_t *v = (req_v16_t *)(void *)req, z = { 0, 0 };
#define REQ_Z(i)                                                                                   \
    if ((i) < REQ_CLEAR_V16)                                                                       \
    v[(i) < REQ_CLEAR_V16 ? (i) : 0] = z
    REQ_Z(0); REQ_Z(1); REQ_Z(2); REQ_Z(3); REQ_Z(4); REQ_Z(5); REQ_Z(6); REQ_Z(7);
    REQ_Z(8); REQ_Z(9); REQ_Z(10); REQ_Z(11); REQ_Z(12); REQ_Z(13); REQ_Z(14); REQ_Z(15);
#undef REQ_Z
    size_t done = REQ_CLEAR_V16 * sizeof(req_v16_t);
    memset((char *)req + done, 0, offsetof(struct rdmpi_request, id) - done);
}

/* A request off a free list made fresh for kind: zeroed, its id odd (in use: a new
 * generation, so ids of its earlier uses are stale), no source or tag yet. */
CORE_INLINE void core_req_take(MPI_Request req, int kind)
{
    core_req_clear(req);
    __atomic_store_n(&req->id, req->id + CORE_REQ_GEN_ONE, __ATOMIC_RELAXED); /* odd: in use */
    req->kind = (uint8_t)kind;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
}

/* core_req_alloc and core_req_free inline for their common case: no threads share objects
 * (the table's free list, no cache) and, when freeing, nothing to run or release (no hook,
 * free function, held datatype, not persistent). A window of 8-byte nonblocking calls
 * (osu_mbw_mr) allocates and frees one request per message on each side; the calls and
 * their prologues were ~20 instructions of each (callgrind). */
CORE_INLINE MPI_Request core_req_get(int kind)
{
    core_req_table_t *t = &core_rt->reqs;
    /* shared first: under MULTIPLE the free list is the lock's (cache_refill, cache_drain) */
    if (__builtin_expect(t->shared, 0))
        return core_req_alloc(kind);
    MPI_Request req = t->free_list;
    if (__builtin_expect(!req, 0))
        return core_req_alloc(kind);
    t->free_list = req->next;
    core_req_take(req, kind);
    return req;
}
CORE_INLINE void core_req_put(MPI_Request req)
{
    core_req_table_t *t = &core_rt->reqs;
    if (__builtin_expect(t->shared || req->hook || req->free_fn || req->dt_held ||
                             req->persistent, 0)) {
        core_req_free(req);
        return;
    }
    /* even: free; every id of it is stale now */
    __atomic_store_n(&req->id, req->id + CORE_REQ_GEN_ONE, __ATOMIC_RELAXED);
    req->next = t->free_list;
    t->free_list = req;
}

/* Logs msg and ends the whole job (for states the library cannot recover from). */
void core_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Hostname of a world rank (from the bootstrap). */
const char *core_rank_host(core_runtime_t *rt, int rank);
/* The id of this process's rdmpirun run: 64 bits derived from the job key, which every job
 * of one run shares (spawned ones too) and no other run knows, so two runs differ (but for
 * a 2^-64 chance) and the id says nothing of the key. Ports carry it (core/portname.h). */
uint64_t core_run_id(const core_runtime_t *rt);
/* Frees what core_rank_host cached. */
void core_rank_hosts_free(core_runtime_t *rt);

/* Malformed messages from peers (core/wire.c).
 *
 * A handler that refuses a message says why with core_wire_reject and returns what it
 * returns (CORE_EPROTO); the transport that received the message stops taking anything
 * from that peer (closes the connection, or marks the peer failed and drops what it sends)
 * and calls core_wire_fail, once per peer. core_wire_fail reports one line naming the
 * peer's rank and host, the transport, the message and the reason, and ends the job the
 * way a dead peer does (core_fatal): operations pending with that peer could never
 * complete. */
int core_wire_reject(core_runtime_t *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* what: the message ("CTS", "frame"); why: NULL for rt->wire_why. */
void core_wire_fail(core_runtime_t *rt, int peer, const char *tp, const char *what,
                    const char *why);

#endif
