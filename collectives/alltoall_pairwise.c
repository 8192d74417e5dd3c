/*
 * Alltoall(v) by pairwise exchange: p-1 steps, in step i each rank sends to
 * one rank and receives from another (r XOR i on power-of-two sizes, where
 * the two are the same rank; r + i and r - i otherwise). (p-1) alpha +
 * n beta with a single message in flight per rank, which keeps large
 * exchanges from flooding the network: the choice for large blocks.
 *
 * MPI_IN_PLACE (here and in the linear algorithm) first copies the blocks
 * to a scratch buffer with the receive buffer's layout, which then serves
 * as the send buffer.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_alltoall_inplace_src(const coll_layout_t *rl, int n, coll_layout_t *sl, void **raw)
{
    MPI_Datatype dt = rl->dt;
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    *raw = NULL;
    *sl = *rl;
    for (int i = 0; i < n; i++) {
        int c = lay_count(rl, i);
        if (c == 0)
            continue;
        MPI_Aint a = lay_ptr(rl, i) - rl->buf, b = a + (MPI_Aint)(c - 1) * dt->extent;
        MPI_Aint l = (a < b ? a : b) + dt->true_lb, h = (a < b ? b : a) + dt->true_lb +
                                                         dt->true_extent;
        if (!any || l < lo)
            lo = l;
        if (!any || h > hi)
            hi = h;
        any = 1;
    }
    if (!any)
        return 0;
    char *p = malloc((size_t)(hi - lo) + 1);
    if (!p)
        return CORE_ENOMEM;
    *raw = p;
    sl->buf = p - lo;
    for (int i = 0; i < n; i++) {
        int rc = coll_copy(lay_ptr(rl, i), lay_count(rl, i), dt, lay_ptr(sl, i),
                           lay_count(sl, i), dt);
        if (rc)
            return rc;
    }
    return 0;
}

int coll_alltoall_pairwise(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc = 0;
    coll_layout_t copy;
    void *raw = NULL;
    if (sl->buf == MPI_IN_PLACE) {
        if ((rc = coll_alltoall_inplace_src(rl, n, &copy, &raw)))
            goto out;
        sl = &copy;
    } else if ((rc = coll_copy(lay_ptr(sl, r), lay_count(sl, r), sl->dt, lay_ptr(rl, r),
                               lay_count(rl, r), rl->dt))) {
        goto out;
    }
    int pow2 = coll_is_pof2(n);
    for (int i = 1; i < n; i++) {
        int dst = pow2 ? r ^ i : (r + i) % n;
        int src = pow2 ? r ^ i : (r - i + n) % n;
        rc = coll_sendrecv(lay_ptr(sl, dst), (size_t)lay_count(sl, dst), sl->dt, dst,
                           lay_ptr(rl, src), (size_t)lay_count(rl, src), rl->dt, src,
                           COLL_TAG_ALLTOALL, comm);
        if (rc)
            goto out;
    }
out:
    free(raw);
    return rc;
}
