/*
 * Broadcast over a binomial tree rooted at the root: a rank receives from
 * the rank that differs in its lowest set bit (relative to the root), then
 * sends to the ranks below that bit. log2(p) (alpha + n beta): the choice
 * for short messages and small communicators; for long messages every
 * level resends the whole message, where scatter + allgather moves only
 * about 2n bytes per rank.
 *
 * A non-contiguous datatype is packed once (at the root, or on arrival) and
 * forwarded as bytes instead of being packed again for every child.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, vr = (r - root + n) % n;
    if (n == 1)
        return 0;
    size_t nbytes = (size_t)count * dt->size;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    /* mask: this rank's lowest set bit (its subtree spans mask ranks), or
     * the first power of two >= n at the root. Children are vr + mask/2, ... */
    int has_child = vr + 1 < n && mask > 1;

    void *packed = NULL;
    const void *sdata = buf;
    size_t scount = (size_t)count;
    MPI_Datatype sdt = dt;
    int rc = 0;
    if (has_child && !core_dt_is_contig(dt) && nbytes > 0) {
        if (!(packed = malloc(nbytes)))
            return CORE_ENOMEM;
        sdata = packed;
        scount = nbytes;
        sdt = MPI_BYTE;
    }

    if (vr != 0) {
        int parent = (vr - mask + root) % n;
        if (packed)
            rc = coll_recv(packed, nbytes, MPI_BYTE, parent, COLL_TAG_BCAST, comm);
        else
            rc = coll_recv(buf, (size_t)count, dt, parent, COLL_TAG_BCAST, comm);
        if (rc)
            goto out;
        if (packed)
            coll_unpack(buf, (size_t)count, dt, packed);
    } else if (packed) {
        coll_pack(packed, buf, (size_t)count, dt);
    }

    MPI_Request reqs[32];
    int nreq = 0;
    for (mask >>= 1; mask > 0 && !rc; mask >>= 1) {
        if (vr + mask < n)
            rc = coll_isend(sdata, scount, sdt, (vr + mask + root) % n, COLL_TAG_BCAST, comm,
                            &reqs[nreq++]);
    }
    if (rc)
        nreq--;
    int rc2 = coll_waitall(reqs, nreq);
    if (!rc)
        rc = rc2;
out:
    free(packed);
    return rc;
}
