/*
 * Linear scatter(v): the root sends every rank its block straight from the
 * block's place, all at once. (p-1) alpha + n beta at the root and no
 * copies: the choice for large blocks and the only algorithm for
 * scatterv.
 */
#include "collectives/coll_impl.h"

void coll_scatter_linear(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                         void *rbuf, int rcount, MPI_Datatype rdt, int root)
{
    int n = g->n, r = g->me;
    if (r != root) {
        coll_sched_recv(s, rbuf, (size_t)rcount, rdt, grp_peer(g, root));
        coll_sched_fence(s);
        return;
    }
    for (int i = 0; i < n; i++)
        if (i != root)
            coll_sched_send(s, lay_ptr(sl, i), (size_t)lay_count(sl, i), lay_dt(sl, i),
                            grp_peer(g, i));
    if (rbuf != MPI_IN_PLACE)
        coll_sched_copy(s, lay_ptr(sl, root), (size_t)lay_count(sl, root), lay_dt(sl, root), rbuf,
                        (size_t)rcount, rdt);
    coll_sched_fence(s);
}
