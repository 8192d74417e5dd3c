/*
 * Alltoall(v/w) by pairwise exchange: p-1 steps, in step i each rank sends
 * to one rank and receives from another (r XOR i on power-of-two sizes,
 * where the two are the same rank; r + i and r - i otherwise). (p-1) alpha
 * + n beta with a single message in flight per rank, which keeps large
 * exchanges from flooding the network: the choice for large blocks.
 *
 * MPI_IN_PLACE (here and in the linear algorithm) first copies the blocks
 * to a scratch buffer with the receive buffer's layout, which then serves
 * as the send buffer.
 */
#include "collectives/coll_impl.h"

int coll_alltoall_inplace_src(coll_sched_t *s, const coll_layout_t *rl, int n,
                              coll_layout_t *sl)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    *sl = *rl;
    for (int i = 0; i < n; i++) {
        int c = lay_count(rl, i);
        MPI_Datatype dt = lay_dt(rl, i);
        if (c == 0 || dt->size == 0)
            continue;
        MPI_Aint a = lay_ptr(rl, i) - rl->buf, b = a + (MPI_Aint)(c - 1) * dt->extent;
        MPI_Aint l = (a < b ? a : b) + dt->true_lb;
        MPI_Aint h = (a < b ? b : a) + dt->true_lb + dt->true_extent;
        if (!any || l < lo)
            lo = l;
        if (!any || h > hi)
            hi = h;
        any = 1;
    }
    if (!any)
        return 0;
    char *p = coll_sched_alloc(s, (size_t)(hi - lo) + 1);
    if (!p)
        return CORE_ENOMEM;
    sl->buf = p - lo;
    for (int i = 0; i < n; i++)
        coll_sched_copy(s, lay_ptr(rl, i), (size_t)lay_count(rl, i), lay_dt(rl, i), lay_ptr(sl, i),
                        (size_t)lay_count(sl, i), lay_dt(sl, i));
    return 0;
}

void coll_alltoall_pairwise(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                            const coll_layout_t *rl)
{
    int n = g->n, r = g->me;
    coll_layout_t copy;
    int own = sl->buf != MPI_IN_PLACE;   /* the own block still to copy */
    if (!own) {
        if (coll_alltoall_inplace_src(s, rl, n, &copy))
            return;
        sl = &copy;
    }
    int pow2 = coll_is_pof2(n);
    for (int i = 1; i < n; i++) {
        int to = pow2 ? r ^ i : (r + i) % n;
        int from = pow2 ? r ^ i : (r - i + n) % n;
        coll_sched_send(s, lay_ptr(sl, to), (size_t)lay_count(sl, to), lay_dt(sl, to),
                        grp_peer(g, to));
        coll_sched_recv(s, lay_ptr(rl, from), (size_t)lay_count(rl, from), lay_dt(rl, from),
                        grp_peer(g, from));
        if (own) {   /* while the first exchange travels */
            coll_sched_copy(s, lay_ptr(sl, r), (size_t)lay_count(sl, r), lay_dt(sl, r),
                            lay_ptr(rl, r), (size_t)lay_count(rl, r), lay_dt(rl, r));
            own = 0;
        }
        coll_sched_fence(s);
    }
    if (own)
        coll_sched_copy(s, lay_ptr(sl, r), (size_t)lay_count(sl, r), lay_dt(sl, r), lay_ptr(rl, r),
                        (size_t)lay_count(rl, r), lay_dt(rl, r));
    coll_sched_fence(s);
}
