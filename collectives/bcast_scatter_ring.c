/*
 * Broadcast of long messages as a binomial scatter of p chunks followed by
 * an allgather of the chunks (van de Geijn): around a ring (scatter_ring),
 * or by recursive doubling (scatter_recdbl, power-of-two groups; other
 * sizes use the ring). The scatter costs log2(p) alpha + (p-1)/p n beta;
 * the ring (p-1) alpha + (p-1)/p n beta and recursive doubling log2(p)
 * alpha + (p-1)/p n beta: about 2n bytes per rank whatever p, against
 * log2(p) n for the binomial tree, so these win for messages above some ten
 * kilobytes on more than a few ranks; recursive doubling has the lower
 * latency, the ring only talks to neighbours.
 *
 * The message is handled as bytes: the user's buffer when the datatype is
 * contiguous, else a packed copy. Chunk i (of ceil(n/p) bytes, the last
 * ones short or empty) belongs to relative rank i.
 */
#include "collectives/coll_impl.h"

typedef struct chunks {
    size_t nbytes, chunk;
    int n, root;
    const coll_grp_t *g;
} chunks_t;

/* Where chunk first starts, and the bytes of chunks [first, first + k),
 * clipped to the message. */
static size_t span_start(const chunks_t *c, int first)
{
    size_t st = (size_t)first * c->chunk;
    return st < c->nbytes ? st : c->nbytes;
}
static size_t span_len(const chunks_t *c, int first, int k)
{
    int last = first + k < c->n ? first + k : c->n;
    return span_start(c, last) - span_start(c, first);
}
static int real_rank(const chunks_t *c, int vr) { return grp_peer(c->g, (vr + c->root) % c->n); }

static void scatter(coll_sched_t *s, char *data, const chunks_t *c, int vr)
{
    int n = c->n, mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    if (vr != 0) {
        coll_sched_recv(s, data + span_start(c, vr), span_len(c, vr, mask), MPI_BYTE,
                        real_rank(c, vr - mask));
        coll_sched_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child < n)
            coll_sched_send(s, data + span_start(c, child), span_len(c, child, mask), MPI_BYTE,
                            real_rank(c, child));
    }
    coll_sched_fence(s);
}

static void ring_allgather(coll_sched_t *s, char *data, const chunks_t *c, int vr)
{
    int n = c->n;
    int right = real_rank(c, (vr + 1) % n), left = real_rank(c, (vr + n - 1) % n);
    for (int k = 0; k < n - 1; k++) {
        int sc = (vr - k + n) % n, rcv = (vr - k - 1 + n) % n;
        coll_sched_send(s, data + span_start(c, sc), span_len(c, sc, 1), MPI_BYTE, right);
        coll_sched_recv(s, data + span_start(c, rcv), span_len(c, rcv, 1), MPI_BYTE, left);
        coll_sched_fence(s);
    }
}

/* Power of two: in step k, swap the aligned run of 2^k chunks with vr ^ 2^k. */
static void recdbl_allgather(coll_sched_t *s, char *data, const chunks_t *c, int vr)
{
    for (int mask = 1; mask < c->n; mask <<= 1) {
        int peer = vr ^ mask, mine = vr & ~(mask - 1), theirs = peer & ~(mask - 1);
        coll_sched_send(s, data + span_start(c, mine), span_len(c, mine, mask), MPI_BYTE,
                        real_rank(c, peer));
        coll_sched_recv(s, data + span_start(c, theirs), span_len(c, theirs, mask), MPI_BYTE,
                        real_rank(c, peer));
        coll_sched_fence(s);
    }
}

static void bcast_scatter(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                          MPI_Datatype dt, int root, int recdbl)
{
    int n = g->n, r = g->me, vr = (r - root + n) % n;
    chunks_t c = { (size_t)count * dt->size, 0, n, root, g };
    if (n == 1 || c.nbytes == 0)
        return;
    c.chunk = (c.nbytes + (size_t)n - 1) / (size_t)n;

    char *data = buf;
    if (!core_dt_is_contig(dt)) {
        if (!(data = coll_sched_alloc(s, c.nbytes)))
            return;
        if (r == root)
            coll_sched_copy(s, buf, (size_t)count, dt, data, c.nbytes, MPI_BYTE);
    }
    scatter(s, data, &c, vr);
    if (recdbl && coll_is_pof2(n))
        recdbl_allgather(s, data, &c, vr);
    else
        ring_allgather(s, data, &c, vr);
    if (data != buf && r != root) {
        coll_sched_copy(s, data, c.nbytes, MPI_BYTE, buf, (size_t)count, dt);
        coll_sched_fence(s);
    }
}

void coll_bcast_scatter_ring(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                             MPI_Datatype dt, int root)
{
    bcast_scatter(s, g, buf, count, dt, root, 0);
}

void coll_bcast_scatter_recdbl(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                               MPI_Datatype dt, int root)
{
    bcast_scatter(s, g, buf, count, dt, root, 1);
}
