/*
 * The pieces the power-of-two reduction algorithms share: folding a
 * non-power-of-two communicator into a power-of-two group, splitting a
 * vector in chunks, and recursive-halving reduce-scatter (the first half of
 * Rabenseifner's allreduce and reduce).
 *
 * Order: every combination puts the lower ranks' partial result first
 * (core_op_apply(op, lower, higher) computes higher = lower op higher), and
 * every partial result covers a contiguous run of ranks, so user operations
 * that do not commute still see MPI's canonical order r0 op r1 op ... .
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/op.h"

void coll_split(int count, int n, int *cnts, int *disps)
{
    int q = count / n, rem = count % n, off = 0;
    for (int i = 0; i < n; i++) {
        cnts[i] = q + (i < rem);
        disps[i] = off;
        off += cnts[i];
    }
    disps[n] = off;
}

int coll_fold_in(void *cur, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int tag,
                 MPI_Comm comm, int *newrank)
{
    int n = comm->size, r = comm->rank;
    int rem = n - coll_pof2(n);
    if (r >= 2 * rem) {
        *newrank = r - rem;
        return 0;
    }
    if (r % 2 == 0) {
        *newrank = -1;
        return coll_send(cur, (size_t)count, dt, r + 1, tag, comm);
    }
    *newrank = r / 2;
    int rc = coll_recv(tmp, (size_t)count, dt, r - 1, tag, comm);
    if (rc)
        return rc;
    return core_op_apply(op, tmp, cur, count, dt);
}

int coll_rs_halving(void **cur, void **other, const int *cnts, const int *disps,
                    MPI_Datatype dt, MPI_Op op, int newrank, int pof2, int rem, int *lo, int *hi,
                    int *los, int *his, int tag, MPI_Comm comm)
{
    (void)cnts;
    MPI_Aint ext = dt->extent;
    int l = 0, h = pof2, step = 0;
    for (int mask = 1; mask < pof2; mask <<= 1, step++) {
        int newdst = newrank ^ mask, dst = coll_fold_real(newdst, rem);
        int mid = (l + h) / 2, lower = newrank < newdst;
        int keep_lo = lower ? l : mid, keep_hi = lower ? mid : h;
        int send_lo = lower ? mid : l, send_hi = lower ? h : mid;
        los[step] = l;
        his[step] = h;
        char *c = *cur, *o = *other;
        int nkeep = disps[keep_hi] - disps[keep_lo];
        MPI_Aint koff = (MPI_Aint)disps[keep_lo] * ext;
        int rc = coll_sendrecv(c + (MPI_Aint)disps[send_lo] * ext,
                               (size_t)(disps[send_hi] - disps[send_lo]), dt, dst, o + koff,
                               (size_t)nkeep, dt, dst, tag, comm);
        if (rc)
            return rc;
        if (lower) {
            /* other = mine op theirs; then other holds the partial result. */
            rc = core_op_apply(op, c + koff, o + koff, nkeep, dt);
            void *t = *cur;
            *cur = *other;
            *other = t;
        } else {
            rc = core_op_apply(op, o + koff, c + koff, nkeep, dt);
        }
        if (rc)
            return rc;
        l = keep_lo;
        h = keep_hi;
    }
    *lo = l;
    *hi = h;
    return 0;
}
