/*
 * The request table (see request.h). Requests are recycled through a free
 * list so the hot path of a nonblocking call never reaches malloc after
 * warm-up; the table only grows when the free list is empty.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/request.h"
#include "core/comm.h"
#include "core/datatype.h"
#include "core/runtime.h"

#define TABLE_MAX ((uint32_t)1 << 31) /* slot numbers stay far from wrapping */

/* Adds one request to the table (the free list was empty). Out of line: core_req_alloc's
 * common case stays a leaf. The slot is filled before the count is published (release):
 * a lookup that sees the count sees the chunk and the request's id. */
static __attribute__((noinline, cold)) MPI_Request table_grow(core_req_table_t *t)
{
    uint32_t n = t->nslots;
    if (n >= TABLE_MAX)
        return NULL;
    uint32_t v = n + (1u << CORE_REQ_CHUNK0_LOG);
    int top = 31 - __builtin_clz(v);
    MPI_Request **chunk = &t->chunk[top - CORE_REQ_CHUNK0_LOG];
    if (!*chunk && !(*chunk = calloc((size_t)1 << top, sizeof(**chunk))))
        return NULL;
    /* From the request handle pool: its memory stays mapped, so core_req_valid can look
     * at a freed or made-up handle without reading freed memory. A table slot is live in
     * the pool for good; its generation says whether a request is in use. */
    MPI_Request req = core_handle_alloc(&core_handles.req, sizeof(*req));
    if (!req)
        return NULL;
    req->id = n; /* generation 0: free */
    *core_req_slot(t, n) = req;
    __atomic_store_n(&t->nslots, n + 1, __ATOMIC_RELEASE);
    return req;
}

/* A thread's cache of free requests (see request.h's table): per thread by nature.
 * initial-exec: one load off the thread pointer, as the section's depth (thread.c). A thread
 * that exits leaves its cached requests out of reuse until MPI_Finalize frees the table (at
 * most CACHE_MAX of them each). */
#define CACHE_MAX 16
#define CACHE_BATCH 8
typedef struct req_cache {
    MPI_Request head;        /* linked through next */
    unsigned n;
    uint64_t epoch;          /* the table these belong to */
} req_cache_t;
static _Thread_local req_cache_t req_cache __attribute__((tls_model("initial-exec")));

void core_req_table_init(core_req_table_t *t, int shared)
{
    t->shared = shared;
    if (!shared)
        return;
    pthread_mutex_init(&t->lock, NULL);
    /* Unique per runtime: another one made later in this process (MPI_Session_init after
     * MPI_Finalize) gets a later time. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t->epoch = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 1;
}

/* The cache ran empty: refill it with a batch from the free list (growing the table). */
static __attribute__((noinline)) MPI_Request cache_refill(core_req_table_t *t, req_cache_t *c)
{
    MPI_Request req = NULL;
    pthread_mutex_lock(&t->lock);
    if (c->epoch != t->epoch) /* another runtime's requests, freed with it */
        *c = (req_cache_t){ NULL, 0, t->epoch };
    for (int i = 0; i < CACHE_BATCH; i++) {
        MPI_Request r = t->free_list;
        if (r)
            t->free_list = r->next;
        else if (!(r = table_grow(t)))
            break;
        r->next = req;
        req = r;
    }
    pthread_mutex_unlock(&t->lock);
    if (!req)
        return NULL;
    c->head = req->next;
    c->n = 0;
    for (MPI_Request r = c->head; r; r = r->next)
        c->n++;
    return req;
}

/* The cache is full (or of another runtime): give req and a batch back to the free list. */
static __attribute__((noinline)) void cache_drain(core_req_table_t *t, req_cache_t *c,
                                                  MPI_Request req)
{
    pthread_mutex_lock(&t->lock);
    if (c->epoch != t->epoch)
        *c = (req_cache_t){ NULL, 0, t->epoch };
    req->next = t->free_list;
    t->free_list = req;
    for (; c->n > CACHE_MAX - CACHE_BATCH; c->n--) {
        MPI_Request r = c->head;
        c->head = r->next;
        r->next = t->free_list;
        t->free_list = r;
    }
    pthread_mutex_unlock(&t->lock);
}


MPI_Request core_req_alloc(int kind)
{
    core_req_table_t *t = &core_rt->reqs;
    MPI_Request req;
    if (t->shared) {
        req_cache_t *c = &req_cache;
        if (c->head && c->epoch == t->epoch) {
            req = c->head;
            c->head = req->next;
            c->n--;
        } else if (!(req = cache_refill(t, c))) {
            return NULL;
        }
    } else if ((req = t->free_list)) {
        t->free_list = req->next;
    } else if (!(req = table_grow(t))) {
        return NULL;
    }
    core_req_take(req, kind);
    return req;
}

/* Under MULTIPLE: until req's completer is done with it (core_req_complete: it may still be
 * ringing the waiter). Acquire: what it wrote comes before what the caller writes next. */
static inline void settle(MPI_Request req)
{
    while (__builtin_expect(__atomic_load_n(&req->complete, __ATOMIC_ACQUIRE) ==
                                CORE_REQ_COMPLETING, 0))
        sched_yield();
}

void core_req_restart(MPI_Request req)
{
    if (core_rt->reqs.shared)
        settle(req);
    __atomic_store_n(&req->complete, 0, __ATOMIC_RELAXED);
}

void core_req_free(MPI_Request req)
{
    core_req_table_t *t = &core_rt->reqs;
    if (req->hook)
        req->hook(req->hook_arg, CORE_REQ_HOOK_FREE);
    if (req->free_fn)
        req->free_fn(req);
    if (req->dt_held || (req->persistent && req->dt))
        core_dt_release(req->dt);
    if (req->persistent) {
        if (req->comm)
            core_comm_release(req->comm);
    }
    /* even: free; every id of it is stale now */
    __atomic_store_n(&req->id, req->id + CORE_REQ_GEN_ONE, __ATOMIC_RELAXED);
    if (t->shared) {
        settle(req);
        req_cache_t *c = &req_cache;
        if (c->n < CACHE_MAX && c->epoch == t->epoch) {
            req->next = c->head;
            c->head = req;
            c->n++;
        } else {
            cache_drain(t, c, req);
        }
        return;
    }
    req->next = t->free_list;
    t->free_list = req;
}

void core_req_complete(MPI_Request req)
{
    /* A persistent request stays active until Wait/Test hands out its status. The hook
     * (a binding's copy-back) runs first. Release at least: under MULTIPLE, the thread
     * waiting for req reads the flag outside the critical section (core_cs_pause,
     * core_cs_sleep) and then the status and the buffer the hook wrote. */
    if (req->hook)
        req->hook(req->hook_arg, CORE_REQ_HOOK_DONE);
    /* Read before the flag: once it is set, a thread outside G may hand the request out and
     * release it (MPI_Wait, api_req_done_plain), and the slot may be someone else's. */
    int freed = req->freed;
    if (!core_handles.shared) {
        __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    } else {
        /* Its waiter may sleep outside the section (core_cs_sleep): seq_cst against the
         * waiter's store of `sleeping` and then its read of the flag, so either it sees the
         * request complete or we see it asleep and ring it. */
        __atomic_store_n(&req->complete, CORE_REQ_COMPLETING, __ATOMIC_SEQ_CST);
        /* A waiter asleep outside the section (2), completed by the engine's holder in a pass
         * outside it: the ring may wait (core_cs_defer_ring; thread.h), up to
         * CORE_CS_DEFER_MAX completions between two rings of the deferred ones, after which
         * they are rung at once again (a thread streaming many requests to a sleeper, as a
         * message-rate run with 2 threads, would leave it asleep for its whole window). */
        int sl = __atomic_load_n(&req->sleeping, __ATOMIC_SEQ_CST);
        if (sl == 2 && core_cs_defer_ring() &&
            atomic_fetch_add_explicit(&core_rt->cs.ndeferred, 1, memory_order_relaxed) <
                CORE_CS_DEFER_MAX)
            ; /* counted: rung when the holder idles or leaves P without its request */
        else if (sl)
            core_cs_ring(&req->bell);
        /* Done with req: a waiter that saw it complete (nonzero) may hand it out at once,
         * but releases it only after this store (core_req_free), since with the progress
         * engine outside G the completer and the waiter hold no lock in common. */
        __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    }
    if (freed)
        core_req_free(req);
}

void core_req_table_fini(core_req_table_t *t)
{
    for (uint32_t i = 0; i < t->nslots; i++)
        core_handle_free(&core_handles.req, core_req_at(t, i));
    for (int k = 0; k < CORE_REQ_NCHUNKS; k++)
        free(t->chunk[k]);
    if (t->shared) /* the threads' caches are dropped at their next use (epoch) */
        pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof(*t));
}
