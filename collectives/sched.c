/*
 * The schedule engine (see sched.h): building schedules, running them
 * round by round over p2p, the list of running nonblocking schedules that
 * the progress hook advances, and a small pool of schedule objects so a
 * collective in a loop does not reach malloc after the first call.
 */
#include <stdint.h>
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/log.h"
#include "core/op.h"
#include "core/progress.h"
#include "core/request.h"
#include "p2p/p2p.h"

enum { ST_SEND = 1, ST_RECV, ST_REDUCE, ST_COPY, ST_CALL, ST_FENCE };

#define buf coll_buf

typedef struct step {
    uint8_t kind;
    int peer, tag;
    MPI_Comm comm;            /* send, recv: the schedule's communicator or its local one */
    const void *src;          /* send, reduce (in), copy */
    void *dst;                /* recv, reduce (inout), copy */
    size_t count, count2;     /* count2, dt2: the destination of a copy */
    MPI_Datatype dt, dt2;
    MPI_Op op;
    int (*fn)(void *arg);
    void *arg;
    MPI_Request req;          /* a posted send or receive */
} step_t;

struct coll_sched {
    MPI_Comm comm;
    MPI_Comm on;              /* what sends and receives added now address (coll_sched_use) */
    int id, tag, err;
    int itag, ltag;           /* intercommunicator: the tags on comm and on comm->local */
    step_t *steps;
    int nsteps, cap;
    int cur, end;             /* the running round: steps [cur, end) */
    int pending;              /* its sends and receives not yet complete */
    int started;              /* the round at cur has been started */
    int progressed;           /* the last advance moved something */
    struct buf *bufs;         /* scratch memory */
    int nbufs, bufcap;
    void **held;              /* datatypes and ops kept alive; tagged by the low bit */
    int nheld, heldcap;
    MPI_Request req;          /* nonblocking: the user's request */
    struct coll_sched *next, *prev;
};

#define POOL_MAX 16
/* Scratch blocks kept for the next collectives: freeing and allocating
 * megabytes on every call costs page faults (the C library gives large
 * blocks back to the kernel), which made long reductions several times
 * slower. At most CACHE_SLOTS blocks and CACHE_BYTES bytes. */
#define CACHE_SLOTS COLL_CACHE_SLOTS
#define CACHE_BYTES ((size_t)64 << 20)

/* Schedules of nonblocking collectives that are running, oldest first, and
 * the pool of free ones. */

/* A cached block of at least bytes (the smallest that fits), else a new one. */
static void *block_get(size_t *bytes)
{
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (COLL->cache[i].p && COLL->cache[i].size >= *bytes &&
            (best < 0 || COLL->cache[i].size < COLL->cache[best].size))
            best = i;
    if (best >= 0) {
        void *p = COLL->cache[best].p;
        *bytes = COLL->cache[best].size;
        COLL->cache_bytes -= COLL->cache[best].size;
        COLL->cache[best].p = NULL;
        return p;
    }
    *bytes = (*bytes + 4095) & ~(size_t)4095;
    return malloc(*bytes);
}

/* Keeps a block for later, evicting smaller ones to make room. */
static void block_put(void *p, size_t size)
{
    if (size > CACHE_BYTES) {
        free(p);
        return;
    }
    for (;;) {
        int free_slot = -1, smallest = -1;
        for (int i = 0; i < CACHE_SLOTS; i++) {
            if (!COLL->cache[i].p)
                free_slot = i;
            else if (smallest < 0 || COLL->cache[i].size < COLL->cache[smallest].size)
                smallest = i;
        }
        if (free_slot >= 0 && COLL->cache_bytes + size <= CACHE_BYTES) {
            COLL->cache[free_slot] = (struct buf){ p, size };
            COLL->cache_bytes += size;
            return;
        }
        if (smallest < 0 || COLL->cache[smallest].size > size) {
            free(p);   /* everything kept is larger: keep those */
            return;
        }
        free(COLL->cache[smallest].p);
        COLL->cache_bytes -= COLL->cache[smallest].size;
        COLL->cache[smallest].p = NULL;
    }
}

/* ---- building ------------------------------------------------------------ */

static int grow(void **arr, int *cap, size_t elem, int want)
{
    if (want <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 16;
    while (ncap < want)
        ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return CORE_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

int coll_sched_tag(MPI_Comm comm, int id)
{
    uint32_t seq = comm->coll_seq++;
    return (int)(((seq & 0x1fffu) << (5 + COLL_SUBTAG_BITS)) |
                 ((uint32_t)(id & 31) << COLL_SUBTAG_BITS));
}

void *coll_scratch_get(size_t *bytes)
{
    return block_get(bytes);
}

void coll_scratch_put(void *p, size_t bytes)
{
    if (p)
        block_put(p, bytes);
}

coll_sched_t *coll_sched_create(MPI_Comm comm, int id)
{
    coll_sched_t *s = COLL->pool;
    if (s) {
        COLL->pool = s->next;
        COLL->pool_size--;
    } else if (!(s = calloc(1, sizeof(*s)))) {
        return NULL;
    }
    s->comm = comm;
    core_comm_retain(comm);
    s->on = comm;
    s->id = id;
    s->tag = s->itag = coll_sched_tag(comm, id);
    /* Every member of an intercommunicator's group takes a tag of its local
     * communicator, used or not, so the local sequence numbers stay equal. */
    if (comm->local)
        s->ltag = coll_sched_tag(comm->local, id);
    s->err = 0;
    s->nsteps = s->cur = s->end = s->pending = s->started = 0;
    s->nbufs = s->nheld = 0;
    s->req = NULL;
    s->next = s->prev = NULL;
    return s;
}

MPI_Comm coll_sched_comm(const coll_sched_t *s)
{
    return s->on;
}

void coll_sched_use(coll_sched_t *s, MPI_Comm comm)
{
    s->on = comm;
    s->tag = comm == s->comm ? s->itag : s->ltag;
}

int coll_sched_error(const coll_sched_t *s)
{
    return s->err;
}

void coll_sched_fail(coll_sched_t *s, int rc)
{
    if (!s->err)
        s->err = rc;
}

static step_t *add(coll_sched_t *s, int kind)
{
    if (s->err)
        return NULL;
    if (grow((void **)&s->steps, &s->cap, sizeof(step_t), s->nsteps + 1)) {
        s->err = CORE_ENOMEM;
        return NULL;
    }
    /* Every kind sets the fields it uses; round_start clears req. */
    step_t *t = &s->steps[s->nsteps++];
    t->kind = (uint8_t)kind;
    return t;
}

static void xfer(coll_sched_t *s, int kind, const void *buf, size_t count, MPI_Datatype dt,
                 int peer, int sub)
{
    if (peer == MPI_PROC_NULL)
        return;
    step_t *t = add(s, kind);
    if (!t)
        return;
    t->src = buf;
    t->dst = (void *)buf;
    t->count = count;
    t->dt = dt;
    t->peer = peer;
    t->comm = s->on;
    t->tag = s->tag | (sub & COLL_SUBTAG_MAX);
}

void coll_sched_send(coll_sched_t *s, const void *buf, size_t count, MPI_Datatype dt, int peer)
{
    xfer(s, ST_SEND, buf, count, dt, peer, 0);
}

void coll_sched_recv(coll_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer)
{
    xfer(s, ST_RECV, buf, count, dt, peer, 0);
}

void coll_sched_send_sub(coll_sched_t *s, const void *buf, size_t count, MPI_Datatype dt, int peer,
                         int sub)
{
    xfer(s, ST_SEND, buf, count, dt, peer, sub);
}

void coll_sched_recv_sub(coll_sched_t *s, void *buf, size_t count, MPI_Datatype dt, int peer,
                         int sub)
{
    xfer(s, ST_RECV, buf, count, dt, peer, sub);
}

void coll_sched_reduce(coll_sched_t *s, const void *in, void *inout, size_t count, MPI_Datatype dt,
                       MPI_Op op)
{
    if (count == 0)
        return;
    step_t *t = add(s, ST_REDUCE);
    if (!t)
        return;
    t->src = in;
    t->dst = inout;
    t->count = count;
    t->dt = dt;
    t->op = op;
}

void coll_sched_copy(coll_sched_t *s, const void *src, size_t scount, MPI_Datatype sdt, void *dst,
                     size_t rcount, MPI_Datatype rdt)
{
    if (scount == 0 || scount * sdt->size == 0)
        return;
    step_t *t = add(s, ST_COPY);
    if (!t)
        return;
    t->src = src;
    t->dst = dst;
    t->count = scount;
    t->dt = sdt;
    t->count2 = rcount;
    t->dt2 = rdt;
}

void coll_sched_call(coll_sched_t *s, int (*fn)(void *arg), void *arg)
{
    step_t *t = add(s, ST_CALL);
    if (t) {
        t->fn = fn;
        t->arg = arg;
    }
}

void coll_sched_fence(coll_sched_t *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != ST_FENCE)
        add(s, ST_FENCE);
}

void *coll_sched_alloc(coll_sched_t *s, size_t bytes)
{
    if (bytes == 0 || s->err)
        return NULL;
    if (grow((void **)&s->bufs, &s->bufcap, sizeof(struct buf), s->nbufs + 1)) {
        s->err = CORE_ENOMEM;
        return NULL;
    }
    void *p = block_get(&bytes);
    if (!p) {
        s->err = CORE_ENOMEM;
        return NULL;
    }
    s->bufs[s->nbufs++] = (struct buf){ p, bytes };
    return p;
}

void *coll_sched_tmp(coll_sched_t *s, size_t count, MPI_Datatype dt)
{
    if (count == 0 || s->err)
        return NULL;
    /* Item i starts at i * extent; its data spans [true_lb, true_lb + true_extent). */
    MPI_Aint last = (MPI_Aint)(count - 1) * dt->extent;
    MPI_Aint lo = (last < 0 ? last : 0) + dt->true_lb;
    MPI_Aint hi = (last > 0 ? last : 0) + dt->true_lb + dt->true_extent;
    char *p = coll_sched_alloc(s, hi > lo ? (size_t)(hi - lo) : 1);
    return p ? p - lo : NULL;
}

static void hold(coll_sched_t *s, void *obj, uintptr_t bit)
{
    if (grow((void **)&s->held, &s->heldcap, sizeof(void *), s->nheld + 1)) {
        s->err = CORE_ENOMEM;
        return;
    }
    s->held[s->nheld++] = (void *)((uintptr_t)obj | bit);
}

void coll_sched_hold_dt(coll_sched_t *s, MPI_Datatype dt)
{
    if (!dt || (dt->flags & CORE_DT_PREDEFINED) || s->err)
        return;
    core_dt_retain(dt);
    hold(s, dt, 0);
    if (s->err)
        core_dt_release(dt);
}

void coll_sched_hold_op(coll_sched_t *s, MPI_Op op)
{
    if (!op || op->predefined || s->err)
        return;
    core_op_retain(op);
    hold(s, op, 1);
    if (s->err)
        core_op_release(op);
}

/* Releases everything the schedule holds and returns it to the pool. */
static void release(coll_sched_t *s)
{
    for (int i = 0; i < s->nbufs; i++)
        block_put(s->bufs[i].p, s->bufs[i].size);
    for (int i = 0; i < s->nheld; i++) {
        uintptr_t v = (uintptr_t)s->held[i];
        if (v & 1) {
            core_op_release((MPI_Op)(v & ~(uintptr_t)1));
        } else {
            core_dt_release((MPI_Datatype)v);
        }
    }
    core_comm_release(s->comm);
    s->comm = NULL;
    if (COLL->pool_size < POOL_MAX && s->cap <= 1024) {
        s->next = COLL->pool;
        COLL->pool = s;
        COLL->pool_size++;
        return;
    }
    free(s->steps);
    free(s->bufs);
    free(s->held);
    free(s);
}

void coll_sched_destroy(coll_sched_t *s)
{
    if (s)
        release(s);
}

/* ---- running ------------------------------------------------------------- */

static void reap(coll_sched_t *s, step_t *t)
{
    MPI_Request r = t->req;
    if (!s->err)
        s->err = coll_req_err(r);
    core_req_free(r);
    t->req = NULL;
}

static int run_step(coll_sched_t *s, step_t *t)
{
    switch (t->kind) {
    case ST_SEND:
        return p2p_isend(t->src, t->count, t->dt, t->peer, t->tag, t->comm, t->comm->ctx + 1,
                         CORE_MODE_STANDARD, &t->req);
    case ST_RECV:
        return p2p_irecv(t->dst, t->count, t->dt, t->peer, t->tag, t->comm, t->comm->ctx + 1,
                         &t->req);
    case ST_REDUCE:
        return core_op_apply(t->op, t->src, t->dst, (int)t->count, t->dt);
    case ST_COPY:
        return coll_copy(t->src, t->count, t->dt, t->dst, t->count2, t->dt2);
    case ST_CALL:
        return t->fn(t->arg);
    }
    return 0;
}

/* Starts the steps of the round at s->cur. */
static void round_start(coll_sched_t *s)
{
    int i;
    s->pending = 0;
    s->started = 1;
    for (i = s->cur; i < s->nsteps && s->steps[i].kind != ST_FENCE; i++) {
        step_t *t = &s->steps[i];
        t->req = NULL;
        int rc = run_step(s, t);
        if (rc) {
            if (t->kind == ST_SEND)
                t->req = NULL;
            s->err = rc;
            i++;
            break;
        }
        if (t->req) {
            if (t->req->complete)
                reap(s, t);
            else
                s->pending++;
        }
    }
    s->end = i;
    if (s->err) {
        /* Take back the receives that did not match; wait for the sends. */
        for (int k = s->cur; k < s->end; k++) {
            step_t *t = &s->steps[k];
            if (t->req && t->kind == ST_RECV)
                p2p_cancel(t->req);
        }
    }
}

static void round_test(coll_sched_t *s)
{
    for (int i = s->cur; i < s->end && s->pending; i++) {
        step_t *t = &s->steps[i];
        if (t->req && t->req->complete) {
            reap(s, t);
            s->pending--;
            s->progressed = 1;
        }
    }
}

/* Moves s as far as it goes without waiting; 1 when it has ended. */
static int advance(coll_sched_t *s)
{
    s->progressed = 0;
    for (;;) {
        if (!s->started) {
            if (s->cur >= s->nsteps || s->err)
                return 1;
            round_start(s);
            s->progressed = 1;
        }
        if (s->pending) {
            round_test(s);
            if (s->pending)
                return 0;
        }
        if (s->err)
            return 1;
        s->cur = s->end + 1;   /* past the fence */
        s->started = 0;
    }
}

/* A pending send or receive of the running round, for diagnostics. */
static MPI_Request blocked_on(const coll_sched_t *s)
{
    for (int i = s->cur; i < s->end; i++)
        if (s->steps[i].req)
            return s->steps[i].req;
    return NULL;
}

static void finish(coll_sched_t *s)
{
    MPI_Request r = s->req;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->status.rdmpi_nbytes = 0;
    r->status.MPI_ERROR = s->err == 0 ? MPI_SUCCESS
                          : s->err == CORE_ETRUNC ? MPI_ERR_TRUNCATE
                          : s->err == CORE_ENOMEM ? MPI_ERR_NO_MEM
                          : s->err == CORE_EOP ? MPI_ERR_OP
                                               : MPI_ERR_OTHER;
    if (s->err)
        core_error("%s failed: %s", coll_name(s->id), core_strerror(s->err));
    r->sched = NULL;
    release(s);
    core_req_complete(r);
}

int coll_sched_start(coll_sched_t *s, MPI_Request *req)
{
    int rc = s->err;
    if (rc) {
        release(s);
        return rc;
    }
    MPI_Request r = core_req_alloc(CORE_REQ_COLL);
    if (!r) {
        release(s);
        return CORE_ENOMEM;
    }
    r->comm = s->comm;
    r->sched = s;
    s->req = r;
    if (advance(s)) {
        finish(s);
    } else {
        s->prev = COLL->active_tail;
        s->next = NULL;
        if (COLL->active_tail)
            COLL->active_tail->next = s;
        else
            COLL->active_head = s;
        COLL->active_tail = s;
        core_progress_wake(core_rt, COLL->hook_id);
    }
    *req = r;
    return 0;
}

int coll_sched_run(coll_sched_t *s)
{
    if (s->err == 0 && !advance(s)) {
        core_wait_ctx_t w;
        core_wait_begin(&w, coll_name(s->id), blocked_on(s));
        while (!advance(s)) {
            w.req = blocked_on(s);
            core_wait_idle(&w, core_progress() + s->progressed);
        }
        core_wait_end(&w);
    }
    int rc = s->err;
    release(s);
    return rc;
}

/* The progress hook: advances every running nonblocking schedule once. */
static int sched_progress(void *arg)
{
    (void)arg;
    if (COLL->in_hook)
        return 0;
    COLL->in_hook = 1;
    int events = 0;
    for (coll_sched_t *s = COLL->active_head, *next; s; s = next) {
        next = s->next;
        if (!advance(s)) {
            events += s->progressed;
            continue;
        }
        if (s->prev)
            s->prev->next = s->next;
        else
            COLL->active_head = s->next;
        if (s->next)
            s->next->prev = s->prev;
        else
            COLL->active_tail = s->prev;
        finish(s);
        events++;
    }
    COLL->in_hook = 0;
    if (!COLL->active_head)
        core_progress_rest(core_rt, COLL->hook_id);
    return events;
}

void coll_sched_init(void)
{
    COLL->hook_id = core_progress_add_hook(core_rt, sched_progress, NULL);
}

void coll_sched_fini(void)
{
    if (COLL->active_head)
        core_warn("MPI_Finalize: nonblocking collectives were still running (never completed "
                  "with MPI_Wait/MPI_Test)");
    while (COLL->pool) {
        coll_sched_t *s = COLL->pool;
        COLL->pool = s->next;
        free(s->steps);
        free(s->bufs);
        free(s->held);
        free(s);
    }
    COLL->pool_size = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(COLL->cache[i].p);
        COLL->cache[i].p = NULL;
    }
    COLL->cache_bytes = 0;
}
