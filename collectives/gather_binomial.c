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
#include <stdlib.h>
#include <string.h>
#include "collectives/coll_impl.h"

int coll_gather_binomial(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, vr = (r - root + n) % n;
    int inplace = sbuf == MPI_IN_PLACE;
    if (n == 1)
        return inplace ? 0 : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);

    size_t blk = r == root ? (size_t)rcount * rdt->size : (size_t)scount * sdt->size;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    int sub = n - vr < mask ? n - vr : mask;   /* ranks in this subtree */
    if (sub == 1)
        return coll_send(sbuf, (size_t)scount, sdt, (vr - mask + root) % n, COLL_TAG_GATHER,
                         comm);

    int rc = 0;
    char *tmp = malloc(blk * (size_t)sub + 1);
    if (!tmp)
        return CORE_ENOMEM;
    if (r != root)
        coll_pack(tmp, sbuf, (size_t)scount, sdt);

    MPI_Request reqs[32];
    int nreq = 0;
    for (int m = 1; m < mask && !rc; m <<= 1) {
        int child = vr + m;
        if (child >= n)
            break;
        int csub = n - child < m ? n - child : m;
        rc = coll_irecv(tmp + (size_t)m * blk, (size_t)csub * blk, MPI_BYTE, (child + root) % n,
                        COLL_TAG_GATHER, comm, &reqs[nreq++]);
    }
    if (rc)
        nreq--;
    int rc2 = coll_waitall(reqs, nreq);
    if (rc || (rc = rc2))
        goto out;

    if (r != root) {
        rc = coll_send(tmp, (size_t)sub * blk, MPI_BYTE, (vr - mask + root) % n, COLL_TAG_GATHER,
                       comm);
        goto out;
    }
    coll_layout_t rl = { rbuf, rdt, rcount, NULL, NULL };
    for (int j = 1; j < n; j++)
        coll_unpack(lay_ptr(&rl, (j + root) % n), (size_t)rcount, rdt, tmp + (size_t)j * blk);
    if (!inplace)
        rc = coll_copy(sbuf, scount, sdt, lay_ptr(&rl, root), rcount, rdt);
out:
    free(tmp);
    return rc;
}
