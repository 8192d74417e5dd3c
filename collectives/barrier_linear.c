/*
 * Barrier through one rank (member 0): every other rank signals it and
 * waits for its release, which it sends once it has heard from all.
 * 2 (p-1) messages through one rank, a hot spot on a network; the choice
 * where the ranks of one node outnumber its cores.
 *
 * Why: a rank that waits there has given its core away (it yields or
 * sleeps), and each round of dissemination waits for a particular rank to
 * run again. Here the last rank to arrive and member 0 are the only ones on
 * the critical path, and member 0 leaves first: the rank that sends first
 * in a collective after the barrier (the root of a broadcast from rank 0)
 * is already on its way while the others are being woken.
 */
#include "collectives/coll_impl.h"

void coll_barrier_linear(coll_sched_t *s, const coll_grp_t *g)
{
    int n = g->n;
    if (n == 1)
        return;
    if (g->me != 0) {
        coll_sched_send(s, NULL, 0, MPI_BYTE, grp_peer(g, 0));
        coll_sched_recv(s, NULL, 0, MPI_BYTE, grp_peer(g, 0));
        coll_sched_fence(s);
        return;
    }
    for (int i = 1; i < n; i++)
        coll_sched_recv(s, NULL, 0, MPI_BYTE, grp_peer(g, i));
    coll_sched_fence(s);
    for (int i = 1; i < n; i++)
        coll_sched_send(s, NULL, 0, MPI_BYTE, grp_peer(g, i));
    coll_sched_fence(s);
}
