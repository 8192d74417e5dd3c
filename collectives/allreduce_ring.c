/*
 * Allreduce around a ring: the vector is cut in p chunks; p-1 steps of
 * reduce-scatter (each rank passes a partial chunk to its right neighbour
 * and adds its own data to the one arriving from the left), then p-1 steps
 * of allgather. Cost 2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma:
 * the same bandwidth term as Rabenseifner but linear latency, and every
 * message goes to a neighbour, which suits large vectors on many ranks and
 * rings of links.
 *
 * Each chunk is reduced on one rank then copied, so the result is bitwise
 * the same everywhere, but the chunks are combined in ring order starting
 * at different ranks: only for operations that commute (the selector never
 * picks it otherwise).
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/op.h"

int coll_allreduce_ring(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    int rc = 0;
    if (sbuf != MPI_IN_PLACE && (rc = coll_copy(sbuf, count, dt, rbuf, count, dt)))
        return rc;
    if (n == 1 || count == 0)
        return 0;

    int *cnts = malloc(sizeof(int) * (2 * (size_t)n + 1));
    if (!cnts)
        return CORE_ENOMEM;
    int *disps = cnts + n;
    coll_split(count, n, cnts, disps);
    void *raw = NULL;
    void *tmp = coll_tmp_alloc(cnts[0], dt, &raw);
    if (cnts[0] && !tmp) {
        rc = CORE_ENOMEM;
        goto out;
    }
    char *buf = rbuf;
    MPI_Aint ext = dt->extent;
    int right = (r + 1) % n, left = (r + n - 1) % n;
    for (int s = 0; s < n - 1; s++) {
        int sc = (r - s + n) % n, rcv = (r - s - 1 + 2 * n) % n;
        rc = coll_sendrecv(buf + (MPI_Aint)disps[sc] * ext, cnts[sc], dt, right, tmp, cnts[rcv],
                           dt, left, COLL_TAG_ALLREDUCE, comm);
        if (rc)
            goto out;
        rc = core_op_apply(op, tmp, buf + (MPI_Aint)disps[rcv] * ext, cnts[rcv], dt);
        if (rc)
            goto out;
    }
    /* Rank r now owns the reduced chunk r + 1. */
    for (int s = 0; s < n - 1; s++) {
        int sc = (r + 1 - s + n) % n, rcv = (r - s + n) % n;
        rc = coll_sendrecv(buf + (MPI_Aint)disps[sc] * ext, cnts[sc], dt, right,
                           buf + (MPI_Aint)disps[rcv] * ext, cnts[rcv], dt, left,
                           COLL_TAG_ALLREDUCE, comm);
        if (rc)
            goto out;
    }
out:
    free(raw);
    free(cnts);
    return rc;
}
