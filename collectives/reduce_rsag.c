/*
 * Reduce after Rabenseifner: recursive-halving reduce-scatter (halving.c),
 * then a binomial gather of the reduced chunks to the root that mirrors the
 * halving steps. Cost 2 log2(p) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma
 * against log2(p) n (beta + gamma) for the binomial tree: the choice for
 * long vectors. Keeps MPI's order for operations that do not commute.
 *
 * Non-power-of-two sizes fold in first; when the root is an even rank that
 * sat out, its odd partner gathers the result and forwards it.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

/* Gather mirroring the halving steps toward group rank newroot: in step s
 * (from the last back) the partner whose bit s differs from newroot's
 * sends its chunks [lo, hi) and is done. */
static int gather_halves(char *buf, const int *disps, MPI_Datatype dt, int newrank, int newroot,
                         int rem, int lo, int hi, const int *los, const int *his, int nsteps,
                         MPI_Comm comm)
{
    MPI_Aint ext = dt->extent;
    for (int s = nsteps - 1; s >= 0; s--) {
        int mask = 1 << s, dst = coll_fold_real(newrank ^ mask, rem);
        if ((newrank & mask) != (newroot & mask))
            return coll_send(buf + (MPI_Aint)disps[lo] * ext, (size_t)(disps[hi] - disps[lo]), dt,
                             dst, COLL_TAG_REDUCE, comm);
        int plo = lo == los[s] ? hi : los[s];
        int phi = lo == los[s] ? his[s] : lo;
        int rc = coll_recv(buf + (MPI_Aint)disps[plo] * ext, (size_t)(disps[phi] - disps[plo]),
                           dt, dst, COLL_TAG_REDUCE, comm);
        if (rc)
            return rc;
        lo = los[s];
        hi = his[s];
    }
    return 0;
}

int coll_reduce_rsag(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    if (n == 1 || count == 0)
        return sbuf == MPI_IN_PLACE ? 0 : coll_copy(sbuf, count, dt, rbuf, count, dt);

    int pof2 = coll_pof2(n), rem = n - pof2, nsteps = 0, newrank, lo = 0, hi = 0, rc;
    while ((1 << nsteps) < pof2)
        nsteps++;
    /* The group rank that ends with the result, and the real rank holding it. */
    int holder = root < 2 * rem ? (root | 1) : root;
    int newroot = root < 2 * rem ? root / 2 : root - rem;

    void *raw_a, *raw_b;
    void *a = coll_tmp_alloc(count, dt, &raw_a), *b = coll_tmp_alloc(count, dt, &raw_b);
    int *ints = malloc(sizeof(int) * (2 * (size_t)pof2 + 1 + 2 * (size_t)nsteps));
    if (!a || !b || !ints) {
        rc = CORE_ENOMEM;
        goto out;
    }
    int *cnts = ints, *disps = ints + pof2, *los = disps + pof2 + 1, *his = los + nsteps;
    void *cur = a, *other = b;
    if ((rc = coll_copy(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, cur, count, dt)))
        goto out;
    rc = coll_fold_in(cur, other, count, dt, op, COLL_TAG_REDUCE, comm, &newrank);
    if (rc)
        goto out;
    if (newrank >= 0) {
        coll_split(count, pof2, cnts, disps);
        rc = coll_rs_halving(&cur, &other, cnts, disps, dt, op, newrank, pof2, rem, &lo, &hi,
                             los, his, COLL_TAG_REDUCE, comm);
        if (rc)
            goto out;
        rc = gather_halves(cur, disps, dt, newrank, newroot, rem, lo, hi, los, his, nsteps,
                           comm);
        if (rc || newrank != newroot)
            goto out;
        if (r == root)
            rc = coll_copy(cur, count, dt, rbuf, count, dt);
        else
            rc = coll_send(cur, count, dt, root, COLL_TAG_REDUCE, comm);
    } else if (r == root) {
        rc = coll_recv(rbuf, count, dt, holder, COLL_TAG_REDUCE, comm);
    }
out:
    free(ints);
    free(raw_a);
    free(raw_b);
    return rc;
}
