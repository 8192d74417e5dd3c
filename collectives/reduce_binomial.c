/*
 * Reduce over a binomial tree: in step k, ranks with bit k set send their
 * partial result to the rank 2^k below and drop out; the others receive
 * and combine. log2(p) steps of the whole vector: log2(p) (alpha + n beta +
 * n gamma), best for short vectors (Rabenseifner's reduce-scatter + gather
 * wins for long ones).
 *
 * Commutative operations use a tree rooted at the root (ranks relative to
 * it). Otherwise the tree is rooted at rank 0 over the real ranks, where
 * every partial result covers a contiguous run of ranks and is combined
 * lower op higher, which is MPI's canonical order; rank 0 then sends the
 * result to the root: one extra message.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/op.h"

int coll_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    int tree_root = op->commute ? root : 0;
    int vr = (r - tree_root + n) % n;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    int rc = 0;

    /* Leaves (odd relative ranks, or a lone rank) combine nothing. */
    int has_child = (vr % 2 == 0) && vr + 1 < n;
    if (!has_child) {
        if (r == tree_root)
            return sbuf == MPI_IN_PLACE ? 0 : coll_copy(sbuf, count, dt, rbuf, count, dt);
        int parent = ((vr & (vr - 1)) + tree_root) % n;   /* clears the lowest set bit */
        rc = coll_send(mine, count, dt, parent, COLL_TAG_REDUCE, comm);
        if (rc == 0 && r == root)   /* non-commutative, root != 0: the result comes from 0 */
            rc = coll_recv(rbuf, count, dt, 0, COLL_TAG_REDUCE, comm);
        return rc;
    }

    /* The partial result lives in acc, data from a child arrives in in. */
    void *raw_a = NULL, *raw_b = NULL, *acc, *in;
    in = coll_tmp_alloc(count, dt, &raw_b);
    acc = r == root ? rbuf : coll_tmp_alloc(count, dt, &raw_a);
    if (count && (!in || !acc)) {
        rc = CORE_ENOMEM;
        goto out;
    }
    if ((rc = coll_copy(mine, count, dt, acc, count, dt)))
        goto out;

    int mask;
    for (mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            int parent = (vr - mask + tree_root) % n;
            rc = coll_send(acc, count, dt, parent, COLL_TAG_REDUCE, comm);
            break;
        }
        if (vr + mask >= n)
            continue;
        int child = (vr + mask + tree_root) % n;
        if ((rc = coll_recv(in, count, dt, child, COLL_TAG_REDUCE, comm)))
            goto out;
        if (op->commute) {
            rc = core_op_apply(op, in, acc, count, dt);
        } else {
            /* The child's ranks are above ours: in = acc op in, then swap. */
            rc = core_op_apply(op, acc, in, count, dt);
            void *t = acc;
            acc = in;
            in = t;
        }
        if (rc)
            goto out;
    }
    if (rc)
        goto out;
    if (r == tree_root && r == root) {
        if (acc != rbuf)
            rc = coll_copy(acc, count, dt, rbuf, count, dt);
    } else if (r == tree_root) {
        rc = coll_send(acc, count, dt, root, COLL_TAG_REDUCE, comm);
    } else if (r == root) {
        rc = coll_recv(rbuf, count, dt, tree_root, COLL_TAG_REDUCE, comm);
    }
out:
    free(raw_a);
    free(raw_b);
    return rc;
}
