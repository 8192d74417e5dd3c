/*
 * Alltoall after Bruck: the blocks are packed rotated (slot j holds the
 * block for rank r + j); in step k every slot with bit k set travels 2^k
 * ranks forward, all of them in one message; finally slot j holds the block
 * from rank r - j. ceil(log2(p)) alpha + about n/2 log2(p) beta plus the
 * packing: the fewest messages, so the choice for tiny blocks on many
 * ranks. Uniform block sizes only (alltoall, not alltoallv). MPI_IN_PLACE
 * needs no scratch copy: every block is packed before any is written.
 */
#include <string.h>
#include "collectives/coll_impl.h"

typedef struct bruck {
    char *tmp, *xfer;    /* the n slots; the slots of one step, packed */
    size_t blk;
    int n, pof;
    int out;             /* 1: gather the slots to xfer; 0: scatter xfer to the slots */
} bruck_t;

/* Moves the slots with bit pof set between tmp and xfer (a local step). */
static int shuffle(void *arg)
{
    const bruck_t *b = arg;
    size_t k = 0;
    for (int j = b->pof; j < b->n; j++) {
        if (!(j & b->pof))
            continue;
        char *slot = b->tmp + (size_t)j * b->blk, *x = b->xfer + b->blk * k++;
        if (b->out)
            memcpy(x, slot, b->blk);
        else
            memcpy(slot, x, b->blk);
    }
    return 0;
}

void coll_alltoall_bruck(coll_sched_t *s, const coll_grp_t *g, const coll_layout_t *sl,
                         const coll_layout_t *rl)
{
    int n = g->n, r = g->me;
    size_t blk = lay_bytes(rl, 0);
    const coll_layout_t *src = sl->buf == MPI_IN_PLACE ? rl : sl;
    /* tmp: the n slots; sendb/recvb: up to n/2 + 1 slots going out and coming in. */
    size_t half = (size_t)n / 2 + 1;
    char *tmp = coll_sched_alloc(s, blk * ((size_t)n + 2 * half) + 1);
    int nsteps = coll_log2(coll_pof2(n) < n ? coll_pof2(n) * 2 : n);
    bruck_t *sh = coll_sched_alloc(s, sizeof(bruck_t) * 2 * ((size_t)nsteps + 1));
    if (!tmp || !sh)
        return;
    char *sendb = tmp + blk * (size_t)n, *recvb = sendb + blk * half;

    for (int j = 0; j < n; j++) {
        int d = (r + j) % n;
        coll_sched_copy(s, lay_ptr(src, d), (size_t)lay_count(src, d), lay_dt(src, d),
                        tmp + (size_t)j * blk, blk, MPI_BYTE);
    }
    for (int pof = 1; pof < n && blk > 0; pof <<= 1, sh += 2) {
        size_t k = 0;
        for (int j = pof; j < n; j++)
            k += (j & pof) != 0;
        sh[0] = (bruck_t){ tmp, sendb, blk, n, pof, 1 };
        sh[1] = (bruck_t){ tmp, recvb, blk, n, pof, 0 };
        coll_sched_call(s, shuffle, &sh[0]);
        coll_sched_send(s, sendb, k * blk, MPI_BYTE, grp_peer(g, (r + pof) % n));
        coll_sched_recv(s, recvb, k * blk, MPI_BYTE, grp_peer(g, (r - pof + n) % n));
        coll_sched_fence(s);
        coll_sched_call(s, shuffle, &sh[1]);
    }
    for (int j = 0; j < n; j++) {
        int from = (r - j + n) % n;
        coll_sched_copy(s, tmp + (size_t)j * blk, blk, MPI_BYTE, lay_ptr(rl, from),
                        (size_t)lay_count(rl, from), lay_dt(rl, from));
    }
    coll_sched_fence(s);
}
