/*
 * Entry points of the barrier, broadcast and reductions (coll.h): each
 * makes a schedule, describes its call to the selector, has the chosen
 * algorithm build the schedule, and runs it (blocking) or starts it
 * (nonblocking: the user's datatypes and operation are held until it
 * ends). coll_build_* are also what the node-aware algorithms use for
 * their phases, on groups of ranks.
 */
#include "collectives/coll_impl.h"
#include "collectives/inter.h"
#include "core/op.h"

static size_t nbytes(int count, MPI_Datatype dt)
{
    return (size_t)count * dt->size;
}

static coll_grp_t whole(MPI_Comm comm)
{
    return (coll_grp_t){ comm->size, comm->rank, NULL };
}

/* The selector's view of group g of comm. */
static coll_query_t query_comm(MPI_Comm comm, const coll_grp_t *g, size_t bytes, int count,
                               int commute)
{
    coll_query_t q = { bytes, g->n, count, commute, 0, 0, 0 };
    if (!g->map && g->n == comm->size) {
        coll_comm_nodes(comm, &q.nodes, &q.shared);
        q.crowded = coll_comm_crowded(comm);
    }
    return q;
}

static coll_query_t query(coll_sched_t *s, const coll_grp_t *g, size_t bytes, int count,
                          int commute)
{
    return query_comm(coll_sched_comm(s), g, bytes, count, commute);
}

/* The algorithm the selector gives a call on the whole of comm. */
static enum coll_alg pick(enum coll_id id, MPI_Comm comm, size_t bytes, int count, int commute)
{
    coll_grp_t g = whole(comm);
    coll_query_t q = query_comm(comm, &g, bytes, count, commute);
    return coll_select(id, &q);
}

/* Runs (req NULL) or starts s. */
static int go(coll_sched_t *s, MPI_Request *req)
{
    return req ? coll_sched_start(s, req) : coll_sched_run(s);
}

static coll_sched_t *create(MPI_Comm comm, int id, MPI_Request *req, MPI_Datatype dt, MPI_Op op)
{
    coll_sched_t *s = coll_sched_create(comm, id);
    if (s && req) {
        coll_sched_hold_dt(s, dt);
        coll_sched_hold_op(s, op);
    }
    return s;
}

/* ---- builders on a group ------------------------------------------------- */

void coll_build_barrier(coll_sched_t *s, const coll_grp_t *g)
{
    coll_query_t q = query(s, g, 0, 0, 1);
    enum coll_alg alg = coll_select(COLL_BARRIER, &q);
    if (alg == COLL_ALG_TWO_LEVEL)
        coll_barrier_two_level(s);
    else if (alg == COLL_ALG_LINEAR)
        coll_barrier_linear(s, g);
    else
        coll_barrier_dissemination(s, g);
}

void coll_build_bcast(coll_sched_t *s, const coll_grp_t *g, void *buf, int count,
                      MPI_Datatype dt, int root)
{
    coll_query_t q = query(s, g, nbytes(count, dt), count, 1);
    switch (coll_select(COLL_BCAST, &q)) {
    case COLL_ALG_TWO_LEVEL: coll_bcast_two_level(s, buf, count, dt, root); break;
    case COLL_ALG_SCATTER_RING: coll_bcast_scatter_ring(s, g, buf, count, dt, root); break;
    case COLL_ALG_SCATTER_RECDBL: coll_bcast_scatter_recdbl(s, g, buf, count, dt, root); break;
    case COLL_ALG_LINEAR: coll_bcast_linear(s, g, buf, count, dt, root); break;
    default: coll_bcast_binomial(s, g, buf, count, dt, root); break;
    }
}

void coll_build_reduce(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                       int count, MPI_Datatype dt, MPI_Op op, int root)
{
    coll_query_t q = query(s, g, nbytes(count, dt), count, op->commute);
    switch (coll_select(COLL_REDUCE, &q)) {
    case COLL_ALG_TWO_LEVEL: coll_reduce_two_level(s, sbuf, rbuf, count, dt, op, root); break;
    case COLL_ALG_RSAG: coll_reduce_rsag(s, g, sbuf, rbuf, count, dt, op, root); break;
    case COLL_ALG_LINEAR: coll_reduce_linear(s, g, sbuf, rbuf, count, dt, op, root); break;
    default: coll_reduce_binomial(s, g, sbuf, rbuf, count, dt, op, root); break;
    }
}

void coll_build_allreduce(coll_sched_t *s, const coll_grp_t *g, const void *sbuf, void *rbuf,
                          int count, MPI_Datatype dt, MPI_Op op)
{
    coll_query_t q = query(s, g, nbytes(count, dt), count, op->commute);
    switch (coll_select(COLL_ALLREDUCE, &q)) {
    case COLL_ALG_TWO_LEVEL: coll_allreduce_two_level(s, sbuf, rbuf, count, dt, op); break;
    case COLL_ALG_RABENSEIFNER:
        coll_allreduce_rabenseifner(s, g, sbuf, rbuf, count, dt, op);
        break;
    case COLL_ALG_RING: coll_allreduce_ring(s, g, sbuf, rbuf, count, dt, op); break;
    case COLL_ALG_LINEAR: coll_allreduce_linear(s, g, sbuf, rbuf, count, dt, op); break;
    case COLL_ALG_REDUCE_BCAST: {
        /* Away from the root the input must not be MPI_IN_PLACE: it is rbuf. */
        const void *in = (sbuf == MPI_IN_PLACE && g->me != 0) ? rbuf : sbuf;
        coll_build_reduce(s, g, in, rbuf, count, dt, op, 0);
        coll_build_bcast(s, g, rbuf, count, dt, 0);
        break;
    }
    default: coll_allreduce_recdbl(s, g, sbuf, rbuf, count, dt, op); break;
    }
}

/* ---- entry points ---------------------------------------------------------- */

static int barrier(MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_barrier(comm, req);
    enum coll_alg alg = req ? COLL_ALG_AUTO : pick(COLL_BARRIER, comm, 0, 0, 1);
    if (alg == COLL_ALG_DISSEMINATION)
        return comm->size == 2 ? coll_fast2_barrier(comm) : coll_fast_barrier(comm);
    if (alg == COLL_ALG_LINEAR)
        return coll_fast_barrier_linear(comm);
    coll_sched_t *s = create(comm, COLL_BARRIER, req, NULL, NULL);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    coll_build_barrier(s, &g);
    return go(s, req);
}
int coll_barrier(MPI_Comm comm) { return barrier(comm, NULL); }
int coll_ibarrier(MPI_Comm comm, MPI_Request *req) { return barrier(comm, req); }

static int bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                 MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_bcast(buf, count, dt, root, comm, req);
    /* The fast path sends to the children one after the other: fine for
     * one child (2 ranks) or short messages. */
    enum coll_alg alg = req ? COLL_ALG_AUTO : pick(COLL_BCAST, comm, nbytes(count, dt), count, 1);
    int serial = comm->size <= 2 || nbytes(count, dt) <= COLL_FAST_SERIAL_BYTES;
    if (serial && alg == COLL_ALG_BINOMIAL)
        return comm->size == 2 ? coll_fast2_bcast(buf, count, dt, root, comm)
                               : coll_fast_bcast(buf, count, dt, root, comm);
    if (serial && alg == COLL_ALG_LINEAR)
        return coll_fast_bcast_linear(buf, count, dt, root, comm);
    coll_sched_t *s = create(comm, COLL_BCAST, req, dt, NULL);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    coll_build_bcast(s, &g, buf, count, dt, root);
    return go(s, req);
}
int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return bcast(buf, count, dt, root, comm, NULL);
}
int coll_ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *req)
{
    return bcast(buf, count, dt, root, comm, req);
}

static int reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_reduce(sbuf, rbuf, count, dt, op, root, comm, req);
    if (!req && comm->size == 2 && op->commute &&
        (comm->rank != root || sbuf != MPI_IN_PLACE) &&
        pick(COLL_REDUCE, comm, nbytes(count, dt), count, 1) == COLL_ALG_BINOMIAL)
        return coll_fast_reduce2(sbuf, rbuf, count, dt, op, root, comm);
    coll_sched_t *s = create(comm, COLL_REDUCE, req, dt, op);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    coll_build_reduce(s, &g, sbuf, rbuf, count, dt, op, root);
    return go(s, req);
}
int coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    return reduce(sbuf, rbuf, count, dt, op, root, comm, NULL);
}
int coll_ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *req)
{
    return reduce(sbuf, rbuf, count, dt, op, root, comm, req);
}

/* Whether the blocking fast path runs this allreduce (see coll_fast_allreduce). */
static int allreduce_fast(int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return coll_is_pof2(comm->size) && coll_op_symmetric(op) && core_dt_is_contig(dt) &&
           dt->true_lb == 0 && dt->extent == (MPI_Aint)dt->size &&
           pick(COLL_ALLREDUCE, comm, nbytes(count, dt), count, op->commute) == COLL_ALG_RECDBL;
}

static int allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_allreduce(sbuf, rbuf, count, dt, op, comm, req);
    if (!req && allreduce_fast(count, dt, op, comm))
        return comm->size == 2 ? coll_fast2_allreduce(sbuf, rbuf, count, dt, op, comm)
                               : coll_fast_allreduce(sbuf, rbuf, count, dt, op, comm);
    if (!req && comm->size <= COLL_FAST_A2A_MAX && nbytes(count, dt) <= COLL_FAST_SERIAL_BYTES &&
        pick(COLL_ALLREDUCE, comm, nbytes(count, dt), count, op->commute) == COLL_ALG_LINEAR)
        return coll_fast_allreduce_linear(sbuf, rbuf, count, dt, op, comm);
    coll_sched_t *s = create(comm, COLL_ALLREDUCE, req, dt, op);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    coll_build_allreduce(s, &g, sbuf, rbuf, count, dt, op);
    return go(s, req);
}
int coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    return allreduce(sbuf, rbuf, count, dt, op, comm, NULL);
}
int coll_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *req)
{
    return allreduce(sbuf, rbuf, count, dt, op, comm, req);
}

/* counts NULL: every block has count items (reduce_scatter_block). */
static int reduce_scatter(int id, const void *sbuf, void *rbuf, const int *counts, int count,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (comm->remote)
        return coll_inter_reduce_scatter(sbuf, rbuf, count, counts, dt, op, comm, req);
    coll_sched_t *s = create(comm, id, req, dt, op);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    if (!counts) {
        int *c = coll_sched_alloc(s, sizeof(int) * (size_t)comm->size);
        if (c)
            for (int i = 0; i < comm->size; i++)
                c[i] = count;
        counts = c;
    }
    if (counts) {
        size_t total = 0;
        for (int i = 0; i < comm->size; i++)
            total += (size_t)counts[i];
        coll_query_t q = query(s, &g, total * dt->size, (int)total, op->commute);
        if (coll_select((enum coll_id)id, &q) == COLL_ALG_PAIRWISE)
            coll_reduce_scatter_pairwise(s, &g, sbuf, rbuf, counts, dt, op);
        else
            coll_reduce_scatter_halving(s, &g, sbuf, rbuf, counts, dt, op);
    }
    return go(s, req);
}
int coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(COLL_REDUCE_SCATTER, sbuf, rbuf, rcounts, 0, dt, op, comm, NULL);
}
int coll_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return reduce_scatter(COLL_REDUCE_SCATTER, sbuf, rbuf, rcounts, 0, dt, op, comm, req);
}
int coll_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, NULL, rcount, dt, op, comm,
                          NULL);
}
int coll_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return reduce_scatter(COLL_REDUCE_SCATTER_BLOCK, sbuf, rbuf, NULL, rcount, dt, op, comm,
                          req);
}

static int scan(int excl, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *req)
{
    int id = excl ? COLL_EXSCAN : COLL_SCAN;
    coll_sched_t *s = create(comm, id, req, dt, op);
    if (!s)
        return CORE_ENOMEM;
    coll_grp_t g = whole(comm);
    coll_query_t q = query(s, &g, nbytes(count, dt), count, op->commute);
    if (coll_select((enum coll_id)id, &q) == COLL_ALG_LINEAR)
        coll_scan_linear(s, &g, sbuf, rbuf, count, dt, op, excl);
    else
        coll_scan_recdbl(s, &g, sbuf, rbuf, count, dt, op, excl);
    return go(s, req);
}
int coll_scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm)
{
    return scan(0, sbuf, rbuf, count, dt, op, comm, NULL);
}
int coll_iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm, MPI_Request *req)
{
    return scan(0, sbuf, rbuf, count, dt, op, comm, req);
}
int coll_exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    return scan(1, sbuf, rbuf, count, dt, op, comm, NULL);
}
int coll_iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *req)
{
    return scan(1, sbuf, rbuf, count, dt, op, comm, req);
}
