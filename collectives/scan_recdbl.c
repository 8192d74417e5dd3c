/*
 * Scan and exscan by recursive doubling: in step k each rank swaps the
 * reduction of its aligned run of 2^k ranks with rank r XOR 2^k; data from
 * a lower run is added to the result and to the run's partial, data from a
 * higher run only to the partial. log2(p) (alpha + n beta + 2 n gamma):
 * the choice for short and medium vectors. The lower run's data always
 * goes first, so operations that do not commute keep MPI's order.
 */
#include "collectives/coll_impl.h"
#include "core/op.h"

void coll_scan_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int excl)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return;
    void *partial = coll_sched_tmp(s, cnt, dt), *tmp = coll_sched_tmp(s, cnt, dt);
    coll_sched_copy(s, src, cnt, dt, partial, cnt, dt);
    if (!excl && sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
    int have = !excl;   /* rbuf holds a partial result */
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = r ^ mask;
        if (dst >= n)
            continue;
        coll_sched_send(s, partial, cnt, dt, grp_peer(g, dst));
        coll_sched_recv(s, tmp, cnt, dt, grp_peer(g, dst));
        coll_sched_fence(s);
        if (dst < r) {
            coll_sched_reduce(s, tmp, partial, cnt, dt, op);
            if (have)
                coll_sched_reduce(s, tmp, rbuf, cnt, dt, op);
            else
                coll_sched_copy(s, tmp, cnt, dt, rbuf, cnt, dt);
            have = 1;
        } else if (op->commute) {
            coll_sched_reduce(s, tmp, partial, cnt, dt, op);
        } else {
            /* tmp = partial op tmp, which becomes the partial. */
            coll_sched_reduce(s, partial, tmp, cnt, dt, op);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    coll_sched_fence(s);
}
