/*
 * Linear broadcast: the root sends the whole message to every other rank at
 * once, each of which receives it straight into its buffer. (p-1) (alpha +
 * n beta) at the root on a network; on one node's shared memory a long
 * message is pulled by each receiver from the root's buffer (single copy),
 * so the copies run in parallel and no rank forwards anything.
 *
 * Why it exists: when a node's ranks outnumber its cores, a rank that
 * waits yields its core or sleeps, and every level of a tree (or every
 * step of scatter + allgather) must wait for a descheduled rank to run
 * again before the data moves on. Here every receiver depends on the root
 * alone: one wake-up on the critical path instead of one per level.
 */
#include "collectives/coll_impl.h"

void coll_bcast_linear(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                       MPI_Datatype dt, int root)
{
    int n = g->n, r = g->me;
    if (n == 1 || count == 0 || dt->size == 0)
        return;
    if (r != root) {
        coll_sched_recv(s, buf, (size_t)count, dt, grp_peer(g, root));
        coll_sched_fence(s);
        return;
    }
    /* Nearest ranks first (root + 1, root + 2, ...), as the tree would. */
    for (int i = 1; i < n; i++)
        coll_sched_send(s, buf, (size_t)count, dt, grp_peer(g, (root + i) % n));
    coll_sched_fence(s);
}
