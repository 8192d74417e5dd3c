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
#include "collectives/coll_impl.h"

/* Allgather mirroring the halving steps: before step k (from the last
 * back) this rank holds chunks [lo, hi), one half of [los[k], his[k]), and
 * its partner holds the other half. */
static void allgather_doubling(coll_sched_t *s, const coll_grp_t *g, char *buf,
                               const int *disps, MPI_Datatype dt, int newrank, int rem, int lo,
                               int hi, const int *los, const int *his, int nsteps)
{
    MPI_Aint ext = dt->extent;
    for (int k = nsteps - 1; k >= 0; k--) {
        int dst = grp_peer(g, coll_fold_real(newrank ^ (1 << k), rem));
        int plo = lo == los[k] ? hi : los[k];
        int phi = lo == los[k] ? his[k] : lo;
        coll_sched_send(s, buf + (MPI_Aint)disps[lo] * ext, (size_t)(disps[hi] - disps[lo]), dt,
                        dst);
        coll_sched_recv(s, buf + (MPI_Aint)disps[plo] * ext, (size_t)(disps[phi] - disps[plo]), dt,
                        dst);
        coll_sched_fence(s);
        lo = los[k];
        hi = his[k];
    }
}

void coll_allreduce_rabenseifner(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                 void *rbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    int pof2 = coll_pof2(n), rem = n - pof2, nsteps = coll_log2(pof2), lo = 0, hi = 0;
    /* Outside the fold, the first halving step reads the send buffer where it
     * is, and rbuf serves as scratch until the result arrives. */
    int ro = sbuf != MPI_IN_PLACE && n > 1 && count > 0 && r >= 2 * rem &&
             coll_op_symmetric(op);
    if (sbuf != MPI_IN_PLACE && !ro)
        coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
    if (n == 1 || count == 0) {
        coll_sched_fence(s);
        return;
    }
    void *tmp = coll_sched_tmp(s, cnt, dt);
    int *ints = coll_sched_alloc(s, sizeof(int) * (2 * (size_t)pof2 + 1 + 2 * (size_t)nsteps));
    if (!tmp || !ints)
        return;
    int *cnts = ints, *disps = ints + pof2, *los = disps + pof2 + 1, *his = los + nsteps;
    void *cur = ro ? (void *)sbuf : rbuf, *other = tmp;
    int newrank = coll_fold_in(s, g, rbuf, tmp, count, dt, op);
    if (newrank >= 0) {
        coll_split(count, pof2, cnts, disps);
        coll_rs_halving(s, g, &cur, &other, disps, dt, op, newrank, pof2, ro ? rbuf : NULL, &lo,
                        &hi, los, his);
        if (cur != rbuf) {
            MPI_Aint off = (MPI_Aint)disps[lo] * dt->extent;
            size_t c = (size_t)(disps[hi] - disps[lo]);
            coll_sched_copy(s, (char *)cur + off, c, dt, (char *)rbuf + off, c, dt);
        }
        allgather_doubling(s, g, rbuf, disps, dt, newrank, rem, lo, hi, los, his, nsteps);
    }
    if (r < 2 * rem) {
        if (r % 2)
            coll_sched_send(s, rbuf, cnt, dt, grp_peer(g, r - 1));
        else
            coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, r + 1));
    }
    coll_sched_fence(s);
}
