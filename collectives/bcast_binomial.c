/*
 * Broadcast over a binomial tree rooted at the root: a rank receives from
 * the rank that differs in its lowest set bit (relative to the root), then
 * sends to the ranks below that bit. log2(p) (alpha + n beta): the choice
 * for short messages and small communicators; for long messages every
 * level resends the whole message, where scatter + allgather moves only
 * about 2n bytes per rank.
 *
 * A non-contiguous datatype is packed once (at the root, or on arrival) and
 * forwarded as bytes instead of being packed again for every child.
 */
#include "collectives/coll_impl.h"

void coll_bcast_binomial(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                         MPI_Datatype dt, int root)
{
    int n = g->n, vr = (g->me - root + n) % n;
    size_t nbytes = (size_t)count * dt->size;
    if (n == 1 || nbytes == 0)
        return;
    int mask = 1;
    while (mask < n && !(vr & mask))
        mask <<= 1;
    /* mask: this rank's lowest set bit (its subtree spans mask ranks), or
     * the first power of two >= n at the root. Children are vr + mask/2, ... */
    int has_child = vr + 1 < n && mask > 1;

    void *packed = NULL;
    const void *sdata = buf;
    size_t scount = (size_t)count;
    MPI_Datatype sdt = dt;
    if (has_child && !core_dt_is_contig(dt)) {
        if (!(packed = coll_sched_alloc(s, nbytes)))
            return;
        sdata = packed;
        scount = nbytes;
        sdt = MPI_BYTE;
    }

    if (vr != 0) {
        int parent = grp_peer(g, (vr - mask + root) % n);
        if (packed) {
            coll_sched_recv(s, packed, nbytes, MPI_BYTE, parent);
            coll_sched_fence(s);
            coll_sched_copy(s, packed, nbytes, MPI_BYTE, buf, (size_t)count, dt);
        } else {
            coll_sched_recv(s, buf, (size_t)count, dt, parent);
            coll_sched_fence(s);
        }
    } else if (packed) {
        coll_sched_copy(s, buf, (size_t)count, dt, packed, nbytes, MPI_BYTE);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            coll_sched_send(s, sdata, scount, sdt, grp_peer(g, (vr + mask + root) % n));
    coll_sched_fence(s);
}
