/*
 * Intercommunicator collectives that meet at the two group leaders (local
 * rank 0 of each group): every group first combines its contributions at
 * its leader with an intracommunicator algorithm on comm->local, the
 * leaders swap what they hold in one exchange, and each leader hands the
 * other group's result out in its own group.
 *
 * Barrier: local barrier, leader token exchange, local broadcast of the
 * token. Allreduce: local reduce, exchange, local broadcast: the cost of an
 * intracommunicator reduce + broadcast plus one message; between groups of the same size,
 * every rank swaps with its counterpart and each group allreduces what came (allreduce_pair),
 * or for long vectors reduce-scatter, swap of blocks by every rank, allgather (allreduce_rsag). Reduce-scatter
 * (and its block form): local reduce of the whole vector, exchange, local
 * scatter of the remote group's reduced vector. Allgather: local gather,
 * exchange, local broadcast of the remote group's blocks.
 */
#include "collectives/coll_impl.h"
#include "collectives/inter.h"
#include "core/op.h"


static coll_grp_t local_grp(MPI_Comm comm)
{
    return (coll_grp_t){ comm->size, comm->rank, NULL };
}

/* The leaders swap (send, scount items of sdt) for (recv, rcount items of rdt). */
static void leaders_swap(coll_sched_t *s, MPI_Comm comm, const void *send, size_t scount,
                         MPI_Datatype sdt, void *recv, size_t rcount, MPI_Datatype rdt)
{
    coll_sched_use(s, comm);
    if (comm->rank == 0) {
        coll_sched_send(s, send, scount, sdt, 0);
        coll_sched_recv(s, recv, rcount, rdt, 0);
    }
    coll_sched_fence(s);
    coll_sched_use(s, comm->local);
}

int coll_inter_barrier(MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, COLL_BARRIER, req, NULL, NULL, NULL);
    if (!s)
        return CORE_ENOMEM;
    int *token = coll_sched_alloc(s, 2 * sizeof(int));
    coll_grp_t g = local_grp(comm);
    coll_sched_use(s, comm->local);
    coll_build_barrier(s, &g);
    if (token) {
        token[0] = 0;
        leaders_swap(s, comm, &token[0], 1, MPI_INT, &token[1], 1, MPI_INT);
        coll_build_bcast(s, &g, &token[1], 1, MPI_INT, 0);
    }
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

/* Allreduce of a long vector between groups of the same size n, for an operation that
 * commutes: a reduce-scatter in each group leaves local rank i with block i of its group's
 * sum, rank i of each group swaps that block with rank i of the other, and an allgather in
 * each group assembles the other group's sum. Every rank moves about 3 (n-1)/n + 1/n of the
 * vector instead of the leaders moving it three times in a row (reduce, swap, broadcast): the
 * intracommunicator allreduce's cost (Rabenseifner's), where the leader path took twice it. */
static void allreduce_rsag(coll_sched_t *s, MPI_Comm comm, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op)
{
    int n = comm->size, me = comm->rank;
    int *counts = coll_sched_alloc(s, sizeof(int) * (2 * (size_t)n + 1));
    if (!counts)
        return;
    int *displs = counts + n;
    displs[0] = 0;
    for (int i = 0; i < n; i++) {
        counts[i] = count / n + (i < count % n);
        displs[i + 1] = displs[i] + counts[i];
    }
    coll_grp_t g = local_grp(comm);
    void *part = coll_sched_tmp(s, (size_t)counts[me], dt);
    coll_sched_use(s, comm->local);
    coll_reduce_scatter_pairwise(s, &g, sbuf, part, counts, dt, op);
    coll_sched_use(s, comm);
    coll_sched_send(s, part, (size_t)counts[me], dt, me);
    coll_sched_recv(s, (char *)rbuf + (MPI_Aint)displs[me] * dt->extent, (size_t)counts[me], dt,
                    me);
    coll_sched_fence(s);
    coll_sched_use(s, comm->local);
    coll_layout_t rl = { .buf = rbuf, .dt = dt, .counts = counts, .displs = displs };
    coll_allgather_ring(s, &g, MPI_IN_PLACE, 0, dt, &rl);
}

/* Allreduce of a shorter vector between groups of the same size: rank i of each group swaps
 * its vector with rank i of the other, and each group allreduces what it received. One
 * message plus the intracommunicator allreduce (log2 n steps), where the leaders' path takes
 * a reduce, the swap and a broadcast (2 log2 n + 1 steps in a row). Local rank i holds remote
 * rank i's vector, so an allreduce that keeps rank order (as every intracommunicator one does
 * for operations that do not commute) combines the other group's vectors in its rank order. */
static void allreduce_pair(coll_sched_t *s, MPI_Comm comm, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype dt, MPI_Op op)
{
    int me = comm->rank;
    void *theirs = coll_sched_tmp(s, (size_t)count, dt);
    coll_grp_t g = local_grp(comm);
    coll_sched_use(s, comm);
    coll_sched_send(s, sbuf, (size_t)count, dt, me);
    coll_sched_recv(s, theirs, (size_t)count, dt, me);
    coll_sched_fence(s);
    coll_sched_use(s, comm->local);
    coll_build_allreduce(s, &g, theirs, rbuf, count, dt, op);
}

/* Vectors from this many bytes take allreduce_rsag (when it applies): below, the leaders'
 * path has fewer steps for more than two ranks a group and the copies do not matter. */
#define INTER_RSAG_MIN (32 * 1024)

int coll_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, COLL_ALLREDUCE, req, dt, NULL, op);
    if (!s)
        return CORE_ENOMEM;
    if (comm->size > 1 && comm->size == core_comm_peer_size(comm) && op->commute &&
        count >= comm->size && (size_t)count * dt->size >= INTER_RSAG_MIN) {
        allreduce_rsag(s, comm, sbuf, rbuf, count, dt, op);
        coll_sched_fence(s);
        return coll_inter_go(s, req);
    }
    if (comm->size > 1 && comm->size == core_comm_peer_size(comm)) {
        allreduce_pair(s, comm, sbuf, rbuf, count, dt, op);
        coll_sched_fence(s);
        return coll_inter_go(s, req);
    }
    coll_grp_t g = local_grp(comm);
    void *tmp = coll_sched_tmp(s, (size_t)count, dt);
    coll_sched_use(s, comm->local);
    coll_build_reduce(s, &g, sbuf, tmp, count, dt, op, 0);
    leaders_swap(s, comm, tmp, (size_t)count, dt, rbuf, (size_t)count, dt);
    coll_build_bcast(s, &g, rbuf, count, dt, 0);
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

int coll_inter_reduce_scatter(const void *sbuf, void *rbuf, int rcount, const int *rcounts,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, rcounts ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK,
                             req, dt, NULL, op);
    if (!s)
        return CORE_ENOMEM;
    int n = comm->size;
    int *displs = coll_sched_alloc(s, sizeof(int) * (size_t)(n + 1));
    if (!displs) {
        coll_sched_destroy(s);
        return CORE_ENOMEM;
    }
    /* The vector of each group is its own result's length (MPI makes the
     * two totals equal): scattered here by this group's counts. */
    displs[0] = 0;
    for (int i = 0; i < n; i++)
        displs[i + 1] = displs[i] + (rcounts ? rcounts[i] : rcount);
    int total = displs[n];
    coll_grp_t g = local_grp(comm);
    void *mine = coll_sched_tmp(s, (size_t)total, dt);
    void *theirs = coll_sched_tmp(s, (size_t)total, dt);
    coll_sched_use(s, comm->local);
    coll_build_reduce(s, &g, sbuf, mine, total, dt, op, 0);
    leaders_swap(s, comm, mine, (size_t)total, dt, theirs, (size_t)total, dt);
    coll_layout_t sl = { .buf = theirs, .dt = dt, .counts = rcounts, .count = rcount,
                         .displs = displs };
    coll_scatter_linear(s, &g, &sl, rbuf, rcounts ? rcounts[comm->rank] : rcount, dt, 0);
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}

int coll_inter_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    coll_sched_t *s = coll_inter_create(comm, COLL_ALLGATHER, req, sdt, rdt, NULL);
    if (!s)
        return CORE_ENOMEM;
    int rn = core_comm_peer_size(comm);
    coll_grp_t g = local_grp(comm);
    size_t mine = (size_t)scount * (size_t)comm->size;
    void *tmp = coll_sched_tmp(s, mine, sdt);
    coll_sched_use(s, comm->local);
    coll_gather_binomial(s, &g, sbuf, scount, sdt, tmp, scount, sdt, 0);
    leaders_swap(s, comm, tmp, mine, sdt, rbuf, (size_t)rcount * (size_t)rn, rdt);
    coll_build_bcast(s, &g, rbuf, rcount * rn, rdt, 0);
    coll_sched_fence(s);
    return coll_inter_go(s, req);
}
