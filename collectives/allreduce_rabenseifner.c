/*
 * Allreduce after Rabenseifner: recursive-halving reduce-scatter, then
 * recursive-doubling allgather of the reduced chunks. Each phase moves
 * (p-1)/p * n bytes in log2(p) steps: cost 2 log2(p) alpha + 2 n beta +
 * n gamma, against log2(p) * n beta for plain recursive doubling, so it wins
 * from a few kilobytes up to where the ring's neighbour-only traffic does.
 *
 * Non-power-of-two sizes fold in first and get the result at the end. Each
 * chunk is reduced on exactly one rank and then copied to all, so every
 * rank ends with bitwise the same result; the halving keeps MPI's order for
 * operations that do not commute (see halving.c).
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/op.h"

/* Allgather mirroring the halving steps: before step s (from the last
 * back) this rank holds chunks [lo, hi), one half of [los[s], his[s]), and
 * its partner holds the other half. */
static int allgather_doubling(char *buf, const int *disps, MPI_Datatype dt, int newrank, int rem,
                              int lo, int hi, const int *los, const int *his, int nsteps,
                              MPI_Comm comm)
{
    MPI_Aint ext = dt->extent;
    for (int s = nsteps - 1; s >= 0; s--) {
        int dst = coll_fold_real(newrank ^ (1 << s), rem);
        int plo = lo == los[s] ? hi : los[s];
        int phi = lo == los[s] ? his[s] : lo;
        int rc = coll_sendrecv(buf + (MPI_Aint)disps[lo] * ext, (size_t)(disps[hi] - disps[lo]),
                               dt, dst, buf + (MPI_Aint)disps[plo] * ext,
                               (size_t)(disps[phi] - disps[plo]), dt, dst, COLL_TAG_ALLREDUCE,
                               comm);
        if (rc)
            return rc;
        lo = los[s];
        hi = his[s];
    }
    return 0;
}

int coll_allreduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    int rc = 0;
    if (sbuf != MPI_IN_PLACE && (rc = coll_copy(sbuf, count, dt, rbuf, count, dt)))
        return rc;
    if (n == 1 || count == 0)
        return 0;

    int pof2 = coll_pof2(n), rem = n - pof2, nsteps = 0, newrank, lo = 0, hi = 0;
    while ((1 << nsteps) < pof2)
        nsteps++;
    void *raw;
    void *tmp = coll_tmp_alloc(count, dt, &raw);
    int *ints = malloc(sizeof(int) * (2 * (size_t)pof2 + 1 + 2 * (size_t)nsteps));
    if (!tmp || !ints) {
        rc = CORE_ENOMEM;
        goto out;
    }
    int *cnts = ints, *disps = ints + pof2, *los = disps + pof2 + 1, *his = los + nsteps;
    void *cur = rbuf, *other = tmp;
    rc = coll_fold_in(rbuf, tmp, count, dt, op, COLL_TAG_ALLREDUCE, comm, &newrank);
    if (rc || newrank < 0)
        goto fold_out;

    coll_split(count, pof2, cnts, disps);
    rc = coll_rs_halving(&cur, &other, cnts, disps, dt, op, newrank, pof2, rem, &lo, &hi, los,
                         his, COLL_TAG_ALLREDUCE, comm);
    if (rc)
        goto out;
    if (cur != rbuf) {
        MPI_Aint off = (MPI_Aint)disps[lo] * dt->extent;
        size_t cnt = (size_t)(disps[hi] - disps[lo]);
        if ((rc = coll_copy((char *)cur + off, cnt, dt, (char *)rbuf + off, cnt, dt)))
            goto out;
    }
    rc = allgather_doubling(rbuf, disps, dt, newrank, rem, lo, hi, los, his, nsteps, comm);
    if (rc)
        goto out;

fold_out:
    if (!rc && r < 2 * rem) {
        if (r % 2)
            rc = coll_send(rbuf, count, dt, r - 1, COLL_TAG_ALLREDUCE, comm);
        else
            rc = coll_recv(rbuf, count, dt, r + 1, COLL_TAG_ALLREDUCE, comm);
    }
out:
    free(ints);
    free(raw);
    return rc;
}
