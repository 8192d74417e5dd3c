/*
 * Barrier by dissemination: in round k each rank signals rank r + 2^k and
 * waits for rank r - 2^k. After ceil(log2(p)) rounds every rank has heard,
 * directly or not, from every other: ceil(log2(p)) alpha for any p, with
 * no root to become a hot spot.
 */
#include "collectives/coll_impl.h"

void coll_barrier_dissemination(coll_sched_t *s, const coll_grp_t *g)
{
    int n = g->n, r = g->me;
    for (int d = 1; d < n; d <<= 1) {
        coll_sched_send(s, NULL, 0, MPI_BYTE, grp_peer(g, (r + d) % n));
        coll_sched_recv(s, NULL, 0, MPI_BYTE, grp_peer(g, (r - d + n) % n));
        coll_sched_fence(s);
    }
}
