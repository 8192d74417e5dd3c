/*
 * Linear gather(v): every rank sends its block straight to the root, which
 * posts one receive per rank into the block's place. (p-1) alpha + n beta
 * at the root, no copies anywhere: the choice for large blocks and the
 * only algorithm for gatherv, whose blocks have their own counts and
 * displacements.
 */
#include "collectives/coll_impl.h"

void coll_gather_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                        MPI_Datatype sdt, const coll_layout_t *rl, int root)
{
    int n = g->n, r = g->me;
    if (r != root) {
        coll_sched_send(s, sbuf, (size_t)scount, sdt, grp_peer(g, root));
        coll_sched_fence(s);
        return;
    }
    for (int i = 0; i < n; i++)
        if (i != root)
            coll_sched_recv(s, lay_ptr(rl, i), (size_t)lay_count(rl, i), lay_dt(rl, i),
                            grp_peer(g, i));
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, root),
                        (size_t)lay_count(rl, root), lay_dt(rl, root));
    coll_sched_fence(s);
}
