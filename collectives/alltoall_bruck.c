/*
 * Alltoall after Bruck: the blocks are packed rotated (slot j holds the
 * block for rank r + j); in step k every slot with bit k set travels 2^k
 * ranks forward, all of them in one message; finally slot j holds the block
 * from rank r - j. ceil(log2(p)) alpha + about n/2 log2(p) beta plus the
 * packing: the fewest messages, so the choice for tiny blocks on many
 * ranks. Uniform block sizes only (alltoall, not alltoallv). MPI_IN_PLACE
 * needs no scratch copy: every block is packed before any is written.
 */
#include <stdlib.h>
#include <string.h>
#include "collectives/coll_impl.h"

int coll_alltoall_bruck(const coll_layout_t *sl, const coll_layout_t *rl, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc = 0;
    size_t blk = lay_bytes(rl, 0);
    const coll_layout_t *src = sl->buf == MPI_IN_PLACE ? rl : sl;
    /* tmp: the n slots; xfer: up to n/2 + 1 slots going out, the same coming in. */
    size_t half = (size_t)n / 2 + 1;
    char *tmp = malloc(blk * ((size_t)n + 2 * half) + 1);
    if (!tmp)
        return CORE_ENOMEM;
    char *sendb = tmp + blk * (size_t)n, *recvb = sendb + blk * half;

    for (int j = 0; j < n; j++) {
        int d = (r + j) % n;
        coll_pack(tmp + (size_t)j * blk, lay_ptr(src, d), (size_t)lay_count(src, d), src->dt);
    }
    for (int pof = 1; pof < n && blk > 0; pof <<= 1) {
        size_t k = 0;
        for (int j = pof; j < n; j++)
            if (j & pof)
                memcpy(sendb + blk * k++, tmp + (size_t)j * blk, blk);
        rc = coll_sendrecv(sendb, k * blk, MPI_BYTE, (r + pof) % n, recvb, k * blk, MPI_BYTE,
                           (r - pof + n) % n, COLL_TAG_ALLTOALL, comm);
        if (rc)
            goto out;
        k = 0;
        for (int j = pof; j < n; j++)
            if (j & pof)
                memcpy(tmp + (size_t)j * blk, recvb + blk * k++, blk);
    }
    for (int j = 0; j < n; j++) {
        int s = (r - j + n) % n;
        coll_unpack(lay_ptr(rl, s), (size_t)lay_count(rl, s), rl->dt, tmp + (size_t)j * blk);
    }
out:
    free(tmp);
    return rc;
}
