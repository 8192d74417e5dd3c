/*
 * Barrier by dissemination: in step k each rank signals rank r + 2^k and
 * waits for rank r - 2^k. After ceil(log2(p)) steps every rank has heard,
 * directly or not, from every other: ceil(log2(p)) alpha for any p, with
 * no root to become a hot spot.
 */
#include "collectives/coll_impl.h"

int coll_barrier_dissemination(MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    for (int d = 1; d < n; d <<= 1) {
        int rc = coll_sendrecv(NULL, 0, MPI_BYTE, (r + d) % n, NULL, 0, MPI_BYTE,
                               (r - d + n) % n, COLL_TAG_BARRIER, comm);
        if (rc)
            return rc;
    }
    return 0;
}
