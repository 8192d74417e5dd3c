/*
 * Allreduce by recursive doubling. In step k each rank exchanges its whole
 * partial vector with the rank 2^k away and combines: log2(p) steps of n
 * bytes, so the cost is log2(p) * (alpha + n * beta + n * gamma). Best for
 * short vectors, where latency dominates; the extra bandwidth hurts above a
 * few kilobytes (Rabenseifner or ring win there).
 *
 * Non-power-of-two sizes fold in first (coll_fold_in) and the sat-out ranks
 * get the result back at the end: two extra steps.
 *
 * Both partners of a step compute lower op higher from the same two
 * operands, so every rank ends with bitwise the same result, and user
 * operations that do not commute get MPI's canonical order.
 */
#include "collectives/coll_impl.h"

void coll_allreduce_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op)
{
    int n = g->n, r = g->me;
    size_t cnt = (size_t)count;
    int pof2 = coll_pof2(n), rem = n - pof2;
    /* Outside the fold, the first step sends the send buffer where it is and
     * receives into rbuf: rbuf = mine op theirs (bitwise the partner's
     * theirs op mine, for operations coll_op_symmetric accepts). */
    int direct = sbuf != MPI_IN_PLACE && n > 1 && count > 0 && r >= 2 * rem &&
                 coll_op_symmetric(op);
    if (sbuf != MPI_IN_PLACE && !direct)
        coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
    if (n == 1 || count == 0) {
        coll_sched_fence(s);
        return;
    }
    void *tmp = coll_sched_tmp(s, cnt, dt);
    void *cur = rbuf;
    int newrank = coll_fold_in(s, g, cur, tmp, count, dt, op);
    /* On 2 ranks of a node, mid-sized vectors cross in eager chunks (coll_reduce2_chunks up
     * to COLL_ALLREDUCE2_MAX; the messages of coll_fast2_allreduce). */
    size_t chunks = cnt * dt->size <= COLL_ALLREDUCE2_MAX
                        ? coll_reduce2_chunks(coll_sched_comm(s), g, cnt * dt->size, op)
                        : 0;

    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int dst = coll_fold_real(newrank ^ mask, rem);
        if (direct) {
            coll_reduce2_send(s, sbuf, cnt, dt, grp_peer(g, dst), chunks);
            coll_reduce2_recv(s, rbuf, cnt, dt, grp_peer(g, dst), chunks);
            coll_sched_reduce(s, sbuf, rbuf, cnt, dt, op);
            direct = 0;
            continue;
        }
        coll_reduce2_send(s, cur, cnt, dt, grp_peer(g, dst), chunks);
        coll_reduce2_recv(s, tmp, cnt, dt, grp_peer(g, dst), chunks);
        if (dst > r) {
            /* tmp = mine op theirs, and tmp becomes the current vector. */
            coll_sched_reduce(s, cur, tmp, cnt, dt, op);
            void *t = cur;
            cur = tmp;
            tmp = t;
        } else {
            coll_sched_reduce(s, tmp, cur, cnt, dt, op);
        }
    }
    if (cur != rbuf)
        coll_sched_copy(s, cur, cnt, dt, rbuf, cnt, dt);

    /* Fold out: the odd partner hands the result to the rank that sat out. */
    if (r < 2 * rem) {
        if (r % 2)
            coll_sched_send(s, rbuf, cnt, dt, grp_peer(g, r - 1));
        else
            coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, r + 1));
    }
    coll_sched_fence(s);
}
