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
#include "collectives/coll_impl.h"
#include "core/op.h"

size_t coll_reduce2_chunks(MPI_Comm comm, const coll_grp_t *g, size_t bytes, MPI_Op op)
{
    if (g->n != 2 || !op->commute || bytes <= COLL_REDUCE2_MIN || bytes > COLL_REDUCE2_MAX)
        return 0;
    /* The selector's view of the node layout (dispatch.c): known for the whole communicator
     * only, so a group's phases (two_level.c) send one message on both of its ranks. */
    int nodes = 0, shared = 0;
    if (!g->map && g->n == comm->size)
        coll_comm_nodes(comm, &nodes, &shared);
    return nodes == 1 ? (bytes + COLL_REDUCE2_CHUNK - 1) / COLL_REDUCE2_CHUNK : 0;
}

void coll_reduce2_send(coll_sched_t *s, const void *mine, size_t cnt, MPI_Datatype dt, int peer,
                       size_t chunks)
{
    if (!chunks) {
        coll_sched_send(s, mine, cnt, dt, peer);
        return;
    }
    size_t bytes = cnt * dt->size;
    const char *p = mine;
    if (!core_dt_is_contig(dt)) {
        char *packed = coll_sched_alloc(s, bytes);
        if (!packed)
            return;   /* the schedule has failed */
        coll_sched_copy(s, mine, cnt, dt, packed, bytes, MPI_BYTE);
        p = packed;
    }
    for (size_t off = 0; off < bytes; off += COLL_REDUCE2_CHUNK) {
        size_t len = bytes - off < COLL_REDUCE2_CHUNK ? bytes - off : COLL_REDUCE2_CHUNK;
        coll_sched_send(s, p + off, len, MPI_BYTE, peer);
    }
}

void coll_reduce2_recv(coll_sched_t *s, void *dst, size_t cnt, MPI_Datatype dt, int peer,
                       size_t chunks)
{
    if (!chunks) {
        coll_sched_recv(s, dst, cnt, dt, peer);
        coll_sched_fence(s);
        return;
    }
    size_t bytes = cnt * dt->size;
    int contig = core_dt_is_contig(dt);
    char *p = contig ? dst : coll_sched_alloc(s, bytes);
    if (!p)
        return;   /* the schedule has failed */
    for (size_t off = 0; off < bytes; off += COLL_REDUCE2_CHUNK) {
        size_t len = bytes - off < COLL_REDUCE2_CHUNK ? bytes - off : COLL_REDUCE2_CHUNK;
        coll_sched_recv(s, p + off, len, MPI_BYTE, peer);
    }
    coll_sched_fence(s);
    if (!contig)
        coll_sched_copy(s, p, bytes, MPI_BYTE, dst, cnt, dt);
}

void coll_reduce_binomial(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                          int count, MPI_Datatype dt, MPI_Op op, int root)
{
    int n = g->n, r = g->me;
    int tree_root = op->commute ? root : 0;
    int vr = (r - tree_root + n) % n;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t cnt = (size_t)count;
    size_t chunks = coll_reduce2_chunks(coll_sched_comm(s), g, cnt * dt->size, op);

    /* Leaves (odd relative ranks, or a lone rank) combine nothing. */
    int has_child = (vr % 2 == 0) && vr + 1 < n;
    if (!has_child) {
        if (r == tree_root) {
            if (sbuf != MPI_IN_PLACE)
                coll_sched_copy(s, sbuf, cnt, dt, rbuf, cnt, dt);
            coll_sched_fence(s);
            return;
        }
        int parent = ((vr & (vr - 1)) + tree_root) % n;   /* clears the lowest set bit */
        coll_reduce2_send(s, mine, cnt, dt, grp_peer(g, parent), chunks);
        coll_sched_fence(s);
        if (r == root) {   /* not commutative, root != 0: the result comes from 0 */
            coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, 0));
            coll_sched_fence(s);
        }
        return;
    }

    /* The partial result is acc: at first this rank's own vector, which is
     * not copied; the first combination writes into abuf (rbuf at the
     * root), later data from a child arrives in in. */
    void *abuf = r == root ? rbuf : coll_sched_tmp(s, cnt, dt);
    void *in = coll_sched_tmp(s, cnt, dt);
    const void *acc = mine;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            coll_sched_send(s, acc, cnt, dt, grp_peer(g, (vr - mask + tree_root) % n));
            coll_sched_fence(s);
            break;
        }
        if (vr + mask >= n)
            continue;
        int child = grp_peer(g, (vr + mask + tree_root) % n);
        if (op->commute && acc == mine && mine != abuf) {
            /* First child: straight into abuf, then abuf = mine op child. (Chunked only
             * here and below: 2 ranks, commutative.) */
            coll_reduce2_recv(s, abuf, cnt, dt, child, chunks);
            coll_sched_reduce(s, mine, abuf, cnt, dt, op);
            acc = abuf;
        } else if (op->commute) {
            coll_reduce2_recv(s, in, cnt, dt, child, chunks);
            coll_sched_reduce(s, in, abuf, cnt, dt, op);
            acc = abuf;
        } else {
            /* The child's ranks are above ours: in = acc op child, which
             * becomes acc; the next child arrives in a buffer that is free. */
            coll_sched_recv(s, in, cnt, dt, child);
            coll_sched_fence(s);
            coll_sched_reduce(s, acc, in, cnt, dt, op);
            void *next = acc == mine ? abuf : (void *)acc;
            acc = in;
            in = next;
        }
    }
    if (r == tree_root && r == root) {
        if (acc != rbuf)
            coll_sched_copy(s, acc, cnt, dt, rbuf, cnt, dt);
    } else if (r == tree_root) {
        coll_sched_send(s, acc, cnt, dt, grp_peer(g, root));
    } else if (r == root) {
        coll_sched_recv(s, rbuf, cnt, dt, grp_peer(g, tree_root));
    }
    coll_sched_fence(s);
}
