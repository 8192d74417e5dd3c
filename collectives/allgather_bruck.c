/*
 * Allgather(v) after Bruck: each rank keeps its blocks in a packed buffer
 * starting with its own (slot j holds rank r + j's block); in step k it
 * sends its first min(2^k, p - 2^k) slots to rank r - 2^k and appends the
 * same number from rank r + 2^k. ceil(log2(p)) alpha + (p-1)/p n beta for
 * any p, at the price of one packed copy and a final unpack (a rotation):
 * the choice for small totals on non-power-of-two communicators.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

int coll_allgather_bruck(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                         MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc = 0;
    int inplace = sbuf == MPI_IN_PLACE;
    /* off[j]: offset of slot j (rank (r + j) % n's block). */
    size_t *off = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (!off)
        return CORE_ENOMEM;
    off[0] = 0;
    for (int j = 0; j < n; j++)
        off[j + 1] = off[j] + lay_bytes(rl, (r + j) % n);
    char *tmp = malloc(off[n] + 1);
    if (!tmp) {
        rc = CORE_ENOMEM;
        goto out;
    }
    if (inplace)
        coll_pack(tmp, lay_ptr(rl, r), (size_t)lay_count(rl, r), rl->dt);
    else
        coll_pack(tmp, sbuf, (size_t)scount, sdt);

    for (int pof = 1; pof < n; pof <<= 1) {
        int cnt = n - pof < pof ? n - pof : pof;
        rc = coll_sendrecv(tmp, off[cnt], MPI_BYTE, (r - pof + n) % n, tmp + off[pof],
                           off[pof + cnt] - off[pof], MPI_BYTE, (r + pof) % n, COLL_TAG_ALLGATHER,
                           comm);
        if (rc)
            goto out;
    }
    for (int j = 1; j < n; j++) {
        int i = (r + j) % n;
        coll_unpack(lay_ptr(rl, i), (size_t)lay_count(rl, i), rl->dt, tmp + off[j]);
    }
    if (!inplace)
        rc = coll_copy(sbuf, scount, sdt, lay_ptr(rl, r), lay_count(rl, r), rl->dt);
out:
    free(tmp);
    free(off);
    return rc;
}
