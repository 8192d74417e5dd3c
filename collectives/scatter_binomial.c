/*
 * Scatter over a binomial tree rooted at the root, the mirror of the
 * binomial gather: the root packs the blocks in relative-rank order, and
 * each rank receives its subtree's blocks in one message, keeps its own
 * and passes the children theirs. log2(p) alpha + (p-1)/p n beta at the
 * root: the choice for small blocks (linear for large ones).
 *
 * Leaves receive straight into the user's buffer; the root sends straight
 * from its buffer when it is rank 0 with a contiguous datatype.
 */
#include "collectives/coll_impl.h"

void coll_scatter_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root)
{
    int n = g->n, r = g->me, vr = (r - root + n) % n;
    int inplace = rbuf == MPI_IN_PLACE;
    if (n == 1) {
        if (!inplace)
            coll_sched_copy(s, sbuf, (size_t)scount, sdt, rbuf, (size_t)rcount, rdt);
        coll_sched_fence(s);
        return;
    }
    size_t blk = r == root ? (size_t)scount * sdt->size : (size_t)rcount * rdt->size;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    int sub = n - vr < mask ? n - vr : mask;
    if (sub == 1) {
        coll_sched_recv(s, rbuf, (size_t)rcount, rdt, grp_peer(g, (vr - mask + root) % n));
        coll_sched_fence(s);
        return;
    }
    const char *data;
    if (r == root && root == 0 && core_dt_is_contig(sdt)) {
        data = sbuf;
    } else {
        char *tmp = coll_sched_alloc(s, blk * (size_t)sub + 1);
        if (!tmp)
            return;
        data = tmp;
        if (r == root) {
            coll_layout_t sl = { (char *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
            for (int j = 1; j < n; j++)
                coll_sched_copy(s, lay_ptr(&sl, (j + root) % n), (size_t)scount, sdt,
                                tmp + (size_t)j * blk, blk, MPI_BYTE);
        }
    }
    if (r == root) {
        coll_layout_t sl = { (char *)sbuf, sdt, scount, NULL, NULL, NULL, NULL };
        if (!inplace)
            coll_sched_copy(s, lay_ptr(&sl, root), (size_t)scount, sdt, rbuf, (size_t)rcount, rdt);
    } else {
        coll_sched_recv(s, (void *)data, (size_t)sub * blk, MPI_BYTE,
                        grp_peer(g, (vr - mask + root) % n));
        coll_sched_fence(s);
        coll_sched_copy(s, data, blk, MPI_BYTE, rbuf, (size_t)rcount, rdt);
    }
    for (int m = mask >> 1; m > 0; m >>= 1) {
        int child = vr + m;
        if (child >= n)
            continue;
        int csub = n - child < m ? n - child : m;
        coll_sched_send(s, data + (size_t)m * blk, (size_t)csub * blk, MPI_BYTE,
                        grp_peer(g, (child + root) % n));
    }
    coll_sched_fence(s);
}
