/*
 * Allreduce as a reduce to rank 0 followed by a broadcast, each chosen by
 * its own selection rules. Twice the latency of recursive doubling, but it
 * works for any operation and message size with the order-keeping reduce
 * algorithms, so it is the fallback for user operations that do not
 * commute on large vectors.
 */
#include "collectives/coll_impl.h"

int coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm)
{
    /* Away from the root the input must not be MPI_IN_PLACE: it is rbuf. */
    const void *in = (sbuf == MPI_IN_PLACE && comm->rank != 0) ? rbuf : sbuf;
    int rc = coll_reduce(in, rbuf, count, dt, op, 0, comm);
    if (rc)
        return rc;
    return coll_bcast(rbuf, count, dt, 0, comm);
}
