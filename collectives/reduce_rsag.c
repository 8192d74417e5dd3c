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
#include "collectives/coll_impl.h"

/* Gather mirroring the halving steps toward group rank newroot: in step k
 * (from the last back) the partner whose bit k differs from newroot's
 * sends its chunks [lo, hi) and is done. Returns 1 if this rank sent. */
static int gather_halves(coll_sched_t *s, const coll_grp_t *g, char *buf, const int *disps,
                         MPI_Datatype dt, int newrank, int newroot, int rem, int lo, int hi,
                         const int *los, const int *his, int nsteps)
{
    MPI_Aint ext = dt->extent;
    for (int k = nsteps - 1; k >= 0; k--) {
        int mask = 1 << k, dst = grp_peer(g, coll_fold_real(newrank ^ mask, rem));
        if ((newrank & mask) != (newroot & mask)) {
            coll_sched_send(s, buf + (MPI_Aint)disps[lo] * ext, (size_t)(disps[hi] - disps[lo]), dt,
                            dst);
            coll_sched_fence(s);
            return 1;
        }
        int plo = lo == los[k] ? hi : los[k];
        int phi = lo == los[k] ? his[k] : lo;
        coll_sched_recv(s, buf + (MPI_Aint)disps[plo] * ext, (size_t)(disps[phi] - disps[plo]), dt,
                        dst);
        coll_sched_fence(s);
        lo = los[k];
        hi = his[k];
    }
    return 0;
}

void coll_reduce_rsag(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                      int count, MPI_Datatype dt, MPI_Op op, int root)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    if (n == 1 || count == 0) {
        if (sbuf != MPI_IN_PLACE && r == root)
            coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
        coll_sched_fence(s);
        return;
    }
    int pof2 = coll_pof2(n), rem = n - pof2, nsteps = coll_log2(pof2), lo = 0, hi = 0;
    /* The group rank that ends with the result, and the real rank holding it. */
    int holder = root < 2 * rem ? (root | 1) : root;
    int newroot = root < 2 * rem ? root / 2 : root - rem;

    void *cur = coll_sched_tmp(s, cnt, dt), *other = coll_sched_tmp(s, cnt, dt), *ro = NULL;
    int *ints = coll_sched_alloc(s, sizeof(int) * (2 * (size_t)pof2 + 1 + 2 * (size_t)nsteps));
    if (!ints || !cur || !other)
        return;
    int *cnts = ints, *disps = ints + pof2, *los = disps + pof2 + 1, *his = los + nsteps;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (r >= 2 * rem && coll_op_symmetric(op)) {
        /* Not in the fold: the first halving step reads the input where it is. */
        ro = cur;
        cur = (void *)mine;
    } else {
        coll_sched_copy(s, mine, cnt, dt, cur, cnt, dt);
    }
    int newrank = coll_fold_in(s, g, cur, other, count, dt, op);
    if (newrank >= 0) {
        coll_split(count, pof2, cnts, disps);
        coll_rs_halving(s, g, &cur, &other, disps, dt, op, newrank, pof2, ro, &lo, &hi, los,
                        his);
        if (gather_halves(s, g, cur, disps, dt, newrank, newroot, rem, lo, hi, los, his, nsteps))
            return;
        if (newrank != newroot)
            return;
        if (r == root)
            coll_sched_copy(s, cur, cnt, dt, rbuf, cnt, dt);
        else
            coll_sched_send(s, cur, cnt, dt, grp_peer(g, root));
    } else if (r == root) {
        coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, holder));
    }
    coll_sched_fence(s);
}
