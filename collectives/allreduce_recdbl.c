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
#include <stdlib.h>
#include "collectives/coll_impl.h"
#include "core/op.h"

int coll_allreduce_recdbl(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm)
{
    int n = comm->size, r = comm->rank;
    int rc = 0;
    if (sbuf != MPI_IN_PLACE && (rc = coll_copy(sbuf, count, dt, rbuf, count, dt)))
        return rc;
    if (n == 1 || count == 0)
        return 0;

    void *raw;
    void *tmp = coll_tmp_alloc(count, dt, &raw);
    if (!tmp)
        return CORE_ENOMEM;
    int pof2 = coll_pof2(n), rem = n - pof2, newrank;
    void *cur = rbuf;
    rc = coll_fold_in(cur, tmp, count, dt, op, COLL_TAG_ALLREDUCE, comm, &newrank);
    if (rc)
        goto out;

    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int dst = coll_fold_real(newrank ^ mask, rem);
        rc = coll_sendrecv(cur, count, dt, dst, tmp, count, dt, dst, COLL_TAG_ALLREDUCE, comm);
        if (rc)
            goto out;
        if (dst > r) {
            /* tmp = mine op theirs, and tmp becomes the current vector. */
            rc = core_op_apply(op, cur, tmp, count, dt);
            void *t = cur;
            cur = tmp;
            tmp = t;
        } else {
            rc = core_op_apply(op, tmp, cur, count, dt);
        }
        if (rc)
            goto out;
    }
    if (cur != rbuf && (rc = coll_copy(cur, count, dt, rbuf, count, dt)))
        goto out;

    /* Fold out: the odd partner hands the result to the rank that sat out. */
    if (r < 2 * rem) {
        if (r % 2)
            rc = coll_send(rbuf, count, dt, r - 1, COLL_TAG_ALLREDUCE, comm);
        else
            rc = coll_recv(rbuf, count, dt, r + 1, COLL_TAG_ALLREDUCE, comm);
    }
out:
    free(raw);
    return rc;
}
