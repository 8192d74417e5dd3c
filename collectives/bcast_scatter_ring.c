/*
 * Broadcast of long messages as a binomial scatter of p chunks followed by
 * a ring allgather (van de Geijn). The scatter costs log2(p) alpha +
 * (p-1)/p n beta and the ring (p-1) alpha + (p-1)/p n beta: about 2n bytes
 * per rank whatever p, against log2(p) n for the binomial tree, so it wins
 * for messages above some ten kilobytes on more than a few ranks.
 *
 * The message is handled as bytes: the user's buffer when the datatype is
 * contiguous, else a packed copy. Chunk i (of ceil(n/p) bytes, the last
 * ones short or empty) belongs to relative rank i.
 */
#include <stdlib.h>
#include "collectives/coll_impl.h"

typedef struct chunks {
    size_t nbytes, chunk;
    int n, root;
} chunks_t;

/* Bytes [start, end) of chunks [first, first + k), clipped to the message. */
static size_t span_start(const chunks_t *c, int first)
{
    size_t s = (size_t)first * c->chunk;
    return s < c->nbytes ? s : c->nbytes;
}
static size_t span_len(const chunks_t *c, int first, int k)
{
    int last = first + k < c->n ? first + k : c->n;
    return span_start(c, last) - span_start(c, first);
}
static int real_rank(const chunks_t *c, int vr) { return (vr + c->root) % c->n; }

static int scatter(char *data, const chunks_t *c, int vr, MPI_Comm comm)
{
    int n = c->n, mask = 1, rc = 0;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    if (vr != 0) {
        rc = coll_recv(data + span_start(c, vr), span_len(c, vr, mask), MPI_BYTE,
                       real_rank(c, vr - mask), COLL_TAG_BCAST, comm);
        if (rc)
            return rc;
    }
    MPI_Request reqs[32];
    int nreq = 0;
    for (mask >>= 1; mask > 0 && !rc; mask >>= 1) {
        int child = vr + mask;
        if (child < n)
            rc = coll_isend(data + span_start(c, child), span_len(c, child, mask), MPI_BYTE,
                            real_rank(c, child), COLL_TAG_BCAST, comm, &reqs[nreq++]);
    }
    if (rc)
        nreq--;
    int rc2 = coll_waitall(reqs, nreq);
    return rc ? rc : rc2;
}

static int ring_allgather(char *data, const chunks_t *c, int vr, MPI_Comm comm)
{
    int n = c->n;
    int right = real_rank(c, (vr + 1) % n), left = real_rank(c, (vr + n - 1) % n);
    for (int s = 0; s < n - 1; s++) {
        int sc = (vr - s + n) % n, rcv = (vr - s - 1 + n) % n;
        int rc = coll_sendrecv(data + span_start(c, sc), span_len(c, sc, 1), MPI_BYTE, right,
                               data + span_start(c, rcv), span_len(c, rcv, 1), MPI_BYTE, left,
                               COLL_TAG_BCAST, comm);
        if (rc)
            return rc;
    }
    return 0;
}

int coll_bcast_scatter_ring(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int n = comm->size, r = comm->rank, vr = (r - root + n) % n;
    chunks_t c = { (size_t)count * dt->size, 0, n, root };
    if (n == 1 || c.nbytes == 0)
        return 0;
    c.chunk = (c.nbytes + (size_t)n - 1) / (size_t)n;

    char *data = buf, *packed = NULL;
    if (!core_dt_is_contig(dt)) {
        if (!(packed = malloc(c.nbytes)))
            return CORE_ENOMEM;
        data = packed;
        if (r == root)
            coll_pack(packed, buf, (size_t)count, dt);
    }
    int rc = scatter(data, &c, vr, comm);
    if (rc == 0)
        rc = ring_allgather(data, &c, vr, comm);
    if (rc == 0 && packed && r != root)
        coll_unpack(buf, (size_t)count, dt, packed);
    free(packed);
    return rc;
}
