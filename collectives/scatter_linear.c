/*
 * Linear scatter(v): the root sends every rank its block straight from the
 * block's place, all at once. (p-1) alpha + n beta at the root and no
 * copies: the choice for large blocks and the only algorithm for
 * scatterv.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_scatter_linear(const coll_layout_t *sl, void *rbuf, int rcount, MPI_Datatype rdt,
                        int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    if (r != root)
        return coll_recv(rbuf, (size_t)rcount, rdt, root, COLL_TAG_SCATTER, comm);

    MPI_Request *reqs = calloc((size_t)n, sizeof(*reqs));
    if (!reqs)
        return CORE_ENOMEM;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (i != root)
            rc = coll_isend(lay_ptr(sl, i), (size_t)lay_count(sl, i), sl->dt, i, COLL_TAG_SCATTER,
                            comm, &reqs[i]);
    }
    if (!rc && rbuf != MPI_IN_PLACE)
        rc = coll_copy(lay_ptr(sl, root), lay_count(sl, root), sl->dt, rbuf, rcount, rdt);
    int rc2 = coll_waitall(reqs, n);
    free(reqs);
    return rc ? rc : rc2;
}
