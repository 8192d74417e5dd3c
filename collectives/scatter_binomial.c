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
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_scatter_binomial(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                          MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, vr = (r - root + n) % n;
    int inplace = rbuf == MPI_IN_PLACE;
    if (n == 1)
        return inplace ? 0 : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);

    size_t blk = r == root ? (size_t)scount * sdt->size : (size_t)rcount * rdt->size;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    int sub = n - vr < mask ? n - vr : mask;
    if (sub == 1)
        return coll_recv(rbuf, (size_t)rcount, rdt, (vr - mask + root) % n, COLL_TAG_SCATTER,
                         comm);

    int rc = 0;
    char *tmp = NULL;
    const char *data;
    if (r == root && root == 0 && core_dt_is_contig(sdt)) {
        data = sbuf;
    } else {
        if (!(tmp = malloc(blk * (size_t)sub + 1)))
            return CORE_ENOMEM;
        data = tmp;
    }
    if (r == root) {
        coll_layout_t sl = { (char *)sbuf, sdt, scount, NULL, NULL };
        if (tmp)
            for (int j = 1; j < n; j++)
                coll_pack(tmp + (size_t)j * blk, lay_ptr(&sl, (j + root) % n), (size_t)scount,
                          sdt);
        if (!inplace && (rc = coll_copy(lay_ptr(&sl, root), scount, sdt, rbuf, rcount, rdt)))
            goto out;
    } else {
        rc = coll_recv(tmp, (size_t)sub * blk, MPI_BYTE, (vr - mask + root) % n,
                       COLL_TAG_SCATTER, comm);
        if (rc)
            goto out;
        coll_unpack(rbuf, (size_t)rcount, rdt, tmp);
    }

    MPI_Request reqs[32];
    int nreq = 0;
    for (int m = mask >> 1; m > 0 && !rc; m >>= 1) {
        int child = vr + m;
        if (child >= n)
            continue;
        int csub = n - child < m ? n - child : m;
        rc = coll_isend(data + (size_t)m * blk, (size_t)csub * blk, MPI_BYTE, (child + root) % n,
                        COLL_TAG_SCATTER, comm, &reqs[nreq++]);
    }
    if (rc)
        nreq--;
    int rc2 = coll_waitall(reqs, nreq);
    if (!rc)
        rc = rc2;
out:
    free(tmp);
    return rc;
}
