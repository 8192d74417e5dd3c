/*
 * Scan and exscan along the chain of ranks: rank r receives the prefix of
 * ranks below it from r - 1, adds its own vector and passes the result to
 * r + 1. (p-1) (alpha + n beta + n gamma) end to end but one message per
 * rank and no scratch beyond one vector: for long vectors on few ranks, and
 * any operation (the prefix always comes first).
 */
#include "collectives/coll_impl.h"

void coll_scan_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int excl)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return;
    if (!excl) {
        void *tmp = r > 0 ? coll_sched_tmp(s, cnt, dt) : NULL;
        if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
        if (r > 0) {
            coll_sched_recv(s, tmp, cnt, dt, grp_peer(g, r - 1));
            coll_sched_fence(s);
            coll_sched_reduce(s, tmp, rbuf, cnt, dt, op);
        }
        if (r < n - 1)
            coll_sched_send(s, rbuf, cnt, dt, grp_peer(g, r + 1));
        coll_sched_fence(s);
        return;
    }
    /* Exclusive: rbuf gets the prefix of ranks below; r + 1 gets prefix op mine. */
    if (r == 0) {
        if (n > 1)
            coll_sched_send(s, src, cnt, dt, grp_peer(g, 1));
        coll_sched_fence(s);
        return;
    }
    void *next = NULL;
    if (r < n - 1) {
        next = coll_sched_tmp(s, cnt, dt);
        coll_sched_copy(s, src, cnt, dt, next, cnt, dt);   /* before rbuf is overwritten */
    }
    coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, r - 1));
    coll_sched_fence(s);
    if (next) {
        coll_sched_reduce(s, rbuf, next, cnt, dt, op);
        coll_sched_send(s, next, cnt, dt, grp_peer(g, r + 1));
    }
    coll_sched_fence(s);
}
