/*
 * Allreduce by exchange of every vector: each rank sends its vector to all
 * the others, receives theirs, and combines the p vectors itself in rank
 * order. (p-1) alpha + (p-1) n beta + (p-1) n gamma per rank and p(p-1)
 * messages: for short vectors on a few ranks only.
 *
 * Why: where one node's ranks outnumber its cores, a waiting rank gives
 * its core away, and each step of recursive doubling (or the reduce and
 * then the broadcast of reduce_bcast) waits for a particular rank to run
 * again. Here a rank waits for nothing but the others' first sends: once
 * every rank has run once, all have their inputs, and the last to arrive
 * finds them waiting.
 *
 * Every rank combines the same operands in the same order (v0 op (v1 op
 * ... (vp-2 op vp-1))), so all get bitwise the same result, and operations
 * that do not commute get MPI's canonical order.
 */
#include "collectives/coll_impl.h"

char *coll_linear_gather(coll_sched_t *s, const coll_grp_t *g, const void *mine, size_t cnt,
                         MPI_Datatype dt)
{
    int n = g->n, r = g->me;
    char *all = coll_sched_tmp(s, cnt * (size_t)n, dt);
    if (!all)
        return NULL;
    size_t stride = cnt * (size_t)dt->extent;
    coll_sched_copy(s, mine, cnt, dt, all + (size_t)r * stride, cnt, dt);
    for (int i = 1; i < n; i++) {
        int from = (r + i) % n;
        coll_sched_recv(s, all + (size_t)from * stride, cnt, dt, grp_peer(g, from));
    }
    return all;
}

void coll_linear_combine(coll_sched_t *s, int n, const char *all, void *rbuf, size_t cnt,
                         MPI_Datatype dt, MPI_Op op)
{
    size_t stride = cnt * (size_t)dt->extent;
    coll_sched_copy(s, all + (size_t)(n - 1) * stride, cnt, dt, rbuf, cnt, dt);
    for (int i = n - 2; i >= 0; i--)
        coll_sched_reduce(s, all + (size_t)i * stride, rbuf, cnt, dt, op);
    coll_sched_fence(s);
}

void coll_allreduce_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (n == 1 || count == 0) {
        if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
        coll_sched_fence(s);
        return;
    }
    char *all = coll_linear_gather(s, g, mine, cnt, dt);
    if (!all)
        return;
    for (int i = 1; i < n; i++)
        coll_sched_send(s, mine, cnt, dt, grp_peer(g, (r - i + n) % n));
    coll_sched_fence(s);
    coll_linear_combine(s, n, all, rbuf, cnt, dt, op);
}
