/*
 * Allgather(v) after Bruck: each rank keeps its blocks in a packed buffer
 * starting with its own (slot j holds rank r + j's block); in step k it
 * sends its first min(2^k, p - 2^k) slots to rank r - 2^k and appends the
 * same number from rank r + 2^k. ceil(log2(p)) alpha + (p-1)/p n beta for
 * any p, at the price of one packed copy and a final unpack (a rotation):
 * the choice for small totals on non-power-of-two communicators.
 */
#include "collectives/coll_impl.h"

void coll_allgather_bruck(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                          MPI_Datatype sdt, const coll_layout_t *rl)
{
    int n = g->n, r = g->me;
    int inplace = sbuf == MPI_IN_PLACE;
    /* off[j]: offset of slot j (rank (r + j) % n's block). */
    size_t *off = coll_sched_alloc(s, sizeof(size_t) * ((size_t)n + 1));
    if (!off)
        return;
    off[0] = 0;
    for (int j = 0; j < n; j++)
        off[j + 1] = off[j] + lay_bytes(rl, (r + j) % n);
    char *tmp = coll_sched_alloc(s, off[n] + 1);
    if (!tmp)
        return;
    if (inplace)
        coll_sched_copy(s, lay_ptr(rl, r), (size_t)lay_count(rl, r), lay_dt(rl, r), tmp, off[1],
                        MPI_BYTE);
    else
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, tmp, off[1], MPI_BYTE);

    for (int pof = 1; pof < n; pof <<= 1) {
        int cnt = n - pof < pof ? n - pof : pof;
        coll_sched_send(s, tmp, off[cnt], MPI_BYTE, grp_peer(g, (r - pof + n) % n));
        coll_sched_recv(s, tmp + off[pof], off[pof + cnt] - off[pof], MPI_BYTE,
                        grp_peer(g, (r + pof) % n));
        coll_sched_fence(s);
    }
    for (int j = 1; j < n; j++) {
        int i = (r + j) % n;
        coll_sched_copy(s, tmp + off[j], off[j + 1] - off[j], MPI_BYTE, lay_ptr(rl, i),
                        (size_t)lay_count(rl, i), lay_dt(rl, i));
    }
    if (!inplace)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, r), (size_t)lay_count(rl, r),
                        lay_dt(rl, r));
    coll_sched_fence(s);
}
