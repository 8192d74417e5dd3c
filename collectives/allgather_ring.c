/*
 * Allgather(v) around a ring: in step s each rank passes the block it got
 * in step s-1 to its right neighbour. (p-1) alpha + (p-1)/p n beta, all
 * traffic between neighbours and straight between user buffers: the choice
 * for large totals, where its linear latency no longer matters.
 */
#include "collectives/coll_impl.h"

int coll_allgather_ring(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                        MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc;
    if (sbuf != MPI_IN_PLACE &&
        (rc = coll_copy(sbuf, scount, sdt, lay_ptr(rl, r), lay_count(rl, r), rl->dt)))
        return rc;
    int right = (r + 1) % n, left = (r + n - 1) % n;
    for (int s = 0; s < n - 1; s++) {
        int sb = (r - s + n) % n, rb = (r - s - 1 + n) % n;
        rc = coll_sendrecv(lay_ptr(rl, sb), (size_t)lay_count(rl, sb), rl->dt, right,
                           lay_ptr(rl, rb), (size_t)lay_count(rl, rb), rl->dt, left,
                           COLL_TAG_ALLGATHER, comm);
        if (rc)
            return rc;
    }
    return 0;
}
