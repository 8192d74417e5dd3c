/*
 * Alltoall(v) with all messages in flight at once, in windows of
 * COLL_A2A_WINDOW peers (receives from r + i, sends to r - i, so no rank is
 * everyone's first target). About alpha + n beta when the network keeps up:
 * the choice for medium blocks, where pairwise exchange waits on each step
 * and Bruck's extra copies cost more than latency.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

#define COLL_A2A_WINDOW 32

int coll_alltoall_linear(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc = 0;
    coll_layout_t copy;
    void *raw = NULL;
    MPI_Request reqs[2 * COLL_A2A_WINDOW];
    if (sl->buf == MPI_IN_PLACE) {
        if ((rc = coll_alltoall_inplace_src(rl, n, &copy, &raw)))
            goto out;
        sl = &copy;
    } else if ((rc = coll_copy(lay_ptr(sl, r), lay_count(sl, r), sl->dt, lay_ptr(rl, r),
                               lay_count(rl, r), rl->dt))) {
        goto out;
    }
    for (int first = 1; first < n; first += COLL_A2A_WINDOW) {
        int last = first + COLL_A2A_WINDOW < n ? first + COLL_A2A_WINDOW : n, nreq = 0;
        for (int i = first; i < last && !rc; i++) {
            int src = (r + i) % n;
            rc = coll_irecv(lay_ptr(rl, src), (size_t)lay_count(rl, src), rl->dt, src,
                            COLL_TAG_ALLTOALL, comm, &reqs[nreq]);
            if (!rc)
                nreq++;
        }
        for (int i = first; i < last && !rc; i++) {
            int dst = (r - i + n) % n;
            rc = coll_isend(lay_ptr(sl, dst), (size_t)lay_count(sl, dst), sl->dt, dst,
                            COLL_TAG_ALLTOALL, comm, &reqs[nreq]);
            if (!rc)
                nreq++;
        }
        int rc2 = coll_waitall(reqs, nreq);
        if (rc || (rc = rc2))
            goto out;
    }
out:
    free(raw);
    return rc;
}
