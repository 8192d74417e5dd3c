/*
 * Linear gather(v): every rank sends its block straight to the root, which
 * posts one receive per rank into the block's place. (p-1) alpha + n beta
 * at the root, no copies anywhere: the choice for large blocks and the
 * only algorithm for gatherv, whose blocks have their own counts and
 * displacements.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_gather_linear(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                       int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    if (r != root)
        return coll_send(sbuf, (size_t)scount, sdt, root, COLL_TAG_GATHER, comm);

    MPI_Request *reqs = calloc((size_t)n, sizeof(*reqs));
    if (!reqs)
        return CORE_ENOMEM;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (i != root)
            rc = coll_irecv(lay_ptr(rl, i), (size_t)lay_count(rl, i), rl->dt, i, COLL_TAG_GATHER,
                            comm, &reqs[i]);
    }
    if (!rc && sbuf != MPI_IN_PLACE)
        rc = coll_copy(sbuf, scount, sdt, lay_ptr(rl, root), lay_count(rl, root), rl->dt);
    int rc2 = coll_waitall(reqs, n);
    free(reqs);
    return rc ? rc : rc2;
}
