/*
 * Allgather(v) around a ring: in step k each rank passes the block it got
 * in step k-1 to its right neighbour. (p-1) alpha + (p-1)/p n beta, all
 * traffic between neighbours and straight between user buffers: the choice
 * for large totals, where its linear latency no longer matters. The own
 * block is sent from the send buffer and copied into place while the first
 * step's messages travel.
 */
#include "collectives/coll_impl.h"

void coll_allgather_ring(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                         MPI_Datatype sdt, const coll_layout_t *rl)
{
    int n = g->n, r = g->me, inplace = sbuf == MPI_IN_PLACE;
    int right = grp_peer(g, (r + 1) % n), left = grp_peer(g, (r + n - 1) % n);
    for (int k = 0; k < n - 1; k++) {
        int sb = (r - k + n) % n, rb = (r - k - 1 + n) % n;
        if (k == 0 && !inplace)   /* the own block leaves from the send buffer */
            coll_sched_send(s, sbuf, (size_t)scount, sdt, right);
        else
            coll_sched_send(s, lay_ptr(rl, sb), (size_t)lay_count(rl, sb), lay_dt(rl, sb), right);
        coll_sched_recv(s, lay_ptr(rl, rb), (size_t)lay_count(rl, rb), lay_dt(rl, rb), left);
        if (k == 0 && !inplace)   /* ... and is copied into place meanwhile */
            coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, r), (size_t)lay_count(rl, r),
                            lay_dt(rl, r));
        coll_sched_fence(s);
    }
    if (n == 1 && !inplace)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, r), (size_t)lay_count(rl, r),
                        lay_dt(rl, r));
    coll_sched_fence(s);
}
