/*
 * Linear reduce: every rank sends its vector straight to the root, which
 * receives the p-1 vectors into slots of a scratch buffer and combines the
 * p vectors itself in rank order. (p-1) alpha + (p-1) n beta + (p-1) n
 * gamma at the root: for short vectors on a few ranks only.
 *
 * Why: where one node's ranks outnumber its cores, a waiting rank gives
 * its core away, and each level of the binomial tree waits for a
 * particular rank (the one that combines its children's vectors) to run
 * again. Here nobody but the root waits: a short vector leaves eagerly and
 * its sender is done, and the root finds whatever has arrived once it runs.
 *
 * The root combines v0 op (v1 op ... (vp-2 op vp-1)), MPI's canonical
 * order, so operations that do not commute need nothing more.
 */
#include "collectives/coll_impl.h"

void coll_reduce_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                        int count, MPI_Datatype dt, MPI_Op op, int root)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (r != root) {
        coll_sched_send(s, mine, cnt, dt, grp_peer(g, root));
        coll_sched_fence(s);
        return;
    }
    if (n == 1 || count == 0) {
        if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
        coll_sched_fence(s);
        return;
    }
    /* the root's own vector is copied into its slot too, as rbuf may be it (MPI_IN_PLACE) */
    char *all = coll_linear_gather(s, g, mine, cnt, dt);
    if (!all)
        return;
    coll_sched_fence(s);
    coll_linear_combine(s, n, all, rbuf, cnt, dt, op);
}
