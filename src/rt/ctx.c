/*
 * Context ids. Each communicator takes an even id and the odd one after it;
 * the members of a new communicator agree on the lowest pair free at all of
 * them: each sends its free mask to the first member (the leader), which
 * ANDs them and sends back the chosen id.
 *
 * Agreement runs as a state machine advanced by the progress engine, so
 * MPI_Comm_idup is truly nonblocking and the blocking calls simply wait on
 * the same machine. Several agreements may be in flight on one rank (idups
 * on different communicators, a Comm_dup while an idup is pending, or one
 * blocking creation per thread under MPI_THREAD_MULTIPLE), and the mask a
 * rank sends must stay valid until the leader's answer arrives: a rank
 * therefore lends its mask to one agreement per round (the lock); the others
 * send an empty mask, get "none free" back and try again.
 *
 * The first round of every agreement lends nothing: it only tells the members
 * that all of them have started it (the leader answers once each has sent).
 * A mask lent to an agreement that some member has not reached yet would be
 * tied up for as long as that member takes, and it may never come: its thread
 * can be waiting, legitimately, for something that needs this rank's mask
 * (another thread's Comm_dup, an idup it waits for before it starts this one).
 * Past the first round every member is there, so a round ends as soon as the
 * members' progress engines run, whatever their threads wait for. (Without
 * MULTIPLE, a blocking call with no other agreement here lends at once: no one
 * on this rank can want the mask before it returns.)
 *
 * Among the agreements past their first round, a rank lends to the first in an
 * order every member computes alike, so that members converge on the same one:
 * blocking calls first, then the lowest key (parent context, then sequence:
 * the order in which the members started them). The first of them is ready at
 * every member sooner or later and then each one lends to it at its next round
 * (a round with the lock is never held longer than the members take to
 * answer), so it succeeds, then the next one: no rank waits on another's
 * choice, and no rotation is needed.
 *
 * Messages travel on the parent's collective context with negative tags,
 * which collective algorithms never use: comm-wide agreements are numbered
 * by a per-communicator counter (all members create communicators in the
 * same order), MPI_Comm_create_group ones by the user's tag (only group
 * members take part, and concurrent calls must use distinct tags). Between
 * two members, masks of successive rounds stay in order (MPI's
 * non-overtaking rule), so rounds need no number of their own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/comm.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/topo.h"
#include "p2p/p2p.h"
#include "rt/rt.h"

#define NPAIRS (CORE_CTX_MAX / 2)
#define NWORDS (NPAIRS / 32)
#define MSGWORDS (NWORDS + 1)   /* a mask, then 1 when it is the real one (lent) */
#define TAG_BASE (-(1 << 22))
_Static_assert(MSGWORDS == RT_CTX_MASK_WORDS, "rt.h states the mask size");

enum { RETRY = -1, EXHAUSTED = -2, FAILED = -3 };

typedef struct rt_ctx_op ctx_op_t;
struct rt_ctx_op {
    MPI_Comm parent;          /* retained while the agreement runs */
    int *members;             /* parent ranks of the participants; [0] leads */
    int nmembers, me;
    int tag;
    uint64_t key;             /* priority: lower goes first (parent ctx, then seq) */
    int blocking;             /* a blocking call waits on it: before nonblocking ones */
    int rounds;               /* rounds finished: after the first, every member has started */
    int in_round, locked;
    int answering;            /* leader: the answer is on its way to the members */
    uint32_t mask[MSGWORDS];  /* what this rank sent (the leader: the AND so far) */
    uint32_t *recvbuf;        /* leader: the other members' masks */
    MPI_Request *reqs;        /* this round's receives and sends */
    int nreqs;
    int32_t decision[2];      /* the leader's answer: nids ids, or RETRY or EXHAUSTED first */
    int nids;                 /* ids agreed on at once: 1, or 2 (an intercommunicator's) */
    rt_ctx_bridge_t bridge;   /* the other group's leader, for agreements over two groups */
    int bridged;              /* leader: this round's exchange with the other leader is out */
    double bridge_until;      /* leader: when the other leader's first mask is overdue */
    int overdue;              /* leader: it was (the exchange is cancelled) */
    uint32_t other[MSGWORDS]; /* leader: the other group's AND */
    int done, rc;
    uint32_t ctx, ctx2;
    MPI_Request req;          /* completed when the agreement is */
    void (*finish)(ctx_op_t *op);   /* called once done (idup builds its communicator) */
    void *arg;
    rt_ctx_done_fn done_fn;   /* rt_ctx_start_bridged's caller's */
    core_attr_t *attrs;       /* idup: the new communicator's attributes */
    ctx_op_t *next;
};

/* This rank's agreements in flight, and the one its real mask is lent to, are in the
 * runtime's instance (rt.h). */

/* The lowest pair free in mask, as a context id, or -1. */
static int lowest_free(const uint32_t *mask)
{
    for (int w = 0; w < NWORDS; w++)
        if (mask[w])
            return 2 * (w * 32 + __builtin_ctz(mask[w]));
    return -1;
}

static int pair_free(int32_t id)
{
    return (core_rt->ctx_free[id / 64] >> ((id / 2) % 32)) & 1;
}

/* 1 when op may have this rank's mask: once every member has started it (see the top).
 * A single process alone has no one to wait for; nor does a blocking call that is the only
 * agreement here without MULTIPLE: nothing else on this rank can want the mask before it
 * returns, so it lends at once and a Comm_dup costs one round, not two. */
static int may_lend(const ctx_op_t *op)
{
    if (op->rounds > 0 || (op->nmembers == 1 && !op->bridge.via))
        return 1;
    return op->blocking && !core_rt->cs.on && rt_get()->ctx_ops == op && !op->next;
}

/* 1 when a goes before b in this rank's lending order (see the top). */
static int goes_before(const ctx_op_t *a, const ctx_op_t *b)
{
    if (a->blocking != b->blocking)
        return a->blocking;
    return a->key < b->key;
}

/* 1 when no other agreement in flight here that may have the mask goes before op. */
static int first_in_order(const ctx_op_t *op)
{
    rt_runtime_t *rt = rt_get();
    for (const ctx_op_t *o = rt->ctx_ops; o; o = o->next)
        if (o != op && !o->done && may_lend(o) && goes_before(o, op))
            return 0;
    return 1;
}

/* Starts a round: lend our mask if nobody holds it, post the messages. */
static int round_start(ctx_op_t *op)
{
    rt_runtime_t *rt = rt_get();
    uint32_t cctx = op->parent->ctx + 1;
    int rc;
    if (!rt->ctx_lock && may_lend(op) && first_in_order(op))
        rt->ctx_lock = op;
    op->locked = rt->ctx_lock == op;
    if (op->locked)
        memcpy(op->mask, core_rt->ctx_free, sizeof(core_rt->ctx_free));
    else
        memset(op->mask, 0, sizeof(core_rt->ctx_free));
    op->mask[NWORDS] = (uint32_t)op->locked;
    op->nreqs = 0;
    if (op->me == 0) {
        for (int i = 1; i < op->nmembers; i++) {
            rc = p2p_irecv(op->recvbuf + (size_t)(i - 1) * MSGWORDS, MSGWORDS, MPI_UINT32_T,
                           op->members[i], op->tag, op->parent, cctx, &op->reqs[op->nreqs]);
            if (rc)
                return rc;
            op->nreqs++;
        }
    } else {
        int leader = op->members[0];
        rc = p2p_isend(op->mask, MSGWORDS, MPI_UINT32_T, leader, op->tag, op->parent, cctx,
                       CORE_MODE_STANDARD, &op->reqs[op->nreqs]);
        if (rc)
            return rc;
        op->nreqs++;
        rc = p2p_irecv(op->decision, (size_t)op->nids, MPI_INT32_T, leader, op->tag, op->parent,
                       cctx, &op->reqs[op->nreqs]);
        if (rc)
            return rc;
        op->nreqs++;
    }
    op->in_round = 1;
    return 0;
}

/* 1 when every request of the round completed (they are freed); *failed when one ended in
 * an error (the other group's leader left: p2p's lost-peer paths). */
static int round_reqs_done(ctx_op_t *op, int *failed)
{
    for (int i = 0; i < op->nreqs; i++)
        if (!op->reqs[i]->complete)
            return 0;
    *failed = 0;
    for (int i = 0; i < op->nreqs; i++) {
        *failed |= op->reqs[i]->status.MPI_ERROR != MPI_SUCCESS;
        core_req_free(op->reqs[i]);
    }
    op->nreqs = 0;
    return 1;
}

/* Leader: sends decision (nids words) to every member; 0 or the error. */
static int answer(ctx_op_t *op)
{
    uint32_t cctx = op->parent->ctx + 1;
    for (int i = 1; i < op->nmembers; i++) {
        int rc = p2p_isend(op->decision, (size_t)op->nids, MPI_INT32_T, op->members[i], op->tag,
                           op->parent, cctx, CORE_MODE_STANDARD, &op->reqs[op->nreqs]);
        if (rc)
            return rc;
        op->nreqs++;
    }
    op->answering = 1;
    return 0;
}

static void op_finish(ctx_op_t *op, int rc)
{
    rt_runtime_t *rt = rt_get();
    op->done = 1;
    op->rc = rc;
    if (rt->ctx_lock == op)
        rt->ctx_lock = NULL;
    if (op->finish)
        op->finish(op);
    /* Its request completes once it is off the list (see ctx_progress): a
     * request the user already freed takes the agreement with it. */
}

/* Advances one agreement; returns 1 when something happened. */
static int op_advance(ctx_op_t *op)
{
    rt_runtime_t *rt = rt_get();
    int rc;
    if (op->done)
        return 0;
    if (!op->in_round) {
        if ((rc = round_start(op))) {
            op_finish(op, rc);
            return 1;
        }
        return 1;
    }
    int failed = 0;
    if (op->bridged && op->rounds == 0 && op->bridge.limit > 0 && !op->overdue &&
        core_wtime() > op->bridge_until) {
        /* the other leader never sent its first mask: give up the exchange (cancelled
         * requests complete; what completed anyway is freed below) */
        op->overdue = 1;
        for (int i = 0; i < op->nreqs; i++)
            if (!op->reqs[i]->complete)
                p2p_cancel(op->reqs[i]);
    }
    if (!round_reqs_done(op, &failed))
        return 0;
    failed |= op->overdue;
    if (failed && op->me == 0 && !op->answering) {
        /* an exchange failed (the other group's leader, or a member of another job, has
         * left, or the other leader stayed silent): the members wait for a word */
        if (op->overdue)
            core_error("context-id agreement (leader: rank %d of %s): the other group's "
                       "leader did not answer within %.0f s", op->members[0],
                       core_comm_label(op->parent), op->bridge.limit);
        else
            core_error("context-id agreement (leader: rank %d of %s): %s has left",
                       op->members[0], core_comm_label(op->parent),
                       op->bridged ? "the other group's leader" : "a member");
        op->decision[0] = FAILED;
        if ((rc = answer(op)))
            op_finish(op, rc);
        return 1;
    }
    if (op->me == 0 && !op->answering && !op->bridged) {
        for (int i = 1; i < op->nmembers; i++)
            for (int w = 0; w < MSGWORDS; w++)
                op->mask[w] &= op->recvbuf[(size_t)(i - 1) * MSGWORDS + w];
        if (op->bridge.via) {
            /* Both leaders send their group's AND and AND the two: they decide alike. */
            const rt_ctx_bridge_t *b = &op->bridge;
            rc = p2p_irecv(op->other, MSGWORDS, MPI_UINT32_T, b->peer, b->tag, b->via, b->ctx,
                           &op->reqs[op->nreqs]);
            if (!rc) {
                op->nreqs++;
                rc = p2p_isend(op->mask, MSGWORDS, MPI_UINT32_T, b->peer, b->tag, b->via, b->ctx,
                               CORE_MODE_STANDARD, &op->reqs[op->nreqs]);
            }
            if (rc) {
                op_finish(op, rc);
                return 1;
            }
            op->nreqs++;
            op->bridged = 1;
            op->bridge_until = core_wtime() + b->limit;
            return 1;
        }
    }
    if (op->me == 0 && !op->answering) {
        if (op->bridged)
            for (int w = 0; w < MSGWORDS; w++)
                op->mask[w] &= op->other[w];
        /* No id in real masks of every member: there is none left. */
        uint32_t m[MSGWORDS];
        memcpy(m, op->mask, sizeof(m));
        for (int k = 0; k < op->nids; k++) {
            int id = lowest_free(m);
            if (id < 0) {
                op->decision[0] = op->mask[NWORDS] ? EXHAUSTED : RETRY;
                break;
            }
            op->decision[k] = id;
            m[id / 64] &= ~(1u << ((id / 2) % 32));
        }
        /* Nonblocking sends: this runs inside the progress engine. */
        if ((rc = answer(op)))
            op_finish(op, rc);
        return 1;
    }
    op->answering = 0;
    op->bridged = 0;
    op->in_round = 0;
    op->rounds++;
    if (op->decision[0] == FAILED || failed) {
        /* the leader lost the other group (above), or this member lost its leader */
        op_finish(op, CORE_EPEER);
        return 1;
    }
    if (op->decision[0] >= 0) {
        /* Every member lent its real mask, us included: the ids are free here. But they
         * arrived from a peer: check them before taking them. */
        for (int k = 0; k < op->nids; k++)
            if (op->decision[k] < 0 || op->decision[k] >= CORE_CTX_MAX || op->decision[k] % 2 ||
                !pair_free(op->decision[k]) || (k && op->decision[k] == op->decision[0])) {
                core_error("context-id agreement: the leader (rank %d of %s) chose id %d, "
                           "which is not a free pair here", op->members[0],
                           core_comm_label(op->parent), (int)op->decision[k]);
                op_finish(op, CORE_EPEER);
                return 1;
            }
        for (int k = 0; k < op->nids; k++)
            core_ctx_reserve((uint32_t)op->decision[k]);
        op->ctx = (uint32_t)op->decision[0];
        op->ctx2 = op->nids > 1 ? (uint32_t)op->decision[1] : 0;
        op_finish(op, 0);
        return 1;
    }
    if (op->decision[0] == EXHAUSTED) {
        core_error("out of communicator context ids (%d communicators exist on some member): "
                   "free some with MPI_Comm_free", NPAIRS);
        op_finish(op, CORE_EOTHER);
        return 1;
    }
    /* The lock goes back for the next round's choice, which may differ. */
    if (op->locked)
        rt->ctx_lock = NULL;
    return 1;
}

static int ctx_progress(void *arg)
{
    rt_runtime_t *rt = arg;
    int events = 0;
    for (ctx_op_t *op = rt->ctx_ops; op; op = op->next)
        events += op_advance(op);
    for (ctx_op_t **pp = &rt->ctx_ops; *pp;) {
        ctx_op_t *op = *pp;
        if (op->done) {
            *pp = op->next;
            op->next = NULL;
            core_req_complete(op->req);
        } else {
            pp = &op->next;
        }
    }
    if (!rt->ctx_ops)
        core_progress_rest(core_rt, rt->ctx_hook);
    return events;
}

static void op_free(ctx_op_t *op)
{
    core_comm_release(op->parent);
    core_attr_discard(&op->attrs);
    free(op->members);
    free(op->recvbuf);
    free(op->reqs);
    free(op);
}

/* Sets up an agreement among members (parent ranks, leader first). */
static int op_start(MPI_Comm parent, int *members, int nmembers, int me, int tag, uint64_t key,
                    ctx_op_t **out)
{
    rt_runtime_t *rt = rt_get();
    if (rt->ctx_hook < 0)
        rt->ctx_hook = core_progress_add_hook(core_rt, ctx_progress, rt);
    ctx_op_t *op = calloc(1, sizeof(*op));
    if (!op) {
        free(members);
        return CORE_ENOMEM;
    }
    op->parent = parent;
    core_comm_retain(parent);
    op->members = members;
    op->nmembers = nmembers;
    op->me = me;
    op->tag = tag;
    op->key = key;
    op->nids = 1;
    op->reqs = malloc(sizeof(MPI_Request) * (size_t)(nmembers + 1));
    if (me == 0 && nmembers > 1)
        op->recvbuf = malloc(sizeof(uint32_t) * MSGWORDS * (size_t)(nmembers - 1));
    op->req = core_req_alloc(CORE_REQ_COLL);
    if (!op->reqs || (me == 0 && nmembers > 1 && !op->recvbuf) || !op->req) {
        if (op->req)
            core_req_free(op->req);
        op_free(op);
        return CORE_ENOMEM;
    }
    op->req->comm = parent;
    op->next = rt->ctx_ops;
    rt->ctx_ops = op;
    core_progress_wake(core_rt, rt->ctx_hook);
    *out = op;   /* the progress engine starts it */
    return 0;
}

/* Agreement over all of comm, led by its rank leader (Comm_dup/idup, split, create, and
 * each group's part of an intercommunicator's). */
static int op_start_over(MPI_Comm comm, int leader, ctx_op_t **out)
{
    int *members = malloc(sizeof(int) * (size_t)comm->size);
    if (!members)
        return CORE_ENOMEM;
    members[0] = leader;
    for (int i = 0, k = 1; i < comm->size; i++)
        if (i != leader)
            members[k++] = i;
    int me = comm->rank == leader ? 0 : comm->rank + (comm->rank < leader);
    uint32_t seq = comm->ctx_seq++;
    int tag = TAG_BASE - (int)(seq & 0xfffff);
    uint64_t key = ((uint64_t)comm->ctx << 32) | seq;
    return op_start(comm, members, comm->size, me, tag, key, out);
}

static int op_start_comm(MPI_Comm comm, ctx_op_t **out)
{
    return op_start_over(comm, 0, out);
}

/* Blocks until op is done; returns its result (op is freed). */
static int op_wait(ctx_op_t *op, const char *fn, uint32_t *ctx)
{
    core_wait_req(op->req, fn);
    int rc = op->rc;
    ctx[0] = op->ctx;
    if (op->nids > 1)
        ctx[1] = op->ctx2;
    core_req_free(op->req);
    op_free(op);
    return rc;
}

int rt_ctx_alloc(MPI_Comm comm, uint32_t *ctx)
{
    ctx_op_t *op;
    int rc = op_start_comm(comm, &op);
    if (rc)
        return rc;
    op->blocking = 1;
    return op_wait(op, "communicator creation", ctx);
}

int rt_ctx_alloc_group(MPI_Comm parent, MPI_Group group, int tag, uint32_t *ctx)
{
    int *members = malloc(sizeof(int) * (size_t)group->size);
    if (!members)
        return CORE_ENOMEM;
    for (int i = 0; i < group->size; i++)
        members[i] = core_group_rank_of(parent->group, group->ranks[i]);
    int t = TAG_BASE - (1 << 20) - (tag & 0xfffff);
    uint64_t key = ((uint64_t)parent->ctx << 32) | (1u << 31) | (uint32_t)(tag & 0x7fffffff);
    ctx_op_t *op;
    int rc = op_start(parent, members, group->size, group->my_rank, t, key, &op);
    if (rc)
        return rc;
    op->blocking = 1;
    return op_wait(op, "MPI_Comm_create_group", ctx);
}

/* ---- agreements over two groups (intercommunicators) ------------------------------ */

static int op_start_bridged(MPI_Comm local, int leader, const rt_ctx_bridge_t *b, int nids,
                            ctx_op_t **out)
{
    if (nids < 1 || nids > 2)
        return CORE_EINVAL;
    ctx_op_t *op;
    int rc = op_start_over(local, leader, &op);
    if (rc)
        return rc;
    op->nids = nids;
    op->bridge = *b;
    if (b->key)
        op->key = b->key;
    *out = op;
    return 0;
}

int rt_ctx_alloc_bridged(MPI_Comm local, int leader, const rt_ctx_bridge_t *b, int nids,
                         uint32_t *ids)
{
    ctx_op_t *op;
    int rc = op_start_bridged(local, leader, b, nids, &op);
    if (rc)
        return rc;
    op->blocking = 1;
    return op_wait(op, "intercommunicator creation", ids);
}

static void bridged_finish(ctx_op_t *op)
{
    uint32_t ids[2] = { op->ctx, op->ctx2 };
    int rc = op->done_fn(op->arg, op->rc, ids);
    if (rc && op->req)
        op->req->status.MPI_ERROR = rc;
}

static void bridged_req_free(MPI_Request req)
{
    ctx_op_t *op = req->sched;
    req->sched = NULL;
    req->free_fn = NULL;
    op->req = NULL;
    op_free(op);
}

int rt_ctx_start_bridged(MPI_Comm local, const rt_ctx_bridge_t *b, int nids,
                         rt_ctx_done_fn done, void *arg, MPI_Request *req)
{
    ctx_op_t *op;
    int rc = op_start_bridged(local, 0, b, nids, &op);
    if (rc)
        return rc;
    op->req->sched = op;
    op->req->free_fn = bridged_req_free;
    op->done_fn = done;
    op->arg = arg;
    op->finish = bridged_finish;
    *req = op->req;
    return 0;
}

/* ---- MPI_Comm_idup ------------------------------------------------------------------ */

static void idup_finish(ctx_op_t *op)
{
    MPI_Comm *out = op->arg;
    MPI_Comm parent = op->parent;
    int rc = op->rc;
    if (!rc)
        rc = core_comm_create(parent->group, op->ctx, parent->errh, out);
    if (!rc && parent->topo && !((*out)->topo = core_topo_dup(parent->topo)))
        rc = CORE_ENOMEM;
    if (!rc) {
        (*out)->attrs = op->attrs;
        op->attrs = NULL;
    }
    if (rc) {
        core_error("MPI_Comm_idup: creating the communicator failed: %s", core_strerror(rc));
        *out = MPI_COMM_NULL;
        op->req->status.MPI_ERROR = MPI_ERR_OTHER;
    }
}

static void idup_req_free(MPI_Request req)
{
    ctx_op_t *op = req->sched;
    req->sched = NULL;
    req->free_fn = NULL;
    op->req = NULL;
    op_free(op);
}

int rt_comm_idup(MPI_Comm comm, core_attr_t *attrs, MPI_Comm *newcomm, MPI_Request *req)
{
    ctx_op_t *op;
    *newcomm = MPI_COMM_NULL;
    int rc = op_start_comm(comm, &op);
    if (rc)
        return rc;
    op->attrs = attrs;
    /* The request owns the agreement from here: freeing it frees op. */
    op->req->sched = op;
    op->req->free_fn = idup_req_free;
    op->arg = newcomm;
    op->finish = idup_finish;
    *req = op->req;
    return 0;
}
