/*
 * Gather over a binomial tree rooted at the root: each rank collects the
 * blocks of its subtree (relative ranks [vr, vr + 2^k)) in a packed buffer
 * and passes them up in one message. log2(p) alpha + (p-1)/p n beta at the
 * root, against (p-1) alpha for the linear gather: the choice for small
 * blocks; for large blocks the extra copies at inner ranks cost more than
 * the latency saved.
 *
 * Leaves send straight from the user's buffer. Blocks travel packed; the
 * root unpacks them to their places (rotated by the root's rank).
 */
#include "collectives/coll_impl.h"

void coll_gather_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                          MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root)
{
    int n = g->n, r = g->me, vr = (r - root + n) % n;
    int inplace = sbuf == MPI_IN_PLACE;
    if (n == 1) {
        if (!inplace)
            coll_sched_copy(s, sbuf, (size_t)scount, sdt, rbuf, (size_t)rcount, rdt);
        coll_sched_fence(s);
        return;
    }
    size_t blk = r == root ? (size_t)rcount * rdt->size : (size_t)scount * sdt->size;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    int sub = n - vr < mask ? n - vr : mask;   /* ranks in this subtree */
    if (sub == 1) {
        coll_sched_send(s, sbuf, (size_t)scount, sdt, grp_peer(g, (vr - mask + root) % n));
        coll_sched_fence(s);
        return;
    }
    char *tmp = coll_sched_alloc(s, blk * (size_t)sub + 1);
    if (!tmp)
        return;
    if (r != root)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, tmp, blk, MPI_BYTE);
    for (int m = 1; m < mask; m <<= 1) {
        int child = vr + m;
        if (child >= n)
            break;
        int csub = n - child < m ? n - child : m;
        coll_sched_recv(s, tmp + (size_t)m * blk, (size_t)csub * blk, MPI_BYTE,
                        grp_peer(g, (child + root) % n));
    }
    coll_sched_fence(s);
    if (r != root) {
        coll_sched_send(s, tmp, (size_t)sub * blk, MPI_BYTE, grp_peer(g, (vr - mask + root) % n));
        coll_sched_fence(s);
        return;
    }
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL, NULL, NULL };
    for (int j = 1; j < n; j++)
        coll_sched_copy(s, tmp + (size_t)j * blk, blk, MPI_BYTE, lay_ptr(&rl, (j + root) % n),
                        (size_t)rcount, rdt);
    if (!inplace)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(&rl, root), (size_t)rcount, rdt);
    coll_sched_fence(s);
}
