/*
 * Allgather(v) by direct exchange: every rank sends its block to each of
 * the others and receives theirs straight into place, all at once. (p-1)
 * alpha + (p-1)/p n beta per rank and p(p-1) messages: for a few ranks.
 *
 * Why: where one node's ranks outnumber its cores, a waiting rank gives
 * its core away, and each step of recursive doubling, Bruck or the ring
 * waits for a particular rank to run again (and forward what it got).
 * Here nobody forwards: once every rank has run once, all blocks are on
 * their way, and the last rank to arrive finds the others' waiting.
 */
#include "collectives/coll_impl.h"

void coll_allgather_linear(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, const coll_layout_t *rl)
{
    int n = g->n, r = g->me, inplace = sbuf == MPI_IN_PLACE;
    for (int i = 1; i < n; i++) {
        int from = (r + i) % n;
        coll_sched_recv(s, lay_ptr(rl, from), (size_t)lay_count(rl, from), lay_dt(rl, from),
                        grp_peer(g, from));
    }
    for (int i = 1; i < n; i++) {
        int to = grp_peer(g, (r - i + n) % n);
        if (inplace)
            coll_sched_send(s, lay_ptr(rl, r), (size_t)lay_count(rl, r), lay_dt(rl, r), to);
        else
            coll_sched_send(s, sbuf, (size_t)scount, sdt, to);
    }
    if (!inplace)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, r), (size_t)lay_count(rl, r),
                        lay_dt(rl, r));
    coll_sched_fence(s);
}
