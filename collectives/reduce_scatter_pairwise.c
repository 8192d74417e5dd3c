/*
 * Reduce-scatter by pairwise exchange: in step i each rank sends rank
 * r + i its contribution to that rank's block and adds the contribution of
 * rank r - i to its own. p-1 steps of one block each: (p-1) alpha +
 * (p-1)/p n (beta + gamma), no extra copies and a single message in flight:
 * the choice for long vectors. Contributions arrive in ring order, so only
 * for operations that commute (the selector never picks it otherwise).
 * Each block is reduced on one rank only.
 */
#include "collectives/coll_impl.h"

void coll_reduce_scatter_pairwise(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                  void *rbuf, const int *counts, MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me, inplace = sbuf == MPI_IN_PLACE;
    const char *src = inplace ? rbuf : sbuf;
    MPI_Aint ext = dt->extent;
    int *boff = coll_sched_alloc(s, sizeof(int) * ((size_t)n + 1));
    if (!boff)
        return;
    boff[0] = 0;
    for (int i = 0; i < n; i++)
        boff[i + 1] = boff[i] + counts[i];
    size_t mine = (size_t)counts[r];
    /* In place, the vector occupies rbuf until every block has been sent. */
    void *acc = inplace ? coll_sched_tmp(s, mine, dt) : rbuf;
    void *in = coll_sched_tmp(s, mine, dt);
    coll_sched_copy(s, src + (MPI_Aint)boff[r] * ext, mine, dt, acc, mine, dt);
    for (int i = 1; i < n; i++) {
        int to = (r + i) % n, from = (r - i + n) % n;
        coll_sched_send(s, src + (MPI_Aint)boff[to] * ext, (size_t)counts[to], dt, grp_peer(g, to));
        coll_sched_recv(s, in, mine, dt, grp_peer(g, from));
        coll_sched_fence(s);
        coll_sched_reduce(s, in, acc, mine, dt, op);
    }
    if (acc != rbuf)
        coll_sched_copy(s, acc, mine, dt, rbuf, mine, dt);
    coll_sched_fence(s);
}
