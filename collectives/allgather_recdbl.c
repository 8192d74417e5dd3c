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
#include "collectives/coll_impl.h"

typedef struct runs {
    const coll_layout_t *rl;
    char *tmp;          /* packed blocks (v form), NULL when working in place */
    size_t *off;        /* off[i]: block i's offset in tmp; off[n] = total */
    int rem;
    /* Not in place: the own block (block me) leaves from the send buffer the
     * first time, and is copied into place while that first message travels. */
    int me;
    const void *sbuf;
    size_t scount;
    MPI_Datatype sdt;
    int copied;
} runs_t;

/* The first block held by group rank gr. */
static int first_block(const runs_t *u, int gr)
{
    return gr < u->rem ? 2 * gr : gr + u->rem;
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

/* The own block's copy into place (into tmp for the v form). */
static void copy_own(coll_sched_t *s, runs_t *u)
{
    void *p;
    size_t c;
    MPI_Datatype dt;
    run(u, u->me, u->me + 1, &p, &c, &dt);
    coll_sched_copy(s, u->sbuf, u->scount, u->sdt, p, c, dt);
    u->copied = 1;
}

static void xchg(coll_sched_t *s, const coll_grp_t *g, runs_t *u, int sa, int sb,
                 int peer_send, int ra, int rb, int peer_recv)
{
    void *p;
    size_t c;
    MPI_Datatype dt;
    int own_first = !u->copied && u->sbuf;
    if (peer_send >= 0) {
        if (own_first && sa == u->me && sb == u->me + 1) {
            coll_sched_send(s, u->sbuf, u->scount, u->sdt, grp_peer(g, peer_send));
        } else {
            if (own_first)
                copy_own(s, u);
            run(u, sa, sb, &p, &c, &dt);
            coll_sched_send(s, p, c, dt, grp_peer(g, peer_send));
        }
    }
    if (peer_recv >= 0) {
        run(u, ra, rb, &p, &c, &dt);
        coll_sched_recv(s, p, c, dt, grp_peer(g, peer_recv));
    }
    if (!u->copied && u->sbuf)
        copy_own(s, u);
    coll_sched_fence(s);
}

static void doubling(coll_sched_t *s, const coll_grp_t *g, runs_t *u)
{
    int n = g->n, r = g->me, rem = u->rem, pof2 = n - rem;
    int newrank = r < 2 * rem ? (r % 2 ? -1 : r / 2) : r - rem;
    if (r < 2 * rem && (r % 2))
        xchg(s, g, u, r, r + 1, r - 1, 0, 0, -1);
    else if (r < 2 * rem)
        xchg(s, g, u, 0, 0, -1, r + 1, r + 2, r + 1);
    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = newdst < rem ? 2 * newdst : newdst + rem;
        int gr = newrank & ~(mask - 1), gd = newdst & ~(mask - 1);
        xchg(s, g, u, first_block(u, gr), first_block(u, gr + mask), dst, first_block(u, gd),
             first_block(u, gd + mask), dst);
    }
    if (r < 2 * rem) {
        if (r % 2)
            xchg(s, g, u, 0, 0, -1, 0, n, r - 1);
        else
            xchg(s, g, u, 0, n, r + 1, 0, 0, -1);
    }
}

void coll_allgather_recdbl(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, int scount,
                           MPI_Datatype sdt, const coll_layout_t *rl)
{
    int n = g->n, r = g->me;
    int inplace = sbuf == MPI_IN_PLACE;
    runs_t u = { rl, NULL, NULL, n - coll_pof2(n), r, inplace ? NULL : sbuf, (size_t)scount,
                 sdt, 0 };
    if (!rl->counts && !rl->displs && !rl->dts) {
        doubling(s, g, &u);
        if (!u.copied && !inplace)
            copy_own(s, &u);
        coll_sched_fence(s);
        return;
    }
    if (!(u.off = coll_sched_alloc(s, sizeof(size_t) * ((size_t)n + 1))))
        return;
    u.off[0] = 0;
    for (int i = 0; i < n; i++)
        u.off[i + 1] = u.off[i] + lay_bytes(rl, i);
    if (!(u.tmp = coll_sched_alloc(s, u.off[n] + 1)))
        return;
    if (inplace) {
        coll_sched_copy(s, lay_ptr(rl, r), (size_t)lay_count(rl, r), lay_dt(rl, r),
                        u.tmp + u.off[r], u.off[r + 1] - u.off[r], MPI_BYTE);
    }
    doubling(s, g, &u);
    if (!u.copied && !inplace)
        copy_own(s, &u);
    for (int i = 0; i < n; i++)
        if (i != r)
            coll_sched_copy(s, u.tmp + u.off[i], u.off[i + 1] - u.off[i], MPI_BYTE, lay_ptr(rl, i),
                            (size_t)lay_count(rl, i), lay_dt(rl, i));
    if (!inplace)
        coll_sched_copy(s, sbuf, (size_t)scount, sdt, lay_ptr(rl, r), (size_t)lay_count(rl, r),
                        lay_dt(rl, r));
    coll_sched_fence(s);
}
