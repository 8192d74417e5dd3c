/*
 * Reduce-scatter by recursive halving (halving.c): log2(p) steps, each
 * halving the part of the vector a rank still reduces, so (p-1)/p n bytes
 * move per rank in log2(p) alpha: the choice for short and medium vectors,
 * and for operations that do not commute at any size (every partial result
 * covers a contiguous run of ranks, combined lower op higher).
 *
 * Recursive halving leaves power-of-two group member m with the chunk at
 * position bitreverse(m), so the vector is laid out in scratch with the
 * blocks of member m at that position (member m stands for ranks 2m and
 * 2m + 1 after a non-power-of-two fold-in, else for rank m + rem); the odd
 * rank of a folded pair finally hands its partner its block.
 */
#include "collectives/coll_impl.h"

static int bitrev(int v, int bits)
{
    int r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
}

void coll_reduce_scatter_halving(coll_sched_t *s, const coll_grp_t *g, const void *sbuf,
                                 void *rbuf, const int *counts, MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me;
    const char *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    MPI_Aint ext = dt->extent;
    int pof2 = coll_pof2(n), rem = n - pof2, nsteps = coll_log2(pof2), lo = 0, hi = 0;
    /* boff: block offsets in the user's vector; disps: positions in scratch. */
    int *ints = coll_sched_alloc(s, sizeof(int) * ((size_t)n + 1 + (size_t)pof2 + 1 +
                                              2 * (size_t)nsteps + 1));
    if (!ints)
        return;
    int *boff = ints, *disps = boff + n + 1, *los = disps + pof2 + 1, *his = los + nsteps;
    boff[0] = 0;
    for (int i = 0; i < n; i++)
        boff[i + 1] = boff[i] + counts[i];
    int total = boff[n];
    if (total == 0) {
        coll_sched_fence(s);
        return;
    }
    if (n == 1) {
        if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, (size_t)counts[0], dt, rbuf, (size_t)counts[0], dt);
        coll_sched_fence(s);
        return;
    }
    char *cur = coll_sched_tmp(s, (size_t)total, dt), *other = coll_sched_tmp(s, (size_t)total, dt);
    if (!cur || !other)
        return;
    /* Position p holds the blocks of member m = bitrev(p): ranks [first, last). */
    int off = 0;
    for (int p = 0; p < pof2; p++) {
        int m = bitrev(p, nsteps);
        int first = m < rem ? 2 * m : m + rem, last = m < rem ? 2 * m + 2 : m + rem + 1;
        disps[p] = off;
        for (int j = first; j < last; j++) {
            coll_sched_copy(s, src + (MPI_Aint)boff[j] * ext, (size_t)counts[j], dt,
                            cur + (MPI_Aint)off * ext, (size_t)counts[j], dt);
            off += counts[j];
        }
    }
    disps[pof2] = off;

    void *c = cur, *o = other;
    int newrank = coll_fold_in(s, g, c, o, total, dt, op);
    if (newrank >= 0) {
        coll_rs_halving(s, g, &c, &o, disps, dt, op, newrank, pof2, NULL, &lo, &hi, los, his);
        char *mine = (char *)c + (MPI_Aint)disps[lo] * ext;
        if (newrank < rem) {
            /* Ranks r - 1 and r: r - 1's block comes first. */
            coll_sched_copy(s, mine + (MPI_Aint)counts[r - 1] * ext, (size_t)counts[r], dt, rbuf,
                            (size_t)counts[r], dt);
            coll_sched_send(s, mine, (size_t)counts[r - 1], dt, grp_peer(g, r - 1));
        } else {
            coll_sched_copy(s, mine, (size_t)counts[r], dt, rbuf, (size_t)counts[r], dt);
        }
    } else {
        coll_sched_recv(s, rbuf, (size_t)counts[r], dt, grp_peer(g, r + 1));
    }
    coll_sched_fence(s);
}
