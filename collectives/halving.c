/*
 * The pieces the power-of-two reduction algorithms share: folding a
 * non-power-of-two group into a power-of-two one, splitting a vector in
 * chunks, and recursive-halving reduce-scatter (the first half of
 * Rabenseifner's allreduce and reduce, and reduce_scatter).
 *
 * Order: every combination puts the lower ranks' partial result first
 * (a reduce step computes inout = in op inout with in from the lower
 * ranks), and every partial result covers a contiguous run of ranks, so user
 * operations that do not commute still see MPI's canonical order
 * r0 op r1 op ... .
 */
#include "collectives/coll_impl.h"

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

int coll_fold_in(coll_sched_t *s, const coll_grp_t *g, void *cur, void *tmp, int count,
                 MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me;
    int rem = n - coll_pof2(n);
    if (r >= 2 * rem)
        return r - rem;
    if (r % 2 == 0) {
        coll_sched_send(s, cur, (size_t)count, dt, grp_peer(g, r + 1));
        coll_sched_fence(s);
        return -1;
    }
    coll_sched_recv(s, tmp, (size_t)count, dt, grp_peer(g, r - 1));
    coll_sched_fence(s);
    coll_sched_reduce(s, tmp, cur, (size_t)count, dt, op);
    return r / 2;
}

void coll_rs_halving(coll_sched_t *s, const coll_grp_t *g, void **cur, void **other,
                     const int *disps, MPI_Datatype dt, MPI_Op op, int newrank, int pof2,
                     void *ro, int *lo, int *hi, int *los, int *his)
{
    MPI_Aint ext = dt->extent;
    int rem = g->n - pof2;
    int l = 0, h = pof2, step = 0;
    for (int mask = 1; mask < pof2; mask <<= 1, step++) {
        int newdst = newrank ^ mask, dst = grp_peer(g, coll_fold_real(newdst, rem));
        int mid = (l + h) / 2, lower = newrank < newdst;
        int keep_lo = lower ? l : mid, keep_hi = lower ? mid : h;
        int send_lo = lower ? mid : l, send_hi = lower ? h : mid;
        los[step] = l;
        his[step] = h;
        char *c = *cur, *o = *other;
        size_t nkeep = (size_t)(disps[keep_hi] - disps[keep_lo]);
        MPI_Aint koff = (MPI_Aint)disps[keep_lo] * ext;
        coll_sched_send(s, c + (MPI_Aint)disps[send_lo] * ext,
                        (size_t)(disps[send_hi] - disps[send_lo]), dt, dst);
        coll_sched_recv(s, o + koff, nkeep, dt, dst);
        coll_sched_fence(s);
        if (lower || ro) {
            /* other = mine op theirs; then other holds the partial result
             * (also the higher rank's when *cur may not be written: the
             * operation commutes bit for bit, and ro takes its place). */
            coll_sched_reduce(s, c + koff, o + koff, nkeep, dt, op);
            void *t = *cur;
            *cur = *other;
            *other = ro ? ro : t;
        } else {
            coll_sched_reduce(s, o + koff, c + koff, nkeep, dt, op);
        }
        l = keep_lo;
        h = keep_hi;
        ro = NULL;
    }
    *lo = l;
    *hi = h;
}
