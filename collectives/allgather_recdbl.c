/*
 * Allgather(v) by recursive doubling: in step k each rank swaps everything
 * it has with the rank 2^k away, doubling its data. log2(p) alpha +
 * (p-1)/p n beta: the best latency, for small and medium totals on a
 * power-of-two communicator.
 *
 * Other sizes fold: of the first 2 (p - pof2) ranks, each odd rank gives
 * its block to the even rank below, which stands for both, and gets the
 * whole result back at the end (two extra steps). A group of consecutive
 * group ranks then always holds a consecutive run of blocks.
 *
 * Allgather works in the user's buffer; allgatherv, whose blocks lie
 * anywhere, works in a packed buffer in rank order and unpacks at the end.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

typedef struct runs {
    const coll_layout_t *rl;
    char *tmp;          /* packed blocks (v form), NULL when working in place */
    size_t *off;        /* off[i]: block i's offset in tmp; off[n] = total */
    int rem;
} runs_t;

/* The first block held by group rank g. */
static int first_block(const runs_t *u, int g)
{
    return g < u->rem ? 2 * g : g + u->rem;
}

/* Blocks [a, b) as a buffer, count and datatype to send or receive. */
static void run(const runs_t *u, int a, int b, void **p, size_t *cnt, MPI_Datatype *dt)
{
    if (u->tmp) {
        *p = u->tmp + u->off[a];
        *cnt = u->off[b] - u->off[a];
        *dt = MPI_BYTE;
    } else {
        *p = lay_ptr(u->rl, a);
        *cnt = (size_t)(b - a) * (size_t)u->rl->count;
        *dt = u->rl->dt;
    }
}

static int xchg(const runs_t *u, int sa, int sb, int peer_send, int ra, int rb, int peer_recv,
                MPI_Comm comm)
{
    void *sp = NULL, *rp = NULL;
    size_t sc = 0, rc = 0;
    MPI_Datatype sdt = MPI_BYTE, rdt = MPI_BYTE;
    if (peer_send >= 0)
        run(u, sa, sb, &sp, &sc, &sdt);
    if (peer_recv >= 0)
        run(u, ra, rb, &rp, &rc, &rdt);
    if (peer_send >= 0 && peer_recv >= 0)
        return coll_sendrecv(sp, sc, sdt, peer_send, rp, rc, rdt, peer_recv, COLL_TAG_ALLGATHER,
                             comm);
    if (peer_send >= 0)
        return coll_send(sp, sc, sdt, peer_send, COLL_TAG_ALLGATHER, comm);
    return coll_recv(rp, rc, rdt, peer_recv, COLL_TAG_ALLGATHER, comm);
}

static int doubling(const runs_t *u, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rem = u->rem, pof2 = n - rem, rc;
    int newrank = r < 2 * rem ? (r % 2 ? -1 : r / 2) : r - rem;
    if (r < 2 * rem && (r % 2))
        rc = xchg(u, r, r + 1, r - 1, 0, 0, -1, comm);
    else if (r < 2 * rem)
        rc = xchg(u, 0, 0, -1, r + 1, r + 2, r + 1, comm);
    else
        rc = 0;
    for (int mask = 1; !rc && newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = newdst < rem ? 2 * newdst : newdst + rem;
        int g = newrank & ~(mask - 1), gd = newdst & ~(mask - 1);
        rc = xchg(u, first_block(u, g), first_block(u, g + mask), dst, first_block(u, gd),
                  first_block(u, gd + mask), dst, comm);
    }
    if (!rc && r < 2 * rem)
        rc = (r % 2) ? xchg(u, 0, 0, -1, 0, n, r - 1, comm) : xchg(u, 0, n, r + 1, 0, 0, -1, comm);
    return rc;
}

int coll_allgather_recdbl(const void *sbuf, int scount, MPI_Datatype sdt, const coll_layout_t *rl,
                          MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, rc = 0;
    int inplace = sbuf == MPI_IN_PLACE;
    runs_t u = { rl, NULL, NULL, n - coll_pof2(n) };
    if (!rl->counts && !rl->displs) {
        if (!inplace && (rc = coll_copy(sbuf, scount, sdt, lay_ptr(rl, r), rl->count, rl->dt)))
            return rc;
        return doubling(&u, comm);
    }

    if (!(u.off = malloc(sizeof(size_t) * ((size_t)n + 1))))
        return CORE_ENOMEM;
    u.off[0] = 0;
    for (int i = 0; i < n; i++)
        u.off[i + 1] = u.off[i] + lay_bytes(rl, i);
    if (!(u.tmp = malloc(u.off[n] + 1))) {
        rc = CORE_ENOMEM;
        goto out;
    }
    if (inplace)
        coll_pack(u.tmp + u.off[r], lay_ptr(rl, r), (size_t)lay_count(rl, r), rl->dt);
    else
        coll_pack(u.tmp + u.off[r], sbuf, (size_t)scount, sdt);
    if ((rc = doubling(&u, comm)))
        goto out;
    for (int i = 0; i < n; i++)
        if (i != r)
            coll_unpack(lay_ptr(rl, i), (size_t)lay_count(rl, i), rl->dt, u.tmp + u.off[i]);
    if (!inplace)
        rc = coll_copy(sbuf, scount, sdt, lay_ptr(rl, r), lay_count(rl, r), rl->dt);
out:
    free(u.tmp);
    free(u.off);
    return rc;
}
